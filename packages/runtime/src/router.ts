import { parsePathTemplate, templateShape, type PathTemplate } from "./path-template.js";
import { Code, RpcError } from "./errors.js";

/** What {@link createRouter} needs of a binding. */
export interface RouterBinding {
  /** The HTTP method ("GET", ...), or "*" for a custom rule that takes any method. */
  readonly method: string;
  /** The path template as written in the proto. */
  readonly template: string;
  /** The parsed template, when the caller has it already (generated route tables do). */
  readonly path?: PathTemplate;
}

/** A path that matched a binding. */
export interface RouteMatch {
  /** Index of the binding in the list given to {@link createRouter}. */
  readonly index: number;
  /** Decoded variable values by dotted field path. */
  readonly variables: Record<string, string>;
}

/** A path that matched only under other methods: answer 405 with `Allow`. */
export interface MethodNotAllowed {
  readonly allow: readonly string[];
}

export interface Router {
  /**
   * Finds the binding for a request. `rawPath` is the path as it came off the
   * wire, still percent-encoded, without the query string.
   *
   * Returns the match, `{ allow }` when only other methods match (405), or
   * `undefined` when nothing does (404). Throws {@link RpcError} with
   * INVALID_ARGUMENT on a malformed percent-escape.
   */
  match(method: string, rawPath: string): RouteMatch | MethodNotAllowed | undefined;
}

interface Node {
  readonly literals: Map<string, Node>;
  /** The literals again as [value, child, ...] when there are few: comparing in place beats slicing and hashing. */
  few: (string | Node)[] | undefined;
  star: Node | undefined;
  deep: Node | undefined;
  /** Bindings ending here, by verb ("" for none). */
  readonly ends: Map<string, Ends>;
}

/** The bindings that end at one node with one verb. */
interface Ends {
  readonly byMethod: Map<string, number>;
  /** A custom rule's binding that takes any method. */
  any: number | undefined;
}

/** How to read one variable out of the request's segments, worked out once per binding. */
interface Extractor {
  readonly key: string;
  /** Template segment range; request segments are the same up to the `**`, shifted after it. */
  readonly start: number;
  readonly end: number;
  /** True when the range is one segment before any `**`: the value is that segment. */
  readonly single: boolean;
  readonly multiSegment: boolean;
}

interface Compiled {
  readonly extractors: readonly Extractor[];
  /** Index of the template's `**` segment, or -1. */
  readonly deepAt: number;
  readonly hasProto: boolean;
}

const newNode = (): Node => ({ literals: new Map(), few: undefined, star: undefined, deep: undefined, ends: new Map() });

/** Up to this many literal children are compared in place; more are looked up in the map. */
const FEW = 8;

function freeze(node: Node): void {
  node.few = node.literals.size <= FEW ? [...node.literals].flat() : undefined;
  for (const child of node.literals.values()) freeze(child);
  if (node.star) freeze(node.star);
  if (node.deep) freeze(node.deep);
}

const malformedEscape = /%(?![0-9A-Fa-f]{2})/;

/**
 * Builds a router over HttpRule bindings. Matching walks a tree of segments,
 * so its cost depends on the path, not on the number of bindings. At each
 * segment a literal beats `*`, which beats `**`, with backtracking; the order
 * of the bindings never matters. A verb (`:cancel`) is split off the last
 * segment only when some binding uses that verb, and then only bindings with
 * that verb can match.
 *
 * Everything that does not depend on the request (how to read each variable,
 * the verbs, the tree) is worked out here, once; a match splits the path,
 * walks the tree and reads the variables of the one binding that won.
 *
 * Throws when a template is invalid, or when two bindings have the same
 * method and the same template shape.
 */
export function createRouter(bindings: readonly RouterBinding[]): Router {
  const root = newNode();
  const verbs = new Set<string>();
  const compiled: Compiled[] = [];
  const seen = new Map<string, number>();
  bindings.forEach((b, index) => {
    const t = b.path ?? parsePathTemplate(b.template);
    compiled.push(compile(t));
    const method = b.method.toUpperCase();
    const key = method + " " + templateShape(t);
    const other = seen.get(key);
    if (other !== undefined) {
      throw new Error(
        `bindings ${other} and ${index} are both ${method} ${templateShape(t)}: the same method and path shape cannot be routed`,
      );
    }
    seen.set(key, index);
    let node = root;
    for (const s of t.segments) {
      if (s.kind === "literal") {
        let next = node.literals.get(s.value);
        if (!next) node.literals.set(s.value, (next = newNode()));
        node = next;
      } else if (s.kind === "*") {
        node = node.star ??= newNode();
      } else {
        node = node.deep ??= newNode();
      }
    }
    if (t.verb) verbs.add(t.verb);
    let ends = node.ends.get(t.verb);
    if (!ends) node.ends.set(t.verb, (ends = { byMethod: new Map(), any: undefined }));
    if (method === "*") ends.any = index;
    else ends.byMethod.set(method, index);
  });
  freeze(root);

  // The state of the one match in progress: match() is synchronous and does
  // not call itself, so it can live here instead of in a per-call object.
  let path = "";
  /** Segment i of the request is path[from[i], to[i]); the arrays are reused from match to match. */
  const from: number[] = [];
  const to: number[] = [];
  let n = 0;
  let verb = "";
  let method = "";
  /** Where the winning binding's `**` stopped taking request segments. */
  let deepTo = 0;

  /** The child of `node` for the literal segment i, comparing in place where there are few. */
  function literal(node: Node, i: number): Node | undefined {
    const list = node.few;
    const start = from[i]!;
    const len = to[i]! - start;
    if (list === undefined) return node.literals.get(path.slice(start, start + len));
    for (let k = 0; k < list.length; k += 2) {
      const value = list[k] as string;
      if (value.length === len && path.startsWith(value, start)) return list[k + 1] as Node;
    }
    return undefined;
  }

  /** Depth-first search: literal, then `*`, then `**`, backtracking. */
  function walk(node: Node, i: number): number | undefined {
    if (i === n) {
      const ends = node.ends.get(verb);
      if (ends !== undefined) {
        const hit = ends.byMethod.get(method) ?? ends.any;
        if (hit !== undefined) return hit;
      }
    } else {
      if (node.literals.size > 0) {
        const lit = literal(node, i);
        if (lit !== undefined) {
          const hit = walk(lit, i + 1);
          if (hit !== undefined) return hit;
        }
      }
      if (node.star !== undefined && to[i]! > from[i]!) {
        const hit = walk(node.star, i + 1);
        if (hit !== undefined) return hit;
      }
    }
    if (node.deep !== undefined) {
      // "**" takes as few segments as it can: at each segment, leaving it for a
      // literal or a "*" (tried first, in the walk below) beats keeping it,
      // which is the literal > "*" > "**" rule applied to what follows it.
      for (let j = i; j <= n; j++) {
        const hit = walk(node.deep, j);
        if (hit !== undefined) {
          // A template has one "**" at most, so this is the winner's.
          deepTo = j;
          return hit;
        }
      }
    }
    return undefined;
  }

  /** The winning binding's variables, decoded. */
  function variables(c: Compiled): Record<string, string> {
    const out: Record<string, string> = {};
    for (const x of c.extractors) {
      let value: string;
      if (x.single) {
        value = decode(path.slice(from[x.start], to[x.start]));
      } else {
        // Template segment d is request segment d up to the "**", and counts
        // on from where the "**" stopped after it.
        const at = (d: number) => (c.deepAt < 0 || d <= c.deepAt ? d : deepTo + d - c.deepAt - 1);
        const first = at(x.start);
        const last = at(x.end) - 1;
        // The segments with the "/" between them, as they stand in the path.
        const raw = last < first ? "" : path.slice(from[first], to[last]);
        value = x.multiSegment ? decodeKeepingSlash(raw) : decode(raw);
      }
      // A field named __proto__ must not become the object's prototype.
      if (c.hasProto && x.key === "__proto__") {
        Object.defineProperty(out, x.key, { value, enumerable: true, writable: true, configurable: true });
      } else out[x.key] = value;
    }
    return out;
  }

  function match(m: string, rawPath: string): RouteMatch | MethodNotAllowed | undefined {
    if (rawPath.includes("%") && malformedEscape.test(rawPath)) {
      throw new RpcError(Code.INVALID_ARGUMENT, `malformed percent-escape in path ${JSON.stringify(rawPath)}`);
    }
    let end = rawPath.length;
    while (end > 1 && rawPath.charCodeAt(end - 1) === 47 /* "/" */) end--;
    if (end > 0 && rawPath.charCodeAt(0) !== 47) return undefined;

    verb = "";
    if (verbs.size > 0) {
      // The last ":" of the last segment, found from the end (lastIndexOf is slow here).
      for (let k = end - 1; k > 0; k--) {
        const c = rawPath.charCodeAt(k);
        if (c === 47 /* "/" */) break;
        if (c === 58 /* ":" */) {
          const candidate = rawPath.slice(k + 1, end);
          if (verbs.has(candidate)) {
            verb = candidate;
            end = k;
          }
          break;
        }
      }
    }
    // Segment bounds of [1, end): no copy of the path, no new array.
    path = rawPath;
    n = 0;
    if (end > 1) {
      let start = 1;
      for (;;) {
        const slash = rawPath.indexOf("/", start);
        from[n] = start;
        if (slash < 0 || slash >= end) {
          to[n++] = end;
          break;
        }
        to[n++] = slash;
        start = slash + 1;
      }
    }
    method = m.toUpperCase();
    const found = walk(root, 0);
    if (found !== undefined) {
      const c = compiled[found]!;
      return { index: found, variables: c.extractors.length === 0 ? {} : variables(c) };
    }
    const allow = new Set<string>();
    const segs: string[] = [];
    for (let i = 0; i < n; i++) segs.push(rawPath.slice(from[i], to[i]));
    collect(root, segs, 0, (node) => {
      const ends = node.ends.get(verb);
      if (ends !== undefined) for (const k of ends.byMethod.keys()) allow.add(k);
    });
    if (allow.size === 0) return undefined;
    return { allow: [...allow].sort() };
  }

  return { match };
}

function compile(t: PathTemplate): Compiled {
  const deepAt = t.segments.findIndex((s) => s.kind === "**");
  const extractors = t.variables.map((v) => ({
    key: v.fieldPath.length === 1 ? v.fieldPath[0]! : v.fieldPath.join("."),
    start: v.start,
    end: v.end,
    single: v.end === v.start + 1 && (deepAt < 0 || v.start < deepAt),
    multiSegment: v.multiSegment,
  }));
  return { extractors, deepAt, hasProto: extractors.some((x) => x.key === "__proto__") };
}

/** Visits every end node that the whole path reaches, whatever the method. */
function collect(node: Node, segs: readonly string[], i: number, visit: (node: Node) => void): void {
  if (i === segs.length) visit(node);
  if (i < segs.length) {
    const lit = node.literals.get(segs[i]!);
    if (lit) collect(lit, segs, i + 1, visit);
    if (node.star && segs[i] !== "") collect(node.star, segs, i + 1, visit);
  }
  if (node.deep) for (let j = i; j <= segs.length; j++) collect(node.deep, segs, j, visit);
}

function decode(raw: string): string {
  if (!raw.includes("%")) return raw;
  try {
    return decodeURIComponent(raw);
  } catch {
    throw new RpcError(Code.INVALID_ARGUMENT, `path segment ${JSON.stringify(raw)} is not valid percent-encoded UTF-8`);
  }
}

/** Multi-segment values decode everything but `%2F`, which stays as written (HttpRule). */
function decodeKeepingSlash(raw: string): string {
  if (!raw.includes("%")) return raw;
  return raw
    .split(/(%2[Ff])/)
    .map((part, i) => (i % 2 === 1 ? part : decode(part)))
    .join("");
}
