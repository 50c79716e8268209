/**
 * What the JSON codecs that protoc-gen-a2a-http generates (`<file>_http_json.ts`)
 * call at run time: the checks and conversions of single values, and the
 * wrapper that turns "give up" into "leave it to protobuf-es".
 *
 * A generated codec reads and writes ProtoJSON by plain property access. It
 * gives exactly what protobuf-es `fromJson` (with `ignoreUnknownFields`) and
 * `toJson` (default options) give, by construction: it handles the common
 * shapes itself and, the moment anything is unusual (a null, a number given
 * as a string, an unknown enum name, a key given by its proto name, a type
 * mismatch, a value out of range...), gives up on the whole value, so that
 * protobuf-es does it and errors, messages and edge cases are its own.
 * Well-known types with a special JSON form, Timestamp aside, go to
 * protobuf-es one field at a time.
 */
import { fromJson, toJson, type DescMessage, type JsonObject, type JsonValue, type Message, type MessageShape } from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";
import { GIVE_UP, giveUp, messageOf, type Obj } from "./give-up.js";

/** A message type's generated ProtoJSON codec. */
export interface MessageJsonCodec<Desc extends DescMessage = DescMessage> {
  /** The message type's full name. */
  readonly typeName: Desc["typeName"];
  /**
   * `fromJson(desc, json, { ignoreUnknownFields: true })`, or `undefined`
   * where that is left to protobuf-es (which then gives the answer or the error).
   */
  readonly read: (json: unknown) => MessageShape<Desc> | undefined;
  /**
   * `toJson(desc, message)` of a message of this type, or `undefined` where
   * that is left to protobuf-es; also `toJson(desc, create(desc, init))` of
   * an init shape that holds all its fields (see messageOf). With `required`, fields marked
   * `(google.api.field_behavior) = REQUIRED` that hold their default are
   * written too (`""`, `0`, `false`, `[]`, `{}`, the enum's zero name), here
   * and in every message below, as the A2A profile wants them on the wire.
   */
  write(message: MessageShape<Desc>, required?: boolean): JsonValue | undefined;
  /**
   * For a message type with REQUIRED fields at or below it: true when every
   * one of them is certainly set in `message`, false when one may not be
   * (checkRequired's walk decides then). Absent for the other types.
   */
  readonly complete?: (message: MessageShape<Desc>) => boolean;
}

export { giveUp, messageOf };

/** Below protobuf-es's recursion limit (100), so that its error is the one that shows. */
const MAX_DEPTH = 64;
const READ = { ignoreUnknownFields: true } as const;

/** The codec of a message from its generated reader and writer. */
export function messageJson<Desc extends DescMessage>(
  typeName: Desc["typeName"],
  read: (json: unknown, depth: number) => MessageShape<Desc>,
  write: (message: unknown, required: boolean) => JsonObject,
  complete?: (message: MessageShape<Desc>) => boolean,
): MessageJsonCodec<Desc> {
  return {
    typeName,
    ...(complete ? { complete } : {}),
    read(json) {
      try {
        return read(json, 1);
      } catch (e) {
        if (e !== GIVE_UP) throw e;
        return undefined;
      }
    },
    write(message, required = false) {
      try {
        return write(message, required);
      } catch (e) {
        if (e !== GIVE_UP) throw e;
        return undefined;
      }
    },
  };
}

/** A message's JSON object, `depth` levels down; anything else gives up. */
export function jsonObject(json: unknown, depth: number): Readonly<Obj> {
  if (json === null || typeof json !== "object" || Array.isArray(json) || depth > MAX_DEPTH) giveUp();
  return json as Obj;
}

// Scalars, read. int64 and float have range and form rules (strings,
// exponents, jstype): they are left to protobuf-es.

/** Lone surrogates are protobuf-es's to refuse; where the check is missing, every string goes to it. */
const wellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : () => false;

export function readString(v: unknown): string {
  return typeof v === "string" && wellFormed(v) ? v : giveUp();
}

export function readBool(v: unknown): boolean {
  return typeof v === "boolean" ? v : giveUp();
}

export function readInt32(v: unknown): number {
  return typeof v === "number" && Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff ? v : giveUp();
}

export function readUint32(v: unknown): number {
  return typeof v === "number" && Number.isInteger(v) && v >= 0 && v <= 0xffffffff ? v : giveUp();
}

/** A double; "NaN", "Infinity" and numbers as strings are protobuf-es's. */
export function readDouble(v: unknown): number {
  return typeof v === "number" ? v : giveUp();
}

export function readBytes(v: unknown): Uint8Array {
  if (typeof v !== "string") giveUp();
  if (v === "") return new Uint8Array(0);
  try {
    return base64Decode(v as string);
  } catch {
    return giveUp();
  }
}

// Scalars, written: the value must be of the field's type.

export function writeString(v: unknown): string {
  return typeof v === "string" ? v : giveUp();
}

export function writeBool(v: unknown): boolean {
  return typeof v === "boolean" ? v : giveUp();
}

/** 32-bit integers, written as JSON numbers. */
export function writeInt(v: unknown): number {
  return typeof v === "number" ? v : giveUp();
}

/** A double; NaN and the infinities are strings, written by protobuf-es. */
export function writeDouble(v: unknown): number {
  return typeof v === "number" && Number.isFinite(v) ? v : giveUp();
}

/** 64-bit integers, written as decimal strings. */
export function writeInt64(v: unknown): string {
  return typeof v === "bigint" ? v.toString() : giveUp();
}

export function writeBytes(v: unknown): string {
  return v instanceof Uint8Array ? base64Encode(v) : giveUp();
}

// Implicit-presence fields, written: undefined at the zero value, which
// ProtoJSON leaves out. The zero tests are protobuf-es's: -0 is set for
// floating point, and integers compare loosely (0n, 0 and "0" are zero).

export function stringField(v: unknown): string | undefined {
  return v === "" ? undefined : writeString(v);
}

export function boolField(v: unknown): boolean | undefined {
  return v === false ? undefined : writeBool(v);
}

export function doubleField(v: unknown): number | undefined {
  return Object.is(v, 0) ? undefined : writeDouble(v);
}

export function intField(v: unknown): number | undefined {
  // biome-ignore lint/suspicious/noDoubleEquals: the default in any of its forms: 0, 0n or the string "0" (a 64-bit integer as a string)
  return v == 0 ? undefined : writeInt(v);
}

export function int64Field(v: unknown): string | undefined {
  // biome-ignore lint/suspicious/noDoubleEquals: the default in any of its forms: 0, 0n or the string "0" (a 64-bit integer as a string)
  return v == 0 ? undefined : writeInt64(v);
}

export function bytesField(v: unknown): string | undefined {
  return v instanceof Uint8Array && v.byteLength === 0 ? undefined : writeBytes(v);
}

/** An enum's JSON: by name (numbers and unknown names are protobuf-es's to read). */
export interface EnumJson {
  readonly read: (v: unknown) => number;
  readonly write: (v: unknown) => string | number;
  /** An implicit-presence field: undefined at the enum's first value. */
  readonly field: (v: unknown) => string | number | undefined;
}

/** An enum's codec from its values as `[name, number, name, number, ...]`. */
export function enumJson(values: readonly (string | number)[]): EnumJson {
  const byName = new Map<unknown, number>();
  const byNumber = new Map<unknown, string>();
  for (let i = 0; i < values.length; i += 2) {
    byName.set(values[i], values[i + 1] as number);
    // With aliases (allow_alias) the last name is the one written, as protobuf-es does.
    byNumber.set(values[i + 1], values[i] as string);
  }
  // A number the enum does not name is written as the number.
  const write = (v: unknown) => (typeof v === "number" ? (byNumber.get(v) ?? v) : giveUp());
  const zero = values[1];
  return {
    read: (v) => byName.get(v) ?? giveUp(),
    write,
    field: (v) => (v === zero ? undefined : write(v)),
  };
}

// Lists and maps (string keys; other keys have JSON rules of their own and are protobuf-es's).

export function readList<T>(v: unknown, depth: number, read: (item: unknown, depth: number) => T): T[] {
  if (!Array.isArray(v)) giveUp();
  const out: T[] = [];
  for (const item of v as unknown[]) out.push(read(item, depth + 1));
  return out;
}

/**
 * A list field's JSON, or undefined when the list is empty (ProtoJSON leaves
 * it out). `required` goes on to the elements' writer (see MessageJsonCodec).
 */
export function writeList(v: unknown, write: (item: unknown, required: boolean) => JsonValue, required: boolean): JsonValue[] | undefined {
  if (!Array.isArray(v)) giveUp();
  const list = v as unknown[];
  if (list.length === 0) return undefined;
  const out: JsonValue[] = new Array<JsonValue>(list.length);
  for (let i = 0; i < list.length; i++) out[i] = write(list[i], required);
  return out;
}

export function readMap<T>(v: unknown, depth: number, read: (item: unknown, depth: number) => T): Record<string, T> {
  if (v === null || typeof v !== "object" || Array.isArray(v)) giveUp();
  const out: Record<string, T> = {};
  for (const k of Object.keys(v as Obj)) {
    if (k === "__proto__") giveUp();
    out[k] = read((v as Obj)[k], depth + 1);
  }
  return out;
}

/** A map field's JSON, or undefined when the map is empty. */
export function writeMap(v: unknown, write: (item: unknown, required: boolean) => JsonValue, required: boolean): JsonObject | undefined {
  if (v === null || typeof v !== "object") giveUp();
  let out: JsonObject | undefined;
  for (const k of Object.keys(v as Obj)) {
    if (k === "__proto__") giveUp();
    (out ??= {})[k] = write((v as Obj)[k], required);
  }
  return out;
}

/** Checks that a message holds its oneof as `{ case, value }`. */
export function checkOneof(v: unknown): void {
  if (v === null || typeof v !== "object") giveUp();
}

// Well-known types.

/** A field of a type whose JSON protobuf-es converts (Duration, FieldMask, Any, Value, ListValue, wrappers in lists...). */
export function readVia<Desc extends DescMessage>(desc: Desc, v: unknown): MessageShape<Desc> {
  // A null field is unset to protobuf-es, not the type's reading of null.
  if (v === null) giveUp();
  try {
    return fromJson(desc, v as JsonValue, READ);
  } catch {
    return giveUp();
  }
}

export function writeVia(desc: DescMessage, v: unknown): JsonValue {
  if ((v as Message | null)?.$typeName !== desc.typeName) giveUp();
  try {
    return toJson(desc, v as Message);
  } catch {
    return giveUp();
  }
}

/** A Struct field, which protobuf-es holds as its JsonObject: checked the way protobuf-es checks it, and copied. */
export function readStruct(v: unknown, depth: number): JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (copyJson(v, depth, true) as JsonObject) : giveUp();
}

export function writeStruct(v: unknown): JsonObject {
  return v !== null && typeof v === "object" && !Array.isArray(v) ? (copyJson(v, 0, false) as JsonObject) : giveUp();
}

/** A copy of a JSON value; gives up on what protobuf-es treats specially or refuses. */
function copyJson(v: unknown, depth: number, reading: boolean): unknown {
  // Every level is a Struct or ListValue and a Value to protobuf-es: two levels of its recursion.
  if (depth > MAX_DEPTH / 2) giveUp();
  switch (typeof v) {
    case "string":
      return !reading || wellFormed(v) ? v : giveUp();
    case "boolean":
      return v;
    case "number":
      return Number.isFinite(v) ? v : giveUp();
    case "object": {
      if (v === null) return null;
      if (Array.isArray(v)) return v.map((x) => copyJson(x, depth + 1, reading));
      const out: Obj = {};
      for (const k of Object.keys(v)) {
        if (k === "__proto__") giveUp();
        out[k] = copyJson((v as Obj)[k], depth + 1, reading);
      }
      return out;
    }
    default:
      return giveUp();
  }
}

export { readTimestamp, writeTimestamp } from "./timestamp.js";
export { readValue, writeValue } from "./value.js";
