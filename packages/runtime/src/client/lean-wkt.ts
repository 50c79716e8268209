// The well-known types with a JSON form of their own, for lean-json.ts: each
// a LeanWkt that the generated tables of a lean client import where a field
// has the type, so that a bundle holds only the ones its messages use.
// Struct fields hold a JsonObject, Value, ListValue, Timestamp, Duration and
// FieldMask fields protobuf-es's messages, as protobuf-es has them.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import {
  bad,
  fail,
  isObj,
  MAX_DEPTH,
  readScalar,
  scalarZero,
  setOwn,
  wellFormed,
  writeScalar,
  type LeanScalar,
  type LeanWkt,
  type Obj,
} from "./lean-json.js";
import { protoNameOf } from "../proto-name.js";

/**
 * A wrapper (google.protobuf.StringValue...) of `t`, its value's type (a
 * ScalarType number or a LeanScalar): JSON is the bare value; a singular
 * field holds the bare value too, a boxed one (list item, map value, oneof
 * member) the wrapper message.
 */
export function leanWrapper(typeName: string, t: number | LeanScalar): LeanWkt {
  return {
    typeName,
    read(v, _depth, where, _options, boxed) {
      const value = typeof t === "number" ? readScalar(t, v, where) : t.read(v, where);
      return boxed ? { $typeName: typeName, value } : value;
    },
    write(v, _depth, where, _options, boxed) {
      let value = v;
      if (boxed) {
        if (!isObj(v)) return bad(where, v);
        value = v["value"] ?? (typeof t === "number" ? scalarZero(t) : t.zero);
      }
      return typeof t === "number" ? writeScalar(t, value, where) : t.write(value, where);
    },
  };
}

/** google.protobuf.Timestamp: RFC 3339, UTC, 0, 3, 6 or 9 digits of fraction. */
export const leanTimestamp: LeanWkt = {
  typeName: "google.protobuf.Timestamp",
  read: (v, _depth, where) => readTimestamp(v, where),
  write: (v, _depth, where) => writeTimestamp(v, where),
};

/** google.protobuf.Duration: seconds with an `s`, e.g. "1.5s". */
export const leanDuration: LeanWkt = {
  typeName: "google.protobuf.Duration",
  read: (v, _depth, where) => readDuration(v, where),
  write: (v, _depth, where) => writeDuration(v, where),
};

/** google.protobuf.FieldMask: lowerCamelCase paths joined with commas. */
export const leanFieldMask: LeanWkt = {
  typeName: "google.protobuf.FieldMask",
  read: (v, _depth, where) => readFieldMask(v, where),
  write(v, _depth, where) {
    const paths = isObj(v) ? (v["paths"] ?? []) : bad(where, v);
    if (!Array.isArray(paths)) return bad(where, paths);
    return paths.map((p) => camelPath(String(p), where)).join(",");
  },
};

/** google.protobuf.Struct, held as the JsonObject itself (outside a Value). */
export const leanStruct: LeanWkt = {
  typeName: "google.protobuf.Struct",
  read(v, depth, where) {
    if (!isObj(v)) bad(where, v);
    return copyJson(v, depth, where) as JsonObject;
  },
  write(v, depth, where) {
    if (!isObj(v)) bad(where, v);
    return copyJson(v, depth, where);
  },
};

/** google.protobuf.Value: any JSON, null included. */
export const leanValue: LeanWkt = {
  typeName: "google.protobuf.Value",
  nullable: true,
  read: (v, depth, where) => readValue(v, depth, where),
  write: (v, depth, where) => writeValue(v, depth, where),
};

/** google.protobuf.ListValue: a JSON array. */
export const leanListValue: LeanWkt = {
  typeName: "google.protobuf.ListValue",
  read(v, depth, where) {
    if (!Array.isArray(v)) bad(where, v);
    return { $typeName: "google.protobuf.ListValue", values: (v as unknown[]).map((x) => readValue(x, depth + 1, where)) };
  },
  write(v, depth, where) {
    const values = isObj(v) ? (v["values"] ?? []) : bad(where, v);
    if (!Array.isArray(values)) return bad(where, values);
    return values.map((x) => writeValue(x, depth + 1, where));
  },
};

// The readings below are protobuf-es's own (from-json.js): the same patterns,
// Date.parse (so February 30 is March 2, as there), and the same bounds.
const TIMESTAMP = /^([0-9]{4})-([0-9]{2})-([0-9]{2})T([0-9]{2}):([0-9]{2}):([0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-][0-9][0-9]:[0-9][0-9]))$/;

function readTimestamp(v: unknown, where: string): Obj {
  const m = typeof v === "string" ? TIMESTAMP.exec(v) : null;
  if (m === null) return bad(where, v);
  const ms = Date.parse(`${m[1]}-${m[2]}-${m[3]}T${m[4]}:${m[5]}:${m[6]}${m[8] ?? "Z"}`);
  // 0001-01-01T00:00:00Z to 9999-12-31T23:59:59Z.
  if (!(ms >= -62135596800000 && ms <= 253402300799000)) return bad(where, v);
  return {
    $typeName: "google.protobuf.Timestamp",
    seconds: BigInt(ms / 1000),
    nanos: m[7] === undefined ? 0 : Number(m[7].padEnd(9, "0")),
  };
}

function readDuration(v: unknown, where: string): Obj {
  const m = typeof v === "string" ? /^(-?[0-9]+)(?:\.([0-9]+))?s/.exec(v) : null;
  if (m === null) return bad(where, v);
  const seconds = Number(m[1]);
  if (seconds > 315576000000 || seconds < -315576000000) return bad(where, v);
  const out: Obj = { $typeName: "google.protobuf.Duration", seconds: BigInt(seconds), nanos: 0 };
  if (m[2] !== undefined) {
    const nanos = Number.parseInt(m[2] + "0".repeat(9 - m[2].length));
    out["nanos"] = seconds < 0 || Object.is(seconds, -0) ? -nanos : nanos;
  }
  return out;
}

function readFieldMask(v: unknown, where: string): Obj {
  if (typeof v !== "string") return bad(where, v);
  if (v !== "" && v.includes("_")) return bad(where, v);
  return { $typeName: "google.protobuf.FieldMask", paths: v === "" ? [] : v.split(",").map(protoNameOf) };
}

/** A google.protobuf.Value message of any JSON: checked as a Struct's JSON is, then wrapped. */
function readValue(v: unknown, depth: number, where: string): Obj {
  return toValue(copyJson(v, depth, where));
}

function toValue(v: JsonValue): Obj {
  const kind =
    v === null
      ? { case: "nullValue", value: 0 }
      : Array.isArray(v)
        ? { case: "listValue", value: { $typeName: "google.protobuf.ListValue", values: v.map(toValue) } }
        : typeof v === "object"
          ? { case: "structValue", value: { $typeName: "google.protobuf.Struct", fields: mapOwn(v, toValue) } }
          : { case: `${typeof v === "boolean" ? "bool" : typeof v}Value`, value: v };
  return { $typeName: "google.protobuf.Value", kind };
}

/** `o`'s own keys (`__proto__` too: a key is data) with `f` of each value. */
function mapOwn<T>(o: Obj, f: (x: T) => unknown): Obj {
  const out: Obj = {};
  for (const k of Object.keys(o)) setOwn(out, k, f(o[k] as T));
  return out;
}

/** A copy of a JSON object or value, checked to be JSON (as a Struct field holds it). */
function copyJson(v: unknown, depth: number, where: string): JsonValue {
  if (depth > MAX_DEPTH) fail(`${where}: nested too deep`);
  switch (typeof v) {
    case "number":
      if (!Number.isFinite(v)) bad(where, v);
      return v;
    case "string":
      if (!wellFormed(v)) fail(`${where}: a lone surrogate`);
      return v;
    case "boolean":
      return v;
    case "object": {
      if (v === null) return null;
      if (Array.isArray(v)) return v.map((x) => copyJson(x, depth + 2, where));
      return mapOwn(v as Obj, (x) => copyJson(x, depth + 2, where)) as JsonObject;
    }
  }
  return bad(where, v);
}

function camelPath(p: string, where: string): string {
  if (/[A-Z]/.test(p) || /_(?![a-z])/.test(p)) bad(where, p);
  return p.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

function writeValue(v: unknown, depth: number, where: string): JsonValue {
  if (depth > MAX_DEPTH) fail(`${where}: nested too deep`);
  const kind = isObj(v) ? (v["kind"] as { case?: unknown; value?: unknown } | undefined) : bad(where, v);
  const x = kind?.value;
  // A number, string or bool kind without its value is written as protobuf-es writes it: null, or (undefined) left out.
  if (x == null && /^(number|string|bool)Value$/.test(String(kind?.case))) return x as unknown as JsonValue;
  switch (kind?.case) {
    case "nullValue":
      return null;
    case "numberValue":
      if (typeof x !== "number" || !Number.isFinite(x)) bad(where, x);
      return x as number;
    case "stringValue":
      if (typeof x !== "string") bad(where, x);
      return x as string;
    case "boolValue":
      if (typeof x !== "boolean") bad(where, x);
      return x as boolean;
    case "structValue": {
      const fields = isObj(x) ? ((x["fields"] ?? {}) as Obj) : bad(where, x);
      return mapOwn(fields, (y) => writeValue(y, depth + 2, where)) as JsonObject;
    }
    case "listValue": {
      const values = isObj(x) ? (x["values"] ?? []) : bad(where, x);
      if (!Array.isArray(values)) return bad(where, values);
      return values.map((y) => writeValue(y, depth + 2, where));
    }
  }
  return fail(`${where}: a google.protobuf.Value must have a value`);
}

function writeTimestamp(v: unknown, where: string): string {
  if (!isObj(v)) return bad(where, v);
  const seconds = Number(v["seconds"] ?? 0);
  const nanos = Number(v["nanos"] ?? 0);
  if (seconds < -62135596800 || seconds > 253402300799 || !Number.isInteger(seconds)) bad(where, v);
  if (nanos < 0 || nanos > 999999999 || !Number.isInteger(nanos)) bad(where, v);
  const text = new Date(seconds * 1000).toISOString();
  return `${text.slice(0, text.indexOf("."))}${fraction(nanos)}Z`;
}

function writeDuration(v: unknown, where: string): string {
  if (!isObj(v)) return bad(where, v);
  const seconds = BigInt(String(v["seconds"] ?? 0));
  const nanos = Number(v["nanos"] ?? 0);
  if (seconds > BigInt(315576000000) || seconds < -BigInt(315576000000)) bad(where, v);
  if (!Number.isInteger(nanos) || Math.abs(nanos) > 999999999 || (seconds > BigInt(0) && nanos < 0) || (seconds < BigInt(0) && nanos > 0)) {
    bad(where, v);
  }
  const negative = seconds < BigInt(0) || nanos < 0;
  const abs = seconds < BigInt(0) ? -seconds : seconds;
  return `${negative ? "-" : ""}${abs}${fraction(Math.abs(nanos))}s`;
}

/** The fraction of a second as ProtoJSON writes it: none, or 3, 6 or 9 digits. */
function fraction(nanos: number): string {
  if (nanos === 0) return "";
  const text = String(nanos).padStart(9, "0");
  if (nanos % 1_000_000 === 0) return `.${text.slice(0, 3)}`;
  if (nanos % 1000 === 0) return `.${text.slice(0, 6)}`;
  return `.${text}`;
}
