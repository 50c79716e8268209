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
  /**
   * When there are few literals, the same again by length: byLength[len] is
   * [value, child, ...] of the literals `len` long. One read leaves one
   * literal to compare, or none, which beats hashing the segment.
   */
  byLength: ((string | Node)[] | undefined)[] | undefined;
  star: Node | undefined;
  deep: Node | undefined;
  /** Bindings ending here, by verb number (0 for no verb; see `verbs` in createRouter). */
  readonly ends: (Ends | undefined)[];
}

/** The bindings that end at one node with one verb. */
interface Ends {
  /** The binding of each method named here, upper-case. */
  readonly named: Map<string, number>;
  /** A custom rule's binding that takes any method. */
  any: number | undefined;
  /**
   * Worked out from the two above once the tree is built: the binding by
   * method number (see `methods` in createRouter), or -1. The binding that
   * takes any method fills every slot that no named one claims, the last
   * slot (methods that no binding names) included, so that finding the
   * binding is one array read.
   */
  byMethod: number[];
  /** The named methods, sorted: the `Allow` of a 405 that stops here. */
  allow: string[];
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

const newNode = (): Node => ({ literals: new Map(), byLength: undefined, star: undefined, deep: undefined, ends: [] });

/** Up to this many literal children are compared in place; more are looked up in the map. */
const FEW = 8;

/** Turns the built tree into the tables that matching reads. */
function freeze(node: Node, verbCount: number, methods: readonly string[]): void {
  if (node.literals.size <= FEW) {
    node.byLength = [];
    for (const [value, child] of node.literals) (node.byLength[value.length] ??= []).push(value, child);
  }
  // The same length everywhere, so that `ends[verb]` never reads past the end.
  while (node.ends.length < verbCount) node.ends.push(undefined);
  for (const ends of node.ends) {
    if (!ends) continue;
    ends.byMethod = methods.map((m) => ends.named.get(m) ?? ends.any ?? -1);
    ends.byMethod.push(ends.any ?? -1);
    ends.allow = [...ends.named.keys()].sort();
  }
  for (const child of node.literals.values()) freeze(child, verbCount, methods);
  if (node.star) freeze(node.star, verbCount, methods);
  if (node.deep) freeze(node.deep, verbCount, methods);
}

/**
 * Builds a router over HttpRule bindings. Matching walks a tree of segments,
 * so its cost depends on the path, not on the number of bindings. At each
 * segment a literal beats `*`, which beats `**`, with backtracking; the order
 * of the bindings never matters. A verb (`:cancel`) is split off the last
 * segment only when some binding uses that verb, and then only bindings with
 * that verb can match.
 *
 * Everything that does not depend on the request is worked out here, once:
 * the tree, how to read each variable, the verbs and methods as small
 * numbers, and at each end the binding by method and the `Allow`. A match
 * splits the path, walks the tree and reads the variables of the one binding
 * that won. A walk that finds nothing has seen every end the path reaches,
 * so a 405 needs no second pass.
 *
 * Throws when a template is invalid, or when two bindings have the same
 * method and the same template shape.
 */
export function createRouter(bindings: readonly RouterBinding[]): Router {
  const { root, compiled, verbs, methods } = buildTree(bindings);

  // The state of the one match in progress: match() is synchronous and does
  // not call itself, so it can live here instead of in a per-call object.
  let path = "";
  /** Segment i of the request is path[from[i], to[i]); the arrays are reused from match to match. */
  const from: number[] = [];
  const to: number[] = [];
  let n = 0;
  let verb = 0;
  let method = 0;
  /** Whether the path has a "%" anywhere: without one, no value needs decoding. */
  let escaped = false;
  /** Where the winning binding's `**` stopped taking request segments. */
  let deepTo = 0;
  /**
   * The ends that the path reached under its verb but not under its method:
   * a 405 allows their methods. missed[0, missedCount) is this match's; a
   * count, because setting an array's length calls into the runtime.
   */
  const missed: Ends[] = [];
  let missedCount = 0;

  /** The child of `node` for the literal segment i. */
  function literal(node: Node, i: number): Node | undefined {
    const start = from[i]!;
    const end = to[i]!;
    const byLength = node.byLength;
    if (byLength === undefined) return node.literals.get(path.slice(start, end));
    const len = end - start;
    const list = len < byLength.length ? byLength[len] : undefined;
    if (list === undefined) return undefined;
    // A slice compared with === beats startsWith, which V8 compiles to a slow loop here.
    const segment = path.slice(start, end);
    for (let k = 0; k < list.length; k += 2) if (list[k] === segment) return list[k + 1] as Node;
    return undefined;
  }

  /**
   * Depth-first search: literal, then `*`, then `**`, backtracking. Where a
   * node leaves one way on, the search follows it in this loop rather than in
   * a call; most nodes of a real table have only one.
   */
  function walk(node: Node, i: number): number {
    for (;;) {
      if (i === n) {
        const ends = node.ends[verb];
        if (ends !== undefined) {
          const hit = ends.byMethod[method]!;
          if (hit >= 0) return hit;
          missed[missedCount++] = ends;
        }
        break;
      }
      const lit = node.literals.size > 0 ? literal(node, i) : undefined;
      const star = to[i]! > from[i]! ? node.star : undefined;
      if (lit !== undefined) {
        if (star === undefined && node.deep === undefined) {
          node = lit;
          i++;
          continue;
        }
        const hit = walk(lit, i + 1);
        if (hit >= 0) return hit;
      }
      if (star !== undefined) {
        if (node.deep === undefined) {
          node = star;
          i++;
          continue;
        }
        const hit = walk(star, i + 1);
        if (hit >= 0) return hit;
      }
      break;
    }
    return node.deep === undefined ? -1 : deep(node.deep, i);
  }

  /**
   * "**" takes as few segments as it can (j counts up): at each segment,
   * leaving it for a literal or a "*" that follows beats keeping it, which is
   * the literal > "*" > "**" rule applied to what follows it.
   */
  function deep(node: Node, i: number): number {
    for (let j = i; j <= n; j++) {
      const hit = walk(node, j);
      if (hit >= 0) {
        // A template has one "**" at most, so this is the winner's.
        deepTo = j;
        return hit;
      }
    }
    return -1;
  }

  /** The winning binding's variables, decoded. */
  function variables(c: Compiled): Record<string, string> {
    const out: Record<string, string> = {};
    const xs = c.extractors;
    for (let k = 0; k < xs.length; k++) {
      const x = xs[k]!;
      let value = x.single ? path.slice(from[x.start], to[x.start]) : span(c, x);
      if (escaped) value = x.multiSegment ? decodeKeepingSlash(value) : decode(value);
      // A field named __proto__ must not become the object's prototype.
      if (c.hasProto && x.key === "__proto__") {
        Object.defineProperty(out, x.key, { value, enumerable: true, writable: true, configurable: true });
      } else out[x.key] = value;
    }
    return out;
  }

  /** The request segments that a variable covers, with the "/" between them as they stand in the path. */
  function span(c: Compiled, x: Extractor): string {
    // Template segment d is request segment d up to the "**", and counts on
    // from where the "**" stopped after it.
    const at = (d: number) => (c.deepAt < 0 || d <= c.deepAt ? d : deepTo + d - c.deepAt - 1);
    const first = at(x.start);
    const last = at(x.end) - 1;
    return last < first ? "" : path.slice(from[first], to[last]);
  }

  function match(m: string, rawPath: string): RouteMatch | MethodNotAllowed | undefined {
    escaped = checkEscapes(rawPath);
    let end = rawPath.length;
    while (end > 1 && rawPath.charCodeAt(end - 1) === 47 /* "/" */) end--;
    if (end > 0 && rawPath.charCodeAt(0) !== 47) return undefined;

    // The verb is the text after the last ":" of the last segment. A verb has
    // neither ":" nor "/" in it, so a ":" right before one that ends the path
    // is that last ":"; a few compares instead of a scan of the segment.
    verb = 0;
    for (let v = 0; v < verbs.length; v++) {
      const name = verbs[v]!;
      const colon = end - name.length - 1;
      if (colon > 0 && rawPath.charCodeAt(colon) === 58 /* ":" */ && rawPath.startsWith(name, colon + 1)) {
        verb = v + 1;
        end = colon;
        break;
      }
    }
    path = rawPath;
    n = splitSegments(rawPath, end, from, to);
    method = methodNumber(methods, m);
    missedCount = 0;
    const found = walk(root, 0);
    if (found >= 0) {
      const c = compiled[found]!;
      return { index: found, variables: c.extractors.length === 0 ? {} : variables(c) };
    }
    return missedCount === 0 ? undefined : { allow: allowOf(missed, missedCount) };
  }

  return { match };
}

/**
 * The number of a request's method: its index in `methods`, or
 * `methods.length` for a method no binding names. A service names a handful
 * of methods, so comparing them in turn beats hashing; they come upper-case
 * from every HTTP stack, and upper-casing is for the rest.
 */
function methodNumber(methods: readonly string[], m: string): number {
  for (let k = 0; k < methods.length; k++) if (methods[k] === m) return k;
  const upper = m.toUpperCase();
  if (upper !== m) for (let k = 0; k < methods.length; k++) if (methods[k] === upper) return k;
  return methods.length;
}

/**
 * Writes the segment bounds of rawPath[1, end) into `from` and `to` (segment
 * i is rawPath[from[i], to[i])) and returns their number: no copy of the
 * path, no new array.
 */
function splitSegments(rawPath: string, end: number, from: number[], to: number[]): number {
  let n = 0;
  if (end <= 1) return 0;
  let start = 1;
  for (;;) {
    const slash = rawPath.indexOf("/", start);
    from[n] = start;
    if (slash < 0 || slash >= end) {
      to[n++] = end;
      return n;
    }
    to[n++] = slash;
    start = slash + 1;
  }
}

/** The `Allow` of a 405: the methods of every end that the path reached (missed[0, count)). */
function allowOf(missed: readonly Ends[], count: number): string[] {
  if (count === 1) return missed[0]!.allow.slice();
  const all = new Set<string>();
  for (let k = 0; k < count; k++) for (const m of missed[k]!.allow) all.add(m);
  return [...all].sort();
}

/** The tree of a router: the bindings' templates as paths of nodes, their ends, and the verbs and methods by number. */
function buildTree(bindings: readonly RouterBinding[]): { root: Node; compiled: Compiled[]; verbs: string[]; methods: string[] } {
  const root = newNode();
  const compiled: Compiled[] = [];
  const seen = new Map<string, number>();
  // Verbs and methods by number: a request's verb and method are looked up
  // once, and each end after that is an array read instead of a map lookup.
  const verbs: string[] = [];
  const methods: string[] = [];
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
    if (t.verb && !verbs.includes(t.verb)) verbs.push(t.verb);
    const v = t.verb ? verbs.indexOf(t.verb) + 1 : 0;
    while (node.ends.length <= v) node.ends.push(undefined);
    const ends = (node.ends[v] ??= { named: new Map(), any: undefined, byMethod: [], allow: [] });
    if (method === "*") ends.any = index;
    else {
      ends.named.set(method, index);
      if (!methods.includes(method)) methods.push(method);
    }
  });
  freeze(root, verbs.length + 1, methods);
  return { root, compiled, verbs, methods };
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

/**
 * Throws on a "%" that two hex digits do not follow, wherever it stands (a
 * 400, even on a 404 path). Returns whether the path has any "%".
 */
function checkEscapes(rawPath: string): boolean {
  let at = rawPath.indexOf("%");
  if (at < 0) return false;
  for (; at >= 0; at = rawPath.indexOf("%", at + 3)) {
    if (!isHex(rawPath.charCodeAt(at + 1)) || !isHex(rawPath.charCodeAt(at + 2))) {
      throw new RpcError(Code.INVALID_ARGUMENT, `malformed percent-escape in path ${JSON.stringify(rawPath)}`);
    }
  }
  return true;
}

/** 0-9, A-F, a-f; false for NaN (past the end). */
const isHex = (c: number) => (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);

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
