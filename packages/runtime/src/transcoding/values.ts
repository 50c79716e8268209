// Converts the text of a path variable or query parameter into a field value.
import {
  create,
  fromJson,
  protoInt64,
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { base64Decode } from "@bufbuild/protobuf/wire";
import { isWrapperDesc } from "@bufbuild/protobuf/wkt";
import { protoNameOf } from "../proto-name.js";
import { checkJson } from "./bounds.js";

/** A value the reflect API accepts for a scalar, enum or message field. */
export type FieldValue = string | number | boolean | bigint | Uint8Array | Message;

/** Thrown by a converter; the caller adds which parameter it was. */
export class ValueError extends Error {
  /** What kind of value was bad, for the caller's "invalid ... for" message. */
  readonly what: string;
  constructor(message: string, what = "value") {
    super(message);
    this.what = what;
  }
}

/** "one of A, B, C" for an enum's values (the first few of a long one). */
export function enumValueList(desc: DescEnum): string {
  const names = desc.values.map((v) => v.name);
  return `${desc.typeName} takes ${names.length > 8 ? `${names.slice(0, 8).join(", ")}, ...` : names.join(", ")}`;
}

export type Converter = (text: string) => FieldValue;

const INT = /^-?[0-9]+$/;
const UINT = /^[0-9]+$/;
const FLOAT = /^-?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?$/;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;
const FIELD_MASK_PATH = /^[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*$/;

const INT32_MIN = -2147483648;
const INT32_MAX = 2147483647;
const UINT32_MAX = 4294967295;
const FLOAT_MAX = 3.4028234663852886e38;
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;
const UINT64_MAX = 2n ** 64n - 1n;

function int32(text: string, min: number, max: number, re: RegExp, what: string): number {
  if (!re.test(text)) throw new ValueError(`expected ${what}`);
  const n = Number(text);
  if (n < min || n > max) throw new ValueError(`${what} out of range`);
  return n;
}

function int64(text: string, signed: boolean, longAsString: boolean): bigint | string {
  if (!(signed ? INT : UINT).test(text)) throw new ValueError(`expected ${signed ? "a decimal int64" : "a decimal uint64"}`);
  const n = BigInt(text);
  if (signed ? n < INT64_MIN || n > INT64_MAX : n > UINT64_MAX) {
    throw new ValueError(`${signed ? "int64" : "uint64"} out of range`);
  }
  if (longAsString) return n.toString();
  return signed ? protoInt64.parse(n.toString()) : protoInt64.uParse(n.toString());
}

function float(text: string, single: boolean): number {
  switch (text) {
    case "NaN":
      return NaN;
    case "Infinity":
      return Infinity;
    case "-Infinity":
      return -Infinity;
  }
  if (!FLOAT.test(text)) throw new ValueError(`expected a number, "NaN", "Infinity" or "-Infinity"`);
  const n = Number(text);
  if (!Number.isFinite(n) || (single && Math.abs(n) > FLOAT_MAX)) {
    throw new ValueError(`${single ? "float" : "double"} out of range`);
  }
  return n;
}

function bytes(text: string): Uint8Array {
  // A "+" that was not percent-encoded arrives as a space; a space is never
  // base64, so read it back as "+".
  const b64 = text.includes(" ") ? text.replace(/ /g, "+") : text;
  if (!BASE64.test(b64) || b64.length % 4 === 1) throw new ValueError("expected base64 or base64url");
  try {
    return base64Decode(b64);
  } catch {
    throw new ValueError("expected base64 or base64url");
  }
}

/** Parses a scalar from its text form (ProtoJSON without quotes). */
export function parseScalar(type: ScalarType, text: string, longAsString = false): string | number | boolean | bigint | Uint8Array {
  switch (type) {
    case ScalarType.STRING:
      return text;
    case ScalarType.BOOL:
      if (text === "true") return true;
      if (text === "false") return false;
      throw new ValueError(`expected true or false`);
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return int32(text, INT32_MIN, INT32_MAX, INT, "an int32");
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return int32(text, 0, UINT32_MAX, UINT, "a uint32");
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return int64(text, true, longAsString);
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return int64(text, false, longAsString);
    case ScalarType.FLOAT:
      return float(text, true);
    case ScalarType.DOUBLE:
      return float(text, false);
    case ScalarType.BYTES:
      return bytes(text);
  }
}

/** Parses an enum value by its name (case-sensitive) or its number; the number must be a value of the enum. */
export function parseEnum(desc: DescEnum, text: string): number {
  const byName = desc.values.find((v) => v.name === text);
  if (byName) return byName.number;
  if (INT.test(text)) {
    const n = Number(text);
    if (desc.values.some((v) => v.number === n)) return n;
  }
  throw new ValueError(enumValueList(desc), "enum value");
}

function fieldMask(desc: DescMessage, text: string): Message {
  const paths: string[] = [];
  if (text !== "") {
    for (const p of text.split(",")) {
      if (!FIELD_MASK_PATH.test(p)) throw new ValueError("expected a comma-separated list of field paths");
      // lowerCamel paths (ProtoJSON) become snake_case; snake_case paths are kept as they are.
      paths.push(protoNameOf(p));
    }
  }
  return create(desc, { paths } as never);
}

function jsonText(desc: DescMessage, text: string): Message {
  let json: JsonValue;
  try {
    json = JSON.parse(text) as JsonValue;
  } catch {
    throw new ValueError(`expected JSON text for ${desc.typeName}`);
  }
  try {
    // The rules of a JSON body (finite numbers, no __proto__ keys) hold for JSON in a query too.
    checkJson(json);
  } catch (e) {
    throw new ValueError(e instanceof Error ? e.message : String(e));
  }
  try {
    return fromJson(desc, json);
  } catch {
    throw new ValueError(`expected JSON text for ${desc.typeName}`);
  }
}

function protoJsonString(desc: DescMessage, text: string, what: string): Message {
  try {
    return fromJson(desc, text);
  } catch {
    throw new ValueError(`expected ${what}`);
  }
}

/**
 * The converter for a message type that a single text value can stand for
 * (Timestamp, Duration, FieldMask, wrappers, Value/Struct/ListValue as JSON
 * text), or undefined for any other message.
 */
export function messageConverter(desc: DescMessage): Converter | undefined {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return (t) => protoJsonString(desc, t, "an RFC 3339 timestamp");
    case "google.protobuf.Duration":
      return (t) => protoJsonString(desc, t, 'a duration in seconds ("1.5s")');
    case "google.protobuf.FieldMask":
      return (t) => fieldMask(desc, t);
    case "google.protobuf.Value":
    case "google.protobuf.Struct":
    case "google.protobuf.ListValue":
      return (t) => jsonText(desc, t);
  }
  if (isWrapperDesc(desc)) {
    const inner = desc.fields[0]!;
    const type = inner.scalar ?? ScalarType.STRING;
    return (t) => create(desc, { value: parseScalar(type, t) } as never);
  }
  return undefined;
}

const converters = new WeakMap<DescField, Converter | null>();

/**
 * The converter from text to the value of `field` (one element for a list),
 * or undefined when the field cannot take a text value (maps, other messages).
 */
export function fieldConverter(field: DescField): Converter | undefined {
  let c = converters.get(field);
  if (c === undefined) {
    c = makeConverter(field) ?? null;
    converters.set(field, c);
  }
  return c ?? undefined;
}

function makeConverter(field: DescField): Converter | undefined {
  switch (field.fieldKind) {
    case "scalar": {
      const type = field.scalar;
      const las = field.longAsString;
      return type === ScalarType.STRING ? (t) => t : (t) => parseScalar(type, t, las);
    }
    case "enum": {
      const e = field.enum;
      return (t) => parseEnum(e, t);
    }
    case "message":
      return messageConverter(field.message);
    case "list":
      switch (field.listKind) {
        case "scalar": {
          const type = field.scalar;
          const las = field.longAsString;
          return (t) => parseScalar(type, t, las);
        }
        case "enum": {
          const e = field.enum;
          return (t) => parseEnum(e, t);
        }
        case "message":
          return messageConverter(field.message);
      }
      return undefined;
    case "map":
      return undefined;
  }
}
