import { createRouter } from "../runtime/router.js";
import type { PathTemplate, TemplateSegment } from "./path-template.js";

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
  for (let i = 0; i < bindings.length; i++) {
    for (let j = i + 1; j < bindings.length; j++) {
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
