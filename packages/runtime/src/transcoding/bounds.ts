// What one request may hold, checked before any of it is turned into
// messages (JSON) or before the handler sees it (gRPC, whose bytes connect-es
// decodes): no non-finite number where JSON stands (a google.protobuf.Value
// has no JSON for it, so a stored one could never be written back), no
// `__proto__` or `constructor` key, and at most `maxElements` elements, so
// that the cost of decoding stays a small multiple of JSON.parse's (see
// docs/security.md and bench/limits.mjs).
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { badRequest, Code, RpcError } from "../errors.js";

/**
 * Default `maxElements`: at the 4 MiB body limit, a request of this many
 * elements decodes in at most 3x JSON.parse's time of the same body and 2.7x
 * its memory (bench/limits.mjs); without a cap, 2M Values (a body of
 * numbers) took 6.9x and 11.4x (191 MB).
 */
export const DEFAULT_MAX_ELEMENTS = 100_000;

/**
 * Keys refused in every object of a request: JSON.parse keeps them as plain
 * own properties, but code that copies keys by assignment (protobuf-es does,
 * for map fields and google.protobuf.Struct) would turn `__proto__` into a
 * prototype; `constructor` shadows what code reads to learn an object's class.
 */
const FORBIDDEN_KEYS: ReadonlySet<string> = new Set(["__proto__", "constructor"]);

/** More elements than the limit: 413, like a body over the size limit. */
export function tooMany(max: number): RpcError {
  return new RpcError(
    Code.RESOURCE_EXHAUSTED,
    `the request holds more than ${max} elements (JSON values, or list items, map entries and Values); send less per request`,
    [],
    { httpStatus: 413 },
  );
}

function forbiddenKey(key: string, path: string): RpcError {
  return new RpcError(Code.INVALID_ARGUMENT, `the request body has the forbidden key ${JSON.stringify(key)} at ${path}`, [
    badRequest([{ field: path, description: `the key ${JSON.stringify(key)} is not allowed` }]),
  ]);
}

function notFinite(path: string, value: number): RpcError {
  const description = `${value} is not a JSON number (too large for a double, or NaN)`;
  return new RpcError(Code.INVALID_ARGUMENT, `invalid value for ${path === "" ? "the request body" : `field "${path}"`}: ${description}`, [
    badRequest([{ field: path, description }]),
  ]);
}

/** A problem found on a walk: what it is and where (a JSON path). */
type Bad =
  | { readonly kind: "key"; readonly key: string; readonly path: string }
  | { readonly kind: "number"; readonly value: number; readonly path: string };

/**
 * Checks a parsed JSON value (a request body, JSON-RPC envelope included):
 * throws INVALID_ARGUMENT naming the path of the first forbidden key or
 * non-finite number (JSON.parse reads `1e400` as Infinity), and
 * RESOURCE_EXHAUSTED (413) past `maxElements` values, counting every object,
 * array, string, number, boolean and null.
 */
export function checkJson(value: unknown, maxElements = DEFAULT_MAX_ELEMENTS): void {
  walkJson(value, maxElements, maxElements, "");
}

/**
 * The walk of {@link checkJson}: returns how many values `value` holds;
 * `budget` is what is left of `max`, `prefix` the path of `value` in the
 * request. Iterative, so deep input cannot overflow the stack; paths are
 * built only once something is wrong. An object whose prototype is not
 * Object's (never one of JSON.parse) is a `__proto__` key read by assignment.
 */
function walkJson(value: unknown, budget: number, max: number, prefix: string): number {
  if (typeof value !== "object" || value === null) {
    if (typeof value === "number" && !Number.isFinite(value)) throw notFinite(prefix, value);
    return 1;
  }
  let count = 1;
  let bad = false;
  const stack: object[] = [value];
  while (stack.length > 0 && !bad) {
    const v = stack.pop()!;
    if (Array.isArray(v)) {
      count += v.length;
      if (count > budget) throw tooMany(max);
      for (let i = 0; i < v.length; i++) {
        const e: unknown = v[i];
        if (typeof e === "object") {
          if (e !== null) stack.push(e);
        } else if (typeof e === "number" && !Number.isFinite(e)) bad = true;
      }
      continue;
    }
    if (Object.getPrototypeOf(v) !== Object.prototype) bad = true;
    const keys = Object.keys(v);
    count += keys.length;
    if (count > budget) throw tooMany(max);
    for (const k of keys) {
      if (FORBIDDEN_KEYS.has(k)) bad = true;
      const e = (v as Record<string, unknown>)[k];
      if (typeof e === "object") {
        if (e !== null) stack.push(e);
      } else if (typeof e === "number" && !Number.isFinite(e)) bad = true;
    }
  }
  if (!bad) return count;
  const found = locate(value, prefix, false)!;
  throw found.kind === "key" ? forbiddenKey(found.key, found.path) : notFinite(found.path, found.value);
}

const join = (path: string, key: string) => (path === "" ? key : `${path}.${key}`);

/** The first forbidden key (or, unless `keysOnly`, non-finite number) in a JSON value, with its path: the slow walk, for the error. */
function locate(value: unknown, prefix: string, keysOnly: boolean): Bad | undefined {
  const stack: { v: unknown; path: string }[] = [{ v: value, path: prefix }];
  while (stack.length > 0) {
    const { v, path } = stack.pop()!;
    if (!keysOnly && typeof v === "number" && !Number.isFinite(v)) return { kind: "number", value: v, path };
    if (typeof v !== "object" || v === null) continue;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ v: v[i], path: `${path}[${i}]` });
      continue;
    }
    if (Object.getPrototypeOf(v) !== Object.prototype) return { kind: "key", key: "__proto__", path: join(path, "__proto__") };
    const keys = Object.keys(v);
    for (const key of keys) if (FORBIDDEN_KEYS.has(key)) return { kind: "key", key, path: join(path, key) };
    for (let i = keys.length - 1; i >= 0; i--) stack.push({ v: (v as Record<string, unknown>)[keys[i]!], path: join(path, keys[i]!) });
  }
  return undefined;
}

/** The first `__proto__` or `constructor` key in a parsed JSON value, with its path. */
export function findForbiddenKey(value: unknown): { key: string; path: string } | undefined {
  const found = locate(value, "", true);
  return found?.kind === "key" ? { key: found.key, path: found.path } : undefined;
}

type Obj = Record<string, unknown>;

/**
 * Checks a decoded request message (gRPC, whose bytes connect-es decoded)
 * by the rules that {@link checkJson} applies to JSON: a google.protobuf.Value
 * number must be finite (binary doubles can hold NaN and the infinities, which
 * JSON cannot), map and Struct keys must not be `__proto__` or `constructor`
 * (protobuf-es's binary reader turns a `__proto__` key of a Struct into the
 * object's prototype, which is refused as that key too), and at most
 * `maxElements` messages, list items, map entries and Values are allowed.
 */
export function checkMessage(desc: DescMessage, message: object, maxElements = DEFAULT_MAX_ELEMENTS): void {
  const walk = new MessageWalk(maxElements);
  walk.message(desc, message as Obj, "");
}

class MessageWalk {
  private count = 0;
  constructor(private readonly max: number) {}

  private add(n: number): void {
    this.count += n;
    if (this.count > this.max) throw tooMany(this.max);
  }

  message(desc: DescMessage, m: Obj, path: string): void {
    this.add(1);
    switch (desc.typeName) {
      case "google.protobuf.Value":
        return this.value(m, path);
      case "google.protobuf.Struct":
        return this.struct(m, path);
      case "google.protobuf.ListValue":
        return this.listValue(m, path);
    }
    for (const f of desc.fields) {
      let v: unknown;
      if (f.oneof) {
        const o = m[f.oneof.localName] as { case?: unknown; value?: unknown } | undefined;
        if (o?.case !== f.localName) continue;
        v = o.value;
      } else v = m[f.localName];
      if (v === undefined || v === null) continue;
      this.field(f, v, join(path, f.jsonName));
    }
  }

  private field(f: DescField, v: unknown, path: string): void {
    switch (f.fieldKind) {
      case "message":
        return this.messageField(f.message, v, path);
      case "list": {
        const list = v as unknown[];
        this.add(list.length);
        if (f.listKind === "message") for (let i = 0; i < list.length; i++) this.messageField(f.message, list[i], `${path}[${i}]`);
        return;
      }
      case "map": {
        const keys = this.keys(v as Obj, path);
        this.add(keys.length);
        if (f.mapKind === "message") for (const k of keys) this.messageField(f.message, (v as Obj)[k], `${path}[${JSON.stringify(k)}]`);
        return;
      }
      default:
        return;
    }
  }

  /** A message in a field: protobuf-es holds a Struct there as a JsonObject, and a wrapper as its value. */
  private messageField(desc: DescMessage, v: unknown, path: string): void {
    if (typeof v !== "object" || v === null) return; // an unboxed wrapper
    if (desc.typeName === "google.protobuf.Struct" && (v as Obj)["$typeName"] === undefined) return this.json(v, path);
    this.message(desc, v as Obj, path);
  }

  /** Own keys of a map or Struct, refusing the forbidden ones and a replaced prototype (a `__proto__` key read by assignment). */
  private keys(o: Obj, path: string): string[] {
    const proto: unknown = Object.getPrototypeOf(o);
    if (proto !== Object.prototype && proto !== null) throw forbiddenKey("__proto__", join(path, "__proto__"));
    const keys = Object.keys(o);
    for (const k of keys) if (FORBIDDEN_KEYS.has(k)) throw forbiddenKey(k, join(path, k));
    return keys;
  }

  private value(m: Obj, path: string): void {
    const kind = m["kind"] as { case?: unknown; value?: unknown } | undefined;
    switch (kind?.case) {
      case "numberValue": {
        const n = kind.value as number;
        if (!Number.isFinite(n)) throw notFinite(path, n);
        return;
      }
      case "structValue":
        return this.struct(kind.value as Obj, path);
      case "listValue":
        return this.listValue(kind.value as Obj, path);
    }
  }

  private struct(m: Obj, path: string): void {
    const fields = m["fields"] as Obj;
    const keys = this.keys(fields, path);
    this.add(keys.length);
    for (const k of keys) this.value(fields[k] as Obj, join(path, k));
  }

  private listValue(m: Obj, path: string): void {
    const values = m["values"] as Obj[];
    this.add(values.length);
    for (let i = 0; i < values.length; i++) this.value(values[i]!, `${path}[${i}]`);
  }

  /** A Struct field as protobuf-es holds it: plain JSON. */
  private json(v: unknown, path: string): void {
    this.count += walkJson(v, this.max - this.count, this.max, path);
  }
}
