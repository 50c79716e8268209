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
  star: Node | undefined;
  deep: Node | undefined;
  /** Bindings ending here, by verb ("" for none), then by method. */
  readonly ends: Map<string, Map<string, number>>;
}

const newNode = (): Node => ({ literals: new Map(), star: undefined, deep: undefined, ends: new Map() });

const malformedEscape = /%(?![0-9A-Fa-f]{2})/;

/**
 * Builds a router over HttpRule bindings. Matching walks a tree of segments,
 * so its cost depends on the path, not on the number of bindings. At each
 * segment a literal beats `*`, which beats `**`, with backtracking; the order
 * of the bindings never matters. A verb (`:cancel`) is split off the last
 * segment only when some binding uses that verb, and then only bindings with
 * that verb can match.
 *
 * Throws when a template is invalid, or when two bindings have the same
 * method and the same template shape.
 */
export function createRouter(bindings: readonly RouterBinding[]): Router {
  const root = newNode();
  const verbs = new Set<string>();
  const templates: PathTemplate[] = [];
  const seen = new Map<string, number>();
  bindings.forEach((b, index) => {
    const t = b.path ?? parsePathTemplate(b.template);
    templates.push(t);
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
    let byMethod = node.ends.get(t.verb);
    if (!byMethod) node.ends.set(t.verb, (byMethod = new Map()));
    byMethod.set(method, index);
  });

  function match(method: string, rawPath: string): RouteMatch | MethodNotAllowed | undefined {
    if (rawPath.includes("%") && malformedEscape.test(rawPath)) {
      throw new RpcError(Code.INVALID_ARGUMENT, `malformed percent-escape in path ${JSON.stringify(rawPath)}`);
    }
    let path = rawPath;
    let end = path.length;
    while (end > 1 && path.charCodeAt(end - 1) === 47 /* "/" */) end--;
    if (end !== path.length) path = path.slice(0, end);
    if (path === "" || path === "/") path = "/";
    else if (path.charCodeAt(0) !== 47) return undefined;

    let verb = "";
    const colon = path.lastIndexOf(":");
    if (colon > path.lastIndexOf("/")) {
      const candidate = path.slice(colon + 1);
      if (verbs.has(candidate)) {
        verb = candidate;
        path = path.slice(0, colon);
      }
    }
    const segs = path === "/" ? [] : path.slice(1).split("/");
    const search: Search = { segs, starts: [], verb, method: method.toUpperCase() };
    const found = walk(root, search, 0, 0);
    if (found !== undefined) {
      return { index: found, variables: extract(templates[found]!, segs, search.starts) };
    }
    const allow = new Set<string>();
    collect(root, segs, 0, (node) => {
      for (const m of node.ends.get(verb)?.keys() ?? []) allow.add(m);
    });
    if (allow.size === 0) return undefined;
    return { allow: [...allow].sort() };
  }

  return { match };
}

/** One search: the request's segments, verb and method; `starts[d]` is where template segment `d` began. */
interface Search {
  readonly segs: readonly string[];
  readonly starts: number[];
  readonly verb: string;
  readonly method: string;
}

/** Depth-first search: literal, then `*`, then `**`, backtracking. */
function walk(node: Node, s: Search, i: number, depth: number): number | undefined {
  const { segs } = s;
  s.starts[depth] = i;
  if (i === segs.length) {
    const byMethod = node.ends.get(s.verb);
    const hit = byMethod === undefined ? undefined : (byMethod.get(s.method) ?? byMethod.get("*"));
    if (hit !== undefined) return hit;
  } else {
    const seg = segs[i]!;
    const lit = node.literals.get(seg);
    if (lit) {
      const hit = walk(lit, s, i + 1, depth + 1);
      if (hit !== undefined) return hit;
    }
    if (node.star && seg !== "") {
      const hit = walk(node.star, s, i + 1, depth + 1);
      if (hit !== undefined) return hit;
    }
  }
  if (node.deep) {
    // Only literals follow "**", so taking as few segments as possible first
    // gives the same result as any other order, and usually sooner.
    for (let j = i; j <= segs.length; j++) {
      const hit = walk(node.deep, s, j, depth + 1);
      if (hit !== undefined) {
        s.starts[depth] = i;
        return hit;
      }
    }
  }
  return undefined;
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

function extract(t: PathTemplate, segs: readonly string[], starts: readonly number[]): Record<string, string> {
  const out: Record<string, string> = {};
  for (const v of t.variables) {
    const from = starts[v.start]!;
    const to = v.end < t.segments.length ? starts[v.end]! : segs.length;
    const raw = segs.slice(from, to).join("/");
    const value = v.multiSegment ? decodeKeepingSlash(raw) : decode(raw);
    const key = v.fieldPath.length === 1 ? v.fieldPath[0]! : v.fieldPath.join(".");
    // A field named __proto__ must not become the object's prototype.
    if (key === "__proto__") Object.defineProperty(out, key, { value, enumerable: true, writable: true, configurable: true });
    else out[key] = value;
  }
  return out;
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
