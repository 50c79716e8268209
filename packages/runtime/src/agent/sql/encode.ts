/**
 * Protobuf binary of the tasks and events the SQL store writes, reusing what
 * it encoded before. Every commit stores the whole task, and a task changes
 * by copy on write: the new task holds the same history messages, artifacts
 * and often the same status objects as the last one, and its event holds the
 * status (or, for a create, the task) just encoded. So the message-valued
 * fields of the top levels are encoded one by one, each object once, and
 * their bytes are kept by the object's identity; only what is new is encoded
 * again. This leans on the stores' contract (store.ts): an object handed to a
 * store is never changed afterwards.
 *
 * The bytes are protobuf binary that any reader takes (protobuf-es's
 * `fromBinary` included): the scalar fields first, then the message fields,
 * each as tag, length and the field's own encoding, as `toBinary` writes
 * them; only the order of the fields differs, which the wire format allows.
 */
import { ScalarType, toBinary, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** Encoded messages by identity; entries go with their objects. */
const encoded = new WeakMap<object, Uint8Array>();

/**
 * How many levels are taken apart: a Task (its status, history, artifacts), then
 * those (a status's message; an event's status update and its status).
 * Deeper, a message is encoded whole, which is cheaper than keeping small ones.
 */
const DEPTH = 2;

type Fields = Record<string, unknown>;

/** `toBinary(schema, message)`, from kept bytes where it can. */
export function encodeReusing(schema: DescMessage, message: Message, depth = DEPTH): Uint8Array {
  const hit = encoded.get(message);
  if (hit) return hit;
  // Written at the end of what is being written (a caller's message may be half done), then taken off.
  const start = out.n;
  let bytes: Uint8Array;
  if (writePlanned(schema, message as unknown as Fields, depth)) bytes = out.buf.slice(start, out.n);
  else bytes = depth > 0 ? split(schema, message as unknown as Fields, depth) : toBinary(schema, message as never);
  out.n = start;
  if (start === 0 && out.buf.length > MAX_KEPT_BUFFER) out.buf = new Uint8Array(INITIAL_BUFFER);
  encoded.set(message, bytes);
  return bytes;
}

// --- the planned encoder ------------------------------------------------------------
//
// toBinary walks a message by reflection (a reflect object, an isSet and a
// get per field, a writer that pushes bytes to an array): about 55 µs of a
// commit's task and event here. A plan per schema (its fields in number
// order, as toBinary writes them, with their tags and presence worked out
// once) writes the same bytes straight into one Uint8Array, the messages
// within in place behind a length that is moved on in the rare case it
// takes more than one byte. It covers proto3
// messages of the field kinds the A2A schemas use; a schema with others
// (maps, groups, 32-bit fixed and zigzag types, float) is left to toBinary
// whole, and so is a message that holds what protobuf-es keeps in another
// shape (a Struct, a Value or a wrapper) or unknown fields.

enum Kind {
  Scalar,
  Enum,
  Message,
  ScalarList,
  MessageList,
  /** A well-known type protobuf-es holds as JSON or a primitive: when set, the message goes to toBinary. */
  Special,
}

interface Step {
  readonly name: string;
  /** The oneof's local name, when the field is one of its cases. */
  readonly oneof: string | undefined;
  readonly kind: Kind;
  readonly tag: number;
  readonly scalar: ScalarType;
  /** Written only when not the zero value (proto3 without `optional`). */
  readonly implicit: boolean;
  readonly packed: boolean;
  readonly message: DescMessage | undefined;
}

const SPECIAL = new Set([
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue",
  "google.protobuf.DoubleValue",
  "google.protobuf.FloatValue",
  "google.protobuf.Int64Value",
  "google.protobuf.UInt64Value",
  "google.protobuf.Int32Value",
  "google.protobuf.UInt32Value",
  "google.protobuf.BoolValue",
  "google.protobuf.StringValue",
  "google.protobuf.BytesValue",
]);
/** The scalar types a plan writes; others leave the schema to toBinary. */
const PLANNED = new Set([
  ScalarType.STRING,
  ScalarType.BOOL,
  ScalarType.INT32,
  ScalarType.UINT32,
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.BYTES,
  ScalarType.DOUBLE,
]);
/** protobuf's `syntax = "proto3"` as protobuf-es names the file's edition. */
const EDITION_PROTO3 = 999;
/** google.protobuf.FeatureSet.FieldPresence.IMPLICIT */
const IMPLICIT = 2;

const plans = new WeakMap<DescMessage, Step[] | null>();

function planOf(schema: DescMessage): Step[] | null {
  let plan = plans.get(schema);
  if (plan !== undefined) return plan;
  plan = makePlan(schema);
  plans.set(schema, plan);
  return plan;
}

function makePlan(schema: DescMessage): Step[] | null {
  if ((schema.file.edition as number) !== EDITION_PROTO3 || SPECIAL.has(schema.typeName)) return null;
  const steps: Step[] = [];
  for (const f of [...schema.fields].sort((a, b) => a.number - b.number)) {
    const step = stepOf(f);
    if (!step) return null;
    steps.push(step);
  }
  return steps;
}

function stepOf(f: DescField): Step | undefined {
  const base = { name: f.localName, oneof: f.oneof?.localName, implicit: f.presence === IMPLICIT, message: undefined };
  const wire = (t: ScalarType) =>
    t === ScalarType.STRING || t === ScalarType.BYTES
      ? WireType.LengthDelimited
      : t === ScalarType.DOUBLE
        ? WireType.Bit64
        : WireType.Varint;
  switch (f.fieldKind) {
    case "scalar":
      if (!PLANNED.has(f.scalar)) return undefined;
      return { ...base, kind: Kind.Scalar, tag: (f.number << 3) | wire(f.scalar), scalar: f.scalar, packed: false };
    case "enum":
      return { ...base, kind: Kind.Enum, tag: (f.number << 3) | WireType.Varint, scalar: ScalarType.INT32, packed: false };
    case "message":
      if (f.delimitedEncoding) return undefined;
      return {
        ...base,
        kind: SPECIAL.has(f.message.typeName) ? Kind.Special : Kind.Message,
        tag: (f.number << 3) | WireType.LengthDelimited,
        scalar: ScalarType.INT32,
        packed: false,
        message: f.message,
      };
    case "list":
      if (f.listKind === "message") {
        if (f.delimitedEncoding) return undefined;
        return {
          ...base,
          kind: SPECIAL.has(f.message.typeName) ? Kind.Special : Kind.MessageList,
          tag: (f.number << 3) | WireType.LengthDelimited,
          scalar: ScalarType.INT32,
          packed: false,
          message: f.message,
        };
      }
      {
        const scalar = f.listKind === "enum" ? ScalarType.INT32 : f.scalar;
        if (!PLANNED.has(scalar)) return undefined;
        return {
          ...base,
          kind: Kind.ScalarList,
          tag: (f.number << 3) | (f.packed ? WireType.LengthDelimited : wire(scalar)),
          scalar,
          packed: f.packed,
        };
      }
    default:
      return undefined;
  }
}

const INITIAL_BUFFER = 4_096;
/** A buffer grown past this for one big task is let go after it. */
const MAX_KEPT_BUFFER = 1 << 20;

/** Bytes written into a growing array. */
class Out {
  buf = new Uint8Array(INITIAL_BUFFER);
  n = 0;
  private view: DataView | undefined;

  room(k: number): void {
    if (this.n + k <= this.buf.length) return;
    const next = new Uint8Array(Math.max(this.buf.length * 2, this.n + k));
    next.set(this.buf.subarray(0, this.n));
    this.buf = next;
    this.view = undefined;
  }

  /** An unsigned value below 2^32. */
  varint(v: number): void {
    this.room(5);
    while (v > 0x7f) {
      this.buf[this.n++] = (v & 0x7f) | 0x80;
      v >>>= 7;
    }
    this.buf[this.n++] = v;
  }

  /** Any 64-bit integer, as its two's complement. */
  varint64(v: bigint): void {
    let u = BigInt.asUintN(64, v);
    if (u < 0x1_0000_0000n) return this.varint(Number(u));
    this.room(10);
    while (u > 0x7fn) {
      this.buf[this.n++] = Number(u & 0x7fn) | 0x80;
      u >>= 7n;
    }
    this.buf[this.n++] = Number(u);
  }

  bytes(b: Uint8Array): void {
    this.varint(b.length);
    this.room(b.length);
    this.buf.set(b, this.n);
    this.n += b.length;
  }

  string(s: string): void {
    const len = s.length;
    // Short: the UTF-8 length is below 128, one byte of length kept ahead.
    if (len < 43) {
      this.room(1 + 3 * len);
      const at = this.n++;
      const buf = this.buf;
      let n = this.n;
      for (let i = 0; i < len; i++) {
        const c = s.charCodeAt(i);
        if (c >= 0x80) {
          n = this.n + encoder.encodeInto(s, buf.subarray(this.n)).written;
          break;
        }
        buf[n++] = c;
      }
      buf[at] = n - this.n;
      this.n = n;
      return;
    }
    this.bytes(encoder.encode(s));
  }

  /** Room for a length that follows; `length(at)` writes it. */
  reserve(): number {
    this.room(1);
    return this.n++;
  }

  /** The length of what was written since `reserve()` answered `at`, in front of it. */
  length(at: number): void {
    const len = this.n - at - 1;
    if (len < 0x80) {
      this.buf[at] = len;
      return;
    }
    let k = 1;
    for (let v = len; v > 0x7f; v >>>= 7) k++;
    this.room(k - 1);
    this.buf.copyWithin(at + k, at + 1, this.n);
    this.n += k - 1;
    const end = this.n;
    this.n = at;
    this.varint(len);
    this.n = end;
  }

  double(v: number): void {
    this.room(8);
    this.view ??= new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.byteLength);
    this.view.setFloat64(this.n, v, true);
    this.n += 8;
  }
}

const encoder = new TextEncoder();
/** The one buffer the plans write in (encoding is synchronous). */
const out = new Out();

/** Whether a scalar of a field without `optional` holds its zero value (then it is not written). */
function isZero(scalar: ScalarType, v: unknown): boolean {
  switch (scalar) {
    case ScalarType.STRING:
      return v === "";
    case ScalarType.BOOL:
      return v === false;
    case ScalarType.BYTES:
      return (v as Uint8Array).length === 0;
    case ScalarType.INT64:
    case ScalarType.UINT64:
      // A bigint, or a string or number where the field's JS type says so.
      return v === 0n || v === "0" || v === 0;
    default:
      return v === 0;
  }
}

function writeScalar(out: Out, scalar: ScalarType, v: unknown): void {
  switch (scalar) {
    case ScalarType.STRING:
      return out.string(v as string);
    case ScalarType.BOOL:
      return out.varint(v ? 1 : 0);
    case ScalarType.BYTES:
      return out.bytes(v as Uint8Array);
    case ScalarType.DOUBLE:
      return out.double(v as number);
    case ScalarType.INT64:
    case ScalarType.UINT64:
      return out.varint64(BigInt(v as bigint | string | number));
    default: {
      const n = v as number;
      // A negative int32 is sign-extended to ten bytes, as protobuf writes it.
      if (n >= 0) out.varint(n);
      else out.varint64(BigInt(n));
    }
  }
}

/** Writes the message's fields at the end of `out` by its schema's plan; false, having written nothing, where toBinary must. */
function writePlanned(schema: DescMessage, m: Fields, depth: number): boolean {
  const plan = planOf(schema);
  if (!plan) return false;
  const unknown = m["$unknown"] as unknown[] | undefined;
  if (unknown && unknown.length > 0) return false;
  const start = out.n;
  for (const step of plan) {
    let v: unknown;
    if (step.oneof !== undefined) {
      const o = m[step.oneof] as { case?: string; value?: unknown } | undefined;
      if (o?.case !== step.name) continue;
      v = o.value;
    } else {
      v = m[step.name];
      if (v === undefined) continue;
      if (step.implicit) {
        if (step.kind === Kind.Scalar ? isZero(step.scalar, v) : step.kind === Kind.Enum && v === 0) continue;
      } else if (!Object.hasOwn(m, step.name)) {
        continue;
      }
    }
    switch (step.kind) {
      case Kind.Scalar:
      case Kind.Enum:
        out.varint(step.tag);
        writeScalar(out, step.scalar, v);
        break;
      case Kind.Message:
        out.varint(step.tag);
        writeSub(step.message!, v as Fields, depth);
        break;
      case Kind.MessageList:
        for (const x of v as Fields[]) {
          out.varint(step.tag);
          writeSub(step.message!, x, depth);
        }
        break;
      case Kind.ScalarList: {
        const list = v as unknown[];
        if (list.length === 0) break;
        if (step.packed) {
          out.varint(step.tag);
          const at = out.reserve();
          for (const x of list) writeScalar(out, step.scalar, x);
          out.length(at);
        } else {
          for (const x of list) {
            out.varint(step.tag);
            writeScalar(out, step.scalar, x);
          }
        }
        break;
      }
      case Kind.Special:
        if (Array.isArray(v) && v.length === 0) break;
        out.n = start;
        return false;
    }
  }
  return true;
}

/** A message field's bytes, behind their length: kept by identity down to DEPTH levels, written whole below. */
function writeSub(schema: DescMessage, m: Fields, depth: number): void {
  if (depth > 0) {
    const hit = encoded.get(m);
    if (hit) return out.bytes(hit);
  }
  const at = out.reserve();
  if (writePlanned(schema, m, depth > 0 ? depth - 1 : 0)) {
    if (depth > 0) encoded.set(m, out.buf.slice(at + 1, out.n));
    return out.length(at);
  }
  out.n = at;
  out.bytes(depth > 0 ? encodeReusing(schema, m as unknown as Message, depth - 1) : toBinary(schema, m as never));
}

// --- taking a message apart where the plan cannot ---------------------------------

function split(schema: DescMessage, message: Fields, depth: number): Uint8Array {
  let rest: Fields | undefined;
  const parts: [number, Uint8Array][] = [];
  for (const f of schema.fields) {
    // Well-known types stay in place: protobuf-es holds a Struct as JSON and a wrapper as its value,
    // not as messages; so do groups (delimited, not length-prefixed).
    if (f.fieldKind === "message" && !f.delimitedEncoding && !f.message.typeName.startsWith("google.protobuf.")) {
      if (f.oneof) {
        const o = message[f.oneof.localName] as { case?: string; value?: Message } | undefined;
        if (o?.case !== f.localName || !o.value) continue;
        rest ??= { ...message };
        rest[f.oneof.localName] = { case: undefined };
        parts.push([f.number, encodeReusing(f.message, o.value, depth - 1)]);
      } else {
        const v = message[f.localName] as Message | undefined;
        if (v === undefined) continue;
        rest ??= { ...message };
        rest[f.localName] = undefined;
        parts.push([f.number, encodeReusing(f.message, v, depth - 1)]);
      }
    } else if (
      f.fieldKind === "list" &&
      f.listKind === "message" &&
      !f.delimitedEncoding &&
      !f.message.typeName.startsWith("google.protobuf.")
    ) {
      const list = message[f.localName] as Message[] | undefined;
      if (!list?.length) continue;
      rest ??= { ...message };
      rest[f.localName] = [];
      for (const v of list) parts.push([f.number, encodeReusing(f.message, v, depth - 1)]);
    }
  }
  if (!rest) return toBinary(schema, message as never);
  const w = new BinaryWriter();
  w.raw(toBinary(schema, rest as never));
  for (const [no, bytes] of parts) w.tag(no, WireType.LengthDelimited).bytes(bytes);
  return w.finish();
}
