// The scalar types of a lean client's messages with JSON rules of their own,
// for lean-json.ts: 64-bit integers (a decimal string on the wire, a number
// or string read, bigint in the message) and floats ("NaN", "Infinity",
// numbers as strings). The generated tables import them where a field has
// the type, so a bundle of messages without them holds none of this.
import { bad, readScalar, type LeanMapKey, type LeanScalar } from "./lean-json.js";

const MIN = -(BigInt(1) << BigInt(63));
const MAX = (BigInt(1) << BigInt(63)) - BigInt(1);
const UMAX = (BigInt(1) << BigInt(64)) - BigInt(1);

/** A 64-bit integer from a bigint, a whole number, or its decimal (or whole exponent) text; undefined otherwise. */
function int64Of(v: unknown): bigint | undefined {
  if (typeof v === "bigint") return v;
  if (typeof v === "number") return Number.isInteger(v) ? BigInt(v) : undefined;
  if (typeof v !== "string") return undefined;
  if (/^-?[0-9]+$/.test(v)) return BigInt(v);
  if (v === "" || v.trim() !== v) return undefined;
  const n = Number(v);
  return Number.isInteger(n) ? BigInt(n) : undefined;
}

function int64(scalar: number, min: bigint, max: bigint): LeanScalar {
  const check = (v: unknown, where: string) => {
    const n = int64Of(v);
    return n === undefined || n < min || n > max ? bad(where, v) : n;
  };
  return { scalar, zero: BigInt(0), read: check, write: (v, where) => check(v, where).toString() };
}

/** int64, sint64, sfixed64. */
export const leanInt64: LeanScalar = /*@__PURE__*/ int64(3, MIN, MAX);
/** uint64, fixed64. */
export const leanUint64: LeanScalar = /*@__PURE__*/ int64(4, BigInt(0), UMAX);

function float(scalar: number, max: number): LeanScalar {
  return {
    scalar,
    zero: 0,
    read(v, where) {
      let n: number;
      if (v === "NaN") n = Number.NaN;
      else if (v === "Infinity" || v === "-Infinity") n = Number(v);
      else if (typeof v === "number" && Number.isFinite(v)) n = v;
      else if (typeof v === "string" && v !== "" && v.trim() === v && Number.isFinite(Number(v))) n = Number(v);
      else return bad(where, v);
      return Number.isFinite(n) && Math.abs(n) > max ? bad(where, v) : n;
    },
    write(v, where) {
      if (typeof v !== "number") return bad(where, v);
      return Number.isFinite(v) ? v : String(v);
    },
  };
}

/** double. */
export const leanDouble: LeanScalar = /*@__PURE__*/ float(1, Number.MAX_VALUE);
/** float: a 32-bit float's range. */
export const leanFloat: LeanScalar = /*@__PURE__*/ float(2, 3.4028234663852886e38);

/**
 * A 64-bit integer field held as a string (jstype = JS_STRING), as
 * protobuf-es holds a singular or repeated one (a map's values stay bigint).
 */
export function leanAsString(t: LeanScalar): LeanScalar {
  return { ...t, zero: "0", read: (v, where) => String(t.read(v, where)) };
}

/** A map's key type other than string: bool (8), a 32-bit integer's ScalarType number, or a 64-bit LeanScalar. */
export function leanMapKey(t: number | LeanScalar): LeanMapKey {
  return (k, where) => {
    if (typeof t !== "number") return String(t.read(k, where));
    if (t === 8 /* BOOL */) return k === "true" || k === "false" ? k : bad(where, k);
    return String(readScalar(t, k, where));
  };
}
