// ProtoJSON of a lean generated client (plugin option `client=lean`), driven
// by generated tables of the messages it writes and reads instead of
// protobuf-es's descriptors and reflection, so that a browser bundle of the
// client reaches no protobuf-es value. The messages are protobuf-es's shapes
// (`$typeName`, zero values, bigint, Struct fields as JsonObject, singular
// wrappers unboxed): what `create()` + `toJson()` write of a request's init
// shape, and what `fromJson(…, { ignoreUnknownFields: true })` reads, for every
// valid ProtoJSON form (null, proto names, numbers as strings, enum numbers
// and unknown names, 64-bit integers, float specials, base64 of either
// alphabet, and the well-known types Timestamp, Duration, FieldMask, Struct,
// Value, ListValue, Empty and the wrappers). Invalid JSON throws an Error
// (the client makes it INTERNAL); the wording is not protobuf-es's.
// 64-bit integers, floats (lean-numbers.ts) and the well-known types
// (lean-wkt.ts) are objects that the generated tables import, so a bundle
// holds only what its messages use. google.protobuf.Any alone is protobuf-es's
// (lean-any.ts, with the caller's registry): a bundle whose messages have one
// holds protobuf-es's reflection. Messages outside proto3 are not supported:
// the plugin refuses them under client=lean.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { isJsonObject } from "../json-object.js";
import { protoNameOf } from "../proto-name.js";

/** An enum's values: name, number, name, number..., the zero value first. */
export type LeanEnum = readonly (string | number)[];

/** A scalar type with rules of its own (64-bit integers, floats): lean-numbers.ts. */
export interface LeanScalar {
  /** Its protobuf ScalarType. */
  readonly scalar: number;
  /** Its zero value, as create() sets it. */
  readonly zero: unknown;
  /** The value from its JSON (or a map key's text); throws for JSON that is not one. */
  read(json: unknown, where: string): unknown;
  write(value: unknown, where: string): JsonValue;
}

/**
 * A well-known message type with a JSON form of its own (lean-wkt.ts).
 * `boxed`: the value is a list item's, map value's or oneof member's, where a
 * wrapper (google.protobuf.StringValue...) is its message, not the bare value.
 */
export interface LeanWkt {
  readonly typeName: string;
  /** JSON null is a value of the type (google.protobuf.Value), not "unset". */
  readonly nullable?: boolean;
  /** The field's value (protobuf-es's representation) from its JSON; throws for JSON that is not one. */
  read(json: unknown, depth: number, where: string, options?: LeanOptions, boxed?: boolean): unknown;
  write(value: unknown, depth: number, where: string, options?: LeanOptions, boxed?: boolean): JsonValue;
}

/** What a lean client hands down to the well-known types: the caller's registry, for google.protobuf.Any (lean-any.ts). */
export interface LeanOptions {
  readonly registry?: unknown;
}

/**
 * A field's type: a protobuf ScalarType number (string, bool, bytes and the
 * 32-bit integers), a LeanScalar, an enum, a message (a function, as types
 * may refer to each other) or a well-known type (wrappers too: leanWrapper).
 */
export type LeanType = number | LeanScalar | { readonly e: LeanEnum } | (() => LeanMessage) | LeanWkt;

/** A field of a {@link LeanMessage}; what is left out is the common case. */
export interface LeanField {
  /** The JSON name. */
  readonly j: string;
  /** The proto name, when it is not the JSON name in snake_case. */
  readonly p?: string;
  /** protobuf-es's property name, when it is not the JSON name. */
  readonly l?: string;
  readonly t: LeanType;
  /** `l` a repeated field, `m` a map. */
  readonly c?: "l" | "m";
  /** A map's key type, when not string (leanMapKey: bool, 32- and 64-bit integers). */
  readonly k?: LeanMapKey;
  /** The property name of the oneof it belongs to. */
  readonly o?: string;
  /** Explicit presence (proto3 `optional`): unset is undefined, not the zero value. */
  readonly x?: 1;
}

/** A map key's JSON text checked for the key's type, as the text protobuf-es keys the record with; throws for text that is not one. */
export type LeanMapKey = (key: string, where: string) => string;

/** A message type: its full name and its fields, in declaration order. */
export interface LeanMessage {
  readonly typeName: string;
  readonly fields: readonly LeanField[];
}

export type Obj = Record<string, unknown>;

const INT32 = 5,
  FIXED32 = 7,
  BOOL = 8,
  STRING = 9,
  BYTES = 12,
  UINT32 = 13;

/** Below protobuf-es's recursion limit (100). */
export const MAX_DEPTH = 100;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
/** Whether a string is well-formed UTF-16 (protobuf-es refuses one with a lone surrogate). */
export const wellFormed = (s: string) => !LONE_SURROGATE.test(s);
const localOf = (f: LeanField) => f.l ?? f.j;
export const isObj = isJsonObject as (v: unknown) => v is Obj;
export const fail = (what: string): never => {
  throw new Error(what);
};
/** Throws for a value that the field (`where`) cannot take. */
export const bad = (where: string, v: unknown): never => fail(`${where}: invalid value ${show(v)}`);
const show = (v: unknown) =>
  typeof v === "string" ? JSON.stringify(v) : typeof v === "bigint" ? `${v}n` : Array.isArray(v) ? "array" : String(v);
/** Sets an own property, `__proto__` included (a map key or JSON key is data). */
export const setOwn = (o: object, k: string, value: unknown) =>
  Object.defineProperty(o, k, { value, enumerable: true, writable: true, configurable: true });

export type Kind = "scalar" | "lean" | "enum" | "message" | "wkt";

/** What a field's type is: a protobuf scalar, a LeanScalar ("lean"), an enum, a message or a well-known type. */
export function kindOf(t: LeanType): Kind {
  if (typeof t === "number") return "scalar";
  if (typeof t === "function") return "message";
  if ("e" in t) return "enum";
  if ("scalar" in t) return "lean";
  return "wkt";
}

/** A singular scalar or enum of implicit presence: never unset, its zero value instead. */
const hasZero = (f: LeanField) => f.x === undefined && f.o === undefined && /^(scalar|lean|enum)$/.test(kindOf(f.t));

/** The zero value of string, bool, bytes and the 32-bit integers, as create() sets it. */
export const scalarZero = (t: number): unknown => (t === STRING ? "" : t === BOOL ? false : t === BYTES ? new Uint8Array(0) : 0);

function zeroOf(f: LeanField): unknown {
  const t = f.t;
  if (typeof t === "number") return scalarZero(t);
  if ("e" in t) return t.e[1];
  if ("scalar" in t) return t.zero;
  return undefined;
}

// ---------------------------------------------------------------- reading

const keyCache = new WeakMap<LeanMessage, Map<string, LeanField>>();

/** The fields by JSON name and by proto name. */
function keysOf(m: LeanMessage): Map<string, LeanField> {
  let byKey = keyCache.get(m);
  if (byKey === undefined) {
    byKey = new Map();
    for (const f of m.fields) byKey.set(f.p ?? protoNameOf(f.j), f).set(f.j, f);
    keyCache.set(m, byKey);
  }
  return byKey;
}

const IGNORED = Symbol("ignored");

/** A Value field takes JSON null as a value. */
const nullIsValue = (f: LeanField) => (f.t as LeanWkt).nullable === true;

/** `fromJson(desc, json, { ignoreUnknownFields: true })` of the message `m`. */
export function readLean(m: LeanMessage, json: unknown, depth = 1, options?: LeanOptions): Obj {
  if (depth > MAX_DEPTH) fail(`${m.typeName}: nested too deep`);
  if (!isObj(json)) return bad(m.typeName, json);
  const out: Obj = { $typeName: m.typeName };
  for (const f of m.fields) {
    if (f.o !== undefined) out[f.o] = { case: undefined };
    else if (f.c !== undefined) out[localOf(f)] = f.c === "l" ? [] : {};
    else if (hasZero(f)) out[localOf(f)] = zeroOf(f);
  }
  const byKey = keysOf(m);
  const seen = new Set<LeanField>();
  const oneofs = new Map<string, LeanField>();
  for (const key of Object.keys(json)) {
    const f = byKey.get(key);
    if (f === undefined) continue;
    const where = `${m.typeName}.${f.j}`;
    if (seen.has(f)) fail(`${where} is set more than once`);
    seen.add(f);
    const v = json[key] as unknown;
    if (f.o !== undefined) {
      const nullSkips = v === null && !nullIsValue(f);
      // A null scalar member is skipped; a null message or enum member still claims the oneof, and sets nothing.
      if (nullSkips && typeof f.t === "number") continue;
      const other = oneofs.get(f.o);
      if (other !== undefined) fail(`${m.typeName}: oneof ${f.o} set by both ${other.j} and ${f.j}`);
      oneofs.set(f.o, f);
      if (nullSkips) continue;
      const value = readValue(f, v, depth, true, where, options);
      if (value !== IGNORED) out[f.o] = { case: localOf(f), value };
    } else if (f.c !== undefined) {
      if (v !== null) readCollection(f, v, depth, out[localOf(f)] as Obj | unknown[], where, options);
    } else if (v === null && !nullIsValue(f)) {
      // Null unsets: the zero value, or nothing for explicit presence and messages.
      if (hasZero(f)) out[localOf(f)] = zeroOf(f);
      else delete out[localOf(f)];
    } else {
      const value = readValue(f, v, depth, false, where, options);
      if (value !== IGNORED) out[localOf(f)] = value;
    }
  }
  return out;
}

function readCollection(f: LeanField, v: unknown, depth: number, into: Obj | unknown[], where: string, options?: LeanOptions): void {
  if (f.c === "l") {
    if (!Array.isArray(v)) bad(where, v);
    for (const item of v as unknown[]) {
      if (item === null && !nullIsValue(f)) bad(where, null);
      const value = readValue(f, item, depth, true, where, options);
      if (value !== IGNORED) (into as unknown[]).push(value);
    }
    return;
  }
  if (!isObj(v)) bad(where, v);
  const seen = new Set<string>();
  for (const k of Object.keys(v as Obj)) {
    const key = f.k ? f.k(k, where) : k;
    if (seen.has(key)) bad(where, k);
    seen.add(key);
    const item = (v as Obj)[k];
    if (item === null && !nullIsValue(f)) bad(where, k);
    const value = readValue(f, item, depth, true, where, options);
    if (value !== IGNORED) setOwn(into, key, value);
  }
}

/** A singular field's (`boxed`: a list item's, map value's or oneof member's) value. */
function readValue(f: LeanField, v: unknown, depth: number, boxed: boolean, where: string, options?: LeanOptions): unknown {
  const t = f.t;
  switch (kindOf(t)) {
    case "scalar":
      return readScalar(t as number, v, where);
    case "lean":
      return (t as LeanScalar).read(v, where);
    case "message":
      return readLean((t as () => LeanMessage)(), v, depth + 1, options);
    case "enum":
      return readEnum((t as { e: LeanEnum }).e, v, where);
  }
  return (t as LeanWkt).read(v, depth + 1, where, options, boxed);
}

function readEnum(e: LeanEnum, v: unknown, where: string): number | typeof IGNORED {
  if (typeof v === "string") {
    for (let i = 0; i < e.length; i += 2) if (e[i] === v) return e[i + 1] as number;
    // An unknown name (a newer peer's value) is left out, as with ignoreUnknownFields.
    return IGNORED;
  }
  return readScalar(INT32, typeof v === "number" ? v : NaN, where) as number;
}

/** string, bool, bytes and the 32-bit integers (numbers, or decimal text). */
export function readScalar(t: number, v: unknown, where: string): unknown {
  switch (t) {
    case STRING:
      if (typeof v !== "string") bad(where, v);
      if (!wellFormed(v as string)) fail(`${where}: a lone surrogate`);
      return v;
    case BOOL:
      return typeof v === "boolean" ? v : bad(where, v);
    case BYTES:
      return typeof v === "string" ? base64Decode(v, where) : bad(where, v);
  }
  const n = typeof v === "number" ? v : typeof v === "string" && v !== "" && v.trim() === v ? Number(v) : NaN;
  const unsigned = t === UINT32 || t === FIXED32;
  if (!Number.isInteger(n) || (unsigned ? n < 0 || n > 0xffffffff : n < -0x80000000 || n > 0x7fffffff)) bad(where, v);
  return n;
}

// ---------------------------------------------------------------- writing

/**
 * `toJson(desc, create(desc, init))` of the message `m`: `init` may leave out
 * any field, give nested messages as init shapes too, or be a message.
 */
export function writeLean(m: LeanMessage, init: unknown, depth = 1, options?: LeanOptions): JsonObject {
  if (depth > MAX_DEPTH) fail(`${m.typeName}: nested too deep`);
  if (!isObj(init)) return bad(m.typeName, init);
  if (init["$typeName"] !== undefined && init["$typeName"] !== m.typeName) bad(m.typeName, init["$typeName"]);
  const out: JsonObject = {};
  for (const f of m.fields) {
    const where = `${m.typeName}.${f.j}`;
    let v: unknown;
    if (f.o !== undefined) {
      const o = init[f.o] as { case?: unknown; value?: unknown } | undefined | null;
      if (o?.case !== localOf(f)) continue;
      // As create(): a message member without its value is the empty message; any other member needs one.
      const value = o.value === undefined && typeof f.t === "function" ? {} : o.value;
      out[f.j] = value === undefined || value === null ? bad(where, value) : writeValue(f, value, depth, true, where, options);
      continue;
    }
    v = init[localOf(f)];
    if (v === undefined || v === null) continue;
    if (f.c === "l") {
      if (!Array.isArray(v)) bad(where, v);
      if ((v as unknown[]).length > 0) out[f.j] = (v as unknown[]).map((x) => writeValue(f, x, depth, true, where, options));
    } else if (f.c === "m") {
      if (!isObj(v)) bad(where, v);
      const keys = Object.keys(v as Obj);
      if (keys.length === 0) continue;
      const map: JsonObject = {};
      for (const k of keys) setOwn(map, k, writeValue(f, (v as Obj)[k], depth, true, where, options));
      out[f.j] = map;
    } else if (!hasZero(f) || String(v) !== String(zeroOf(f))) {
      // Implicit presence: the zero value is not written.
      out[f.j] = writeValue(f, v, depth, false, where, options);
    }
  }
  return out;
}

function writeValue(f: LeanField, v: unknown, depth: number, boxed: boolean, where: string, options?: LeanOptions): JsonValue {
  const t = f.t;
  switch (kindOf(t)) {
    case "scalar":
      return writeScalar(t as number, v, where);
    case "lean":
      return (t as LeanScalar).write(v, where);
    case "message":
      return writeLean((t as () => LeanMessage)(), v, depth + 1, options);
    case "enum": {
      const e = (t as { e: LeanEnum }).e;
      if (typeof v !== "number" || !Number.isInteger(v)) return bad(where, v);
      for (let i = 1; i < e.length; i += 2) if (e[i] === v) return e[i - 1] as string;
      return v;
    }
  }
  return (t as LeanWkt).write(v, depth + 1, where, options, boxed);
}

export function writeScalar(t: number, v: unknown, where: string): JsonValue {
  switch (t) {
    case STRING:
      return typeof v === "string" ? v : bad(where, v);
    case BOOL:
      return typeof v === "boolean" ? v : bad(where, v);
    case BYTES:
      return v instanceof Uint8Array || Array.isArray(v) ? base64Encode(v) : bad(where, v);
  }
  return typeof v === "number" ? (readScalar(t, v, where) as number) : bad(where, v);
}

// ---------------------------------------------------------------- base64

// atob and btoa (every browser, Worker and Node 16+) do the alphabet; what is left is ours.
function base64Encode(bytes: ArrayLike<number>): string {
  let text = "";
  for (let i = 0; i < bytes.length; i++) text += String.fromCharCode(bytes[i]! & 255);
  return btoa(text);
}

/** Standard or URL-safe base64, padded or not. */
function base64Decode(text: string, where: string): Uint8Array {
  const clean = text.replace(/=+$/, "");
  if (!/^[A-Za-z0-9+/_-]*$/.test(clean) || clean.length % 4 === 1) return bad(where, text);
  // Unpadded is fine for atob (forgiving-base64); bits past the last byte are dropped, as protobuf-es drops them.
  return Uint8Array.from(atob(clean.replace(/-/g, "+").replace(/_/g, "/")), (c) => c.charCodeAt(0));
}
