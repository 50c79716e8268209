// The element cap (transcoding/bounds.ts) on gRPC's binary messages before they
// are decoded. connect-es hands the bytes to protobuf-es's fromBinary before
// anything of ours runs, and decoding is what costs: 4 MiB of null Values
// (about 1M of them) took 1.3 s and 128 MB, 30x the bytes, where the JSON
// bindings stay within 3x JSON.parse's time. Counting on the wire allocates
// nothing: tags and lengths are read, the route's descriptor says which
// length-delimited fields are messages to walk into.
import { ScalarType, type DescField, type DescMessage } from "@bufbuild/protobuf";
import { Code, RpcError } from "../errors.js";
import { DEFAULT_MAX_ELEMENTS, tooMany } from "../transcoding/bounds.js";

/** protobuf's own default recursion limit (the C++ and Java parsers'). */
export const MAX_WIRE_DEPTH = 100;

/**
 * Counts what decoding `bytes` as `desc` would build, on the wire: one per
 * message (at any depth, each occurrence), per list item (packed ones
 * included), per map entry and per unknown field, the way checkMessage
 * counts a decoded message, and throws RESOURCE_EXHAUSTED past
 * `maxElements`, INVALID_ARGUMENT past {@link MAX_WIRE_DEPTH} nested
 * messages. Malformed bytes end the walk quietly: protobuf-es refuses them
 * with its own error.
 */
export function checkWire(desc: DescMessage, bytes: Uint8Array, maxElements = DEFAULT_MAX_ELEMENTS): void {
  new WireWalk(bytes, maxElements).message(desc, 0, bytes.length, 1);
}

/** Thrown inside the walk when the bytes are not protobuf: the walk stops, the decoder reports it. */
const MALFORMED = Symbol("malformed");

const byNumber = new WeakMap<DescMessage, Map<number, DescField>>();

function fieldsOf(desc: DescMessage): Map<number, DescField> {
  let m = byNumber.get(desc);
  if (m === undefined) byNumber.set(desc, (m = new Map(desc.fields.map((f) => [f.number, f]))));
  return m;
}

class WireWalk {
  private count = 0;
  private pos = 0;
  constructor(
    private readonly bytes: Uint8Array,
    private readonly max: number,
  ) {}

  private add(n: number): void {
    this.count += n;
    if (this.count > this.max) throw tooMany(this.max);
  }

  message(desc: DescMessage, start: number, end: number, depth: number): void {
    try {
      this.walk(desc, start, end, depth);
    } catch (e) {
      if (e !== MALFORMED) throw e;
    }
  }

  /** A varint at `pos` (at most 2^53, which is all a length or tag can be here). */
  private varint(end: number): number {
    let result = 0;
    let shift = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= end) throw MALFORMED;
      const b = this.bytes[this.pos++]!;
      result += (b & 0x7f) * shift;
      if (b < 0x80) return result;
      shift *= 128;
    }
    throw MALFORMED;
  }

  private walk(desc: DescMessage, start: number, end: number, depth: number): void {
    if (depth > MAX_WIRE_DEPTH) {
      throw new RpcError(Code.INVALID_ARGUMENT, `the request nests messages more than ${MAX_WIRE_DEPTH} deep`);
    }
    this.add(1);
    // JSON's own types count as checkMessage counts them: a Value once (as the
    // JSON value it is), whatever messages protobuf wraps it in.
    switch (desc.typeName) {
      case "google.protobuf.Value":
        return this.value(start, end, depth);
      case "google.protobuf.Struct":
        return this.entries(start, end, depth, 2);
      case "google.protobuf.ListValue":
        return this.entries(start, end, depth, 0);
    }
    const fields = fieldsOf(desc);
    this.pos = start;
    while (this.pos < end) {
      const tag = this.varint(end);
      const f = fields.get(Math.floor(tag / 8));
      switch (tag & 7) {
        case 0:
          this.varint(end);
          this.scalar(f);
          break;
        case 1:
          this.pos += 8;
          this.scalar(f);
          break;
        case 5:
          this.pos += 4;
          this.scalar(f);
          break;
        case 2: {
          const len = this.varint(end);
          const from = this.pos;
          const to = from + len;
          if (to > end) throw MALFORMED;
          this.delimited(f, from, to, depth);
          this.pos = to;
          break;
        }
        default:
          // Groups (3, 4) and invalid wire types: none in these schemas; the decoder decides.
          throw MALFORMED;
      }
      if (this.pos > end) throw MALFORMED;
    }
  }

  /** Skips a field's value of wire type `wire` (not length-delimited). */
  private skip(wire: number, end: number): void {
    if (wire === 0) this.varint(end);
    else if (wire === 1) this.pos += 8;
    else if (wire === 5) this.pos += 4;
    else throw MALFORMED;
    if (this.pos > end) throw MALFORMED;
  }

  /** A google.protobuf.Value's fields: its struct_value (5) and list_value (6) hold more. */
  private value(start: number, end: number, depth: number): void {
    if (depth > MAX_WIRE_DEPTH) throw new RpcError(Code.INVALID_ARGUMENT, `the request nests messages more than ${MAX_WIRE_DEPTH} deep`);
    this.pos = start;
    while (this.pos < end) {
      const tag = this.varint(end);
      if ((tag & 7) !== 2) {
        this.skip(tag & 7, end);
        continue;
      }
      const len = this.varint(end);
      const from = this.pos;
      if (from + len > end) throw MALFORMED;
      const no = Math.floor(tag / 8);
      if (no === 5) this.entries(from, from + len, depth + 1, 2);
      else if (no === 6) this.entries(from, from + len, depth + 1, 0);
      this.pos = from + len;
    }
  }

  /**
   * A Struct's map entries (their Value is field `valueField`, 2) or a
   * ListValue's values (the entry is the Value itself, `valueField` 0): one
   * element each, as checkMessage counts keys and list items.
   */
  private entries(start: number, end: number, depth: number, valueField: number): void {
    if (depth > MAX_WIRE_DEPTH) throw new RpcError(Code.INVALID_ARGUMENT, `the request nests messages more than ${MAX_WIRE_DEPTH} deep`);
    this.pos = start;
    while (this.pos < end) {
      const tag = this.varint(end);
      if ((tag & 7) !== 2) {
        this.skip(tag & 7, end);
        continue;
      }
      const len = this.varint(end);
      const from = this.pos;
      const to = from + len;
      if (to > end) throw MALFORMED;
      if (Math.floor(tag / 8) === 1) {
        this.add(1);
        if (valueField === 0) this.value(from, to, depth + 1);
        else this.entryValue(from, to, depth + 1);
      }
      this.pos = to;
    }
  }

  /** A Struct entry: its field 2 is the Value. */
  private entryValue(start: number, end: number, depth: number): void {
    this.pos = start;
    while (this.pos < end) {
      const tag = this.varint(end);
      if ((tag & 7) !== 2) {
        this.skip(tag & 7, end);
        continue;
      }
      const len = this.varint(end);
      const from = this.pos;
      if (from + len > end) throw MALFORMED;
      if (Math.floor(tag / 8) === 2) this.value(from, from + len, depth + 1);
      this.pos = from + len;
    }
  }

  /** A varint or fixed-size value: an element when it is a list item, or an unknown field (kept as bytes). */
  private scalar(f: DescField | undefined): void {
    if (f === undefined || f.fieldKind === "list") this.add(1);
  }

  private delimited(f: DescField | undefined, from: number, to: number, depth: number): void {
    if (f === undefined) return this.add(1);
    switch (f.fieldKind) {
      case "message":
        return this.walk(f.message, from, to, depth + 1);
      case "list":
        if (f.listKind === "message") {
          this.add(1);
          return this.walk(f.message, from, to, depth + 1);
        }
        if (f.listKind === "scalar" && (f.scalar === ScalarType.STRING || f.scalar === ScalarType.BYTES)) return this.add(1);
        return this.add(this.packed(f, from, to));
      case "map":
        this.add(1);
        if (f.mapKind === "message") this.mapValue(f.message, from, to, depth);
        return;
      default:
        return;
    }
  }

  /** How many values a packed list holds. */
  private packed(f: DescField & { fieldKind: "list" }, from: number, to: number): number {
    const scalar = f.listKind === "scalar" ? f.scalar : undefined;
    if (scalar === ScalarType.DOUBLE || scalar === ScalarType.FIXED64 || scalar === ScalarType.SFIXED64) return Math.ceil((to - from) / 8);
    if (scalar === ScalarType.FLOAT || scalar === ScalarType.FIXED32 || scalar === ScalarType.SFIXED32) return Math.ceil((to - from) / 4);
    // Varints: one per byte without the continuation bit.
    let n = 0;
    for (let i = from; i < to; i++) if (this.bytes[i]! < 0x80) n++;
    return n;
  }

  /** A map entry whose value is a message: its field 2 is walked. */
  private mapValue(value: DescMessage, from: number, to: number, depth: number): void {
    this.pos = from;
    while (this.pos < to) {
      const tag = this.varint(to);
      const wire = tag & 7;
      if (wire === 0) this.varint(to);
      else if (wire === 1) this.pos += 8;
      else if (wire === 5) this.pos += 4;
      else if (wire === 2) {
        const len = this.varint(to);
        const start = this.pos;
        if (start + len > to) throw MALFORMED;
        if (Math.floor(tag / 8) === 2) this.walk(value, start, start + len, depth + 1);
        this.pos = start + len;
      } else throw MALFORMED;
    }
  }
}
