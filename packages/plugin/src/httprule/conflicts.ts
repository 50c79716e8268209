import { createRouter } from "a2a-http/routing";
import type { PathTemplate, TemplateSegment } from "a2a-http/routing";

/** Two bindings with the same method that can both match one path. */
export interface TemplateConflict {
  readonly method: string;
  /** Indexes of the two bindings in the list given to {@link findConflicts}. */
  readonly first: number;
  readonly second: number;
  /** A request path that both templates match. */
  readonly examplePath: string;
  /** Index of the binding that the router picks for the example path. */
  readonly winner: number;
}

interface ConflictInput {
  readonly method: string;
  readonly path: PathTemplate;
}

/**
 * Lists the pairs of bindings with the same method whose templates overlap,
 * each with a path that both match and the binding that wins it. The winner
 * comes from the router itself (fed the two bindings), so the report cannot
 * drift from what is served.
 */
export function findConflicts(bindings: readonly ConflictInput[]): TemplateConflict[] {
  const out: TemplateConflict[] = [];
  const candidates = overlapCandidates(bindings);
  for (let i = 0; i < bindings.length; i++) {
    for (const j of candidates[i]!) {
      const a = bindings[i]!;
      const b = bindings[j]!;
      // A custom rule of kind "*" takes every method, so it overlaps any method.
      const ma = a.method.toUpperCase();
      const mb = b.method.toUpperCase();
      if ((ma !== mb && ma !== "*" && mb !== "*") || a.path.verb !== b.path.verb) continue;
      const method = ma === "*" ? mb : ma;
      const segments = overlap(a.path.segments, b.path.segments);
      if (!segments) continue;
      const examplePath = "/" + segments.join("/") + (a.path.verb ? ":" + a.path.verb : "");
      // Precedence is decided pair by pair, so a router of the two alone names
      // the one that wins (a third binding could otherwise take the example).
      const pair = createRouter([a, b].map((x) => ({ method: x.method, template: x.path.template, path: x.path })));
      const m = pair.match(method, examplePath);
      const winner = m && "index" in m ? (m.index === 0 ? i : j) : i;
      out.push({ method, first: i, second: j, examplePath, winner });
    }
  }
  return out;
}

interface TrieNode {
  readonly literals: Map<string, TrieNode>;
  star: TrieNode | undefined;
  deep: TrieNode | undefined;
  /** Bindings whose template ends here. */
  readonly ends: number[];
  readonly id: number;
}

/**
 * For each binding, the later bindings (j > i, ascending) with the same verb
 * whose segments may overlap its own. Checking every pair is quadratic (2,000
 * bindings make 2 million pairs); instead the templates of each verb go into a
 * trie, and each template walks it along the edges it can overlap, so an API
 * whose templates start with distinct literals costs about linear time.
 */
function overlapCandidates(bindings: readonly ConflictInput[]): number[][] {
  const result: number[][] = bindings.map(() => []);
  const tries = new Map<string, TrieNode>();
  let ids = 0;
  const node = (): TrieNode => ({ literals: new Map(), star: undefined, deep: undefined, ends: [], id: ids++ });
  bindings.forEach((b, index) => {
    let n: TrieNode = tries.get(b.path.verb) ?? node();
    tries.set(b.path.verb, n);
    for (const s of b.path.segments) {
      if (s.kind === "literal") {
        let next: TrieNode | undefined = n.literals.get(s.value);
        if (!next) n.literals.set(s.value, (next = node()));
        n = next;
      } else if (s.kind === "*") n = n.star ??= node();
      else n = n.deep ??= node();
    }
    n.ends.push(index);
  });

  bindings.forEach((b, i) => {
    const segs = b.path.segments;
    const found = new Set<number>();
    const seen = new Set<string>();
    // State: segs[a..] still to overlap, the trie at node n; inDeep when the
    // trie's "**" edge out of n has started to take segments of ours.
    const walk = (a: number, n: TrieNode, inDeep: boolean): void => {
      const key = `${a} ${n.id} ${inDeep ? 1 : 0}`;
      if (seen.has(key)) return;
      seen.add(key);
      if (inDeep) {
        // The trie's "**" ends here (its tail continues below n.deep) ...
        walk(a, n.deep!, false);
        // ... or takes one more of our segments.
        if (a < segs.length) walk(a + 1, n, true);
        return;
      }
      if (a === segs.length) for (const j of n.ends) if (j > i) found.add(j);
      if (n.deep) walk(a, n, true);
      if (a === segs.length) return;
      const s = segs[a]!;
      if (s.kind === "**") {
        walk(a + 1, n, false); // our "**" takes nothing more
        for (const child of n.literals.values()) walk(a, child, false); // or one trie segment
        if (n.star) walk(a, n.star, false);
        return;
      }
      if (s.kind === "literal") {
        const lit = n.literals.get(s.value);
        if (lit) walk(a + 1, lit, false);
      } else {
        for (const child of n.literals.values()) walk(a + 1, child, false);
      }
      if (n.star) walk(a + 1, n.star, false);
    };
    walk(0, tries.get(b.path.verb)!, false);
    result[i] = [...found].sort((x, y) => x - y);
  });
  return result;
}

/** A list of request segments that both segment patterns match, or undefined. */
function overlap(a: readonly TemplateSegment[], b: readonly TemplateSegment[]): string[] | undefined {
  const memo = new Set<string>();
  const go = (i: number, j: number): string[] | undefined => {
    const key = i + "," + j;
    if (memo.has(key)) return undefined;
    memo.add(key);
    const x = a[i];
    const y = b[j];
    if (!x && !y) return [];
    if (x?.kind === "**") {
      const skip = go(i + 1, j);
      if (skip) return skip;
      if (y) {
        const take = go(i, j + 1);
        if (take) return [sample(y), ...take];
      }
      return undefined;
    }
    if (y?.kind === "**") {
      const skip = go(i, j + 1);
      if (skip) return skip;
      if (x) {
        const take = go(i + 1, j);
        if (take) return [sample(x), ...take];
      }
      return undefined;
    }
    if (!x || !y) return undefined;
    let seg: string;
    if (x.kind === "literal" && y.kind === "literal") {
      if (x.value !== y.value) return undefined;
      seg = x.value;
    } else {
      seg = x.kind === "literal" ? x.value : y.kind === "literal" ? y.value : "x";
    }
    const rest = go(i + 1, j + 1);
    return rest ? [seg, ...rest] : undefined;
  };
  return go(0, 0);
}

function sample(s: TemplateSegment): string {
  return s.kind === "literal" ? s.value : "x";
}
