/**
 * ProtoJSON without per-value reflection: for each message type, a decoder and
 * an encoder are worked out once from its descriptor (which field a key names,
 * how each field reads and writes) and then run as plain property access.
 *
 * They give exactly what protobuf-es `fromJson` (with `ignoreUnknownFields`)
 * and `toJson` (default options) give, by construction: they handle the
 * common shapes themselves and, the moment anything is unusual (a null, a
 * number given as a string, an unknown enum name, a key given by its proto
 * name, a type mismatch, a value out of range...), give up on the whole value
 * and let protobuf-es do it, so that errors, messages and edge cases are
 * protobuf-es's own. Well-known types with a special JSON form (Timestamp
 * aside, which is on every A2A task) are handed to protobuf-es per field.
 */
import {
  create,
  fromJson,
  toJson,
  ScalarType,
  type DescEnum,
  type DescField,
  type DescMessage,
  type JsonValue,
  type Message,
} from "@bufbuild/protobuf";
import { base64Decode, base64Encode } from "@bufbuild/protobuf/wire";

/** Thrown inside the fast path to fall back to protobuf-es for the whole value. */
const GIVE_UP: unique symbol = Symbol("give up");

type Obj = Record<string, unknown>;
type Decode = (json: unknown, depth: number) => unknown;
type Encode = (value: unknown) => unknown;

interface Codec {
  /** Decodes a JSON object (anything else gives up). */
  readonly decode: Decode;
  /** Encodes a message of this type. */
  readonly encode: Encode;
}

const EXPLICIT = 1;
const LEGACY_REQUIRED = 3;
/** Below protobuf-es's recursion limit (100), so that its error is the one that shows. */
const MAX_DEPTH = 64;
const READ = { ignoreUnknownFields: true } as const;

const giveUp = (): never => {
  throw GIVE_UP;
};

const codecs = new WeakMap<DescMessage, Codec | null>();

/** The wrapper types, which protobuf-es holds unboxed in a singular field. */
const wrappers = new Set([
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

/** WKTs whose JSON is not an object of their fields; Timestamp is handled here. */
const special = new Set([
  "google.protobuf.Any",
  "google.protobuf.Duration",
  "google.protobuf.FieldMask",
  "google.protobuf.Struct",
  "google.protobuf.Value",
  "google.protobuf.ListValue",
  ...wrappers,
]);

/**
 * `fromJson(desc, json, { ignoreUnknownFields: true })`, faster. Throws what
 * protobuf-es throws.
 */
export function fastFromJson(desc: DescMessage, json: JsonValue): Message {
  return compiledFromJson(desc, json) ?? fromJson(desc, json, READ);
}

/** `toJson(desc, message)`, faster. Throws what protobuf-es throws. */
export function fastToJson(desc: DescMessage, message: Message): JsonValue {
  const json = compiledToJson(desc, message);
  return json !== undefined ? json : toJson(desc, message);
}

/** The compiled decoder alone: the message, or undefined where it leaves the value to protobuf-es. */
export function compiledFromJson(desc: DescMessage, json: JsonValue): Message | undefined {
  const c = codecOf(desc);
  if (c === undefined) return undefined;
  try {
    return c.decode(json, 1) as Message;
  } catch (e) {
    if (e !== GIVE_UP) throw e;
    return undefined;
  }
}

/** The compiled encoder alone: the JSON, or undefined where it leaves the message to protobuf-es. */
export function compiledToJson(desc: DescMessage, message: Message): JsonValue | undefined {
  const c = codecOf(desc);
  if (c === undefined || message.$typeName !== desc.typeName) return undefined;
  try {
    return c.encode(message) as JsonValue;
  } catch (e) {
    if (e !== GIVE_UP) throw e;
    return undefined;
  }
}

function codecOf(desc: DescMessage): Codec | undefined {
  let c = codecs.get(desc);
  if (c === undefined) {
    // Set before compiling, so that recursive types find their own entry.
    const holder: { current?: Codec } = {};
    const lazy: Codec = {
      decode: (json, depth) => holder.current!.decode(json, depth),
      encode: (value) => holder.current!.encode(value),
    };
    codecs.set(desc, lazy);
    const built = compile(desc);
    codecs.set(desc, built ?? null);
    if (built) holder.current = built;
    c = built ?? null;
  }
  return c ?? undefined;
}

function compile(desc: DescMessage): Codec | null {
  if (desc.typeName === "google.protobuf.Timestamp") return timestampCodec(desc);
  if (special.has(desc.typeName)) return null;
  if (desc.fields.some((f) => f.presence === LEGACY_REQUIRED)) return null;

  interface In {
    readonly localName: string;
    readonly oneof: string | undefined;
    readonly read: Decode;
    readonly kind: DescField["fieldKind"];
  }
  // Keys by JSON name only: a proto name (where it differs) gives up, so that
  // one field can never be set twice here.
  const byKey = new Map<string, In>();
  const outs: { readonly jsonName: string; readonly write: (msg: Obj) => unknown }[] = [];
  for (const f of [...desc.fields].sort((a, b) => a.number - b.number)) {
    const value = valueCodec(f);
    byKey.set(f.jsonName, {
      localName: f.localName,
      oneof: f.oneof?.localName,
      read: value.read,
      kind: f.fieldKind,
    });
    if (f.name !== f.jsonName) byKey.set(f.name, { localName: "", oneof: undefined, read: giveUp, kind: f.fieldKind });
    outs.push({ jsonName: f.jsonName, write: writer(f, value.write) });
  }

  const make = zeroMessage(desc);
  const decode: Decode = (json, depth) => {
    if (json === null || typeof json !== "object" || Array.isArray(json) || depth > MAX_DEPTH) giveUp();
    const msg = make();
    for (const key of Object.keys(json as Obj)) {
      const f = byKey.get(key);
      if (f === undefined) continue;
      const v = (json as Obj)[key];
      if (v === null) giveUp();
      if (f.localName === "") giveUp();
      if (f.oneof !== undefined) {
        if ((msg[f.oneof] as { case: unknown }).case !== undefined) giveUp();
        msg[f.oneof] = { case: f.localName, value: f.read(v, depth + 1) };
      } else if (f.kind === "list") {
        if (!Array.isArray(v)) giveUp();
        const list = msg[f.localName] as unknown[];
        for (const item of v as unknown[]) list.push(f.read(item, depth + 1));
      } else if (f.kind === "map") {
        if (typeof v !== "object" || Array.isArray(v)) giveUp();
        const map = msg[f.localName] as Obj;
        for (const k of Object.keys(v as Obj)) {
          if (k === "__proto__") giveUp();
          map[k] = f.read((v as Obj)[k], depth + 1);
        }
      } else {
        msg[f.localName] = f.read(v, depth + 1);
      }
    }
    return msg;
  };

  const encode: Encode = (value) => {
    const msg = value as Obj;
    const json: Obj = {};
    for (const o of outs) {
      const v = o.write(msg);
      if (v !== undefined) json[o.jsonName] = v;
    }
    return json;
  };
  return { decode, encode };
}

/**
 * What `create(desc)` gives, made without walking the descriptor each time:
 * a copy of one zero message with fresh lists, maps and oneofs. Messages that
 * keep defaults on a prototype (proto2, editions) still go through create().
 */
function zeroMessage(desc: DescMessage): () => Obj {
  const template = create(desc) as unknown as Obj;
  if (Object.getPrototypeOf(template) !== Object.prototype) return () => create(desc) as unknown as Obj;
  const keys = Object.keys(template);
  const kinds = keys.map((k) => {
    const v = template[k];
    if (Array.isArray(v)) return 1;
    if (v instanceof Uint8Array) return 4;
    if (v !== null && typeof v === "object") return "case" in v ? 2 : 3;
    return 0;
  });
  return () => {
    const msg: Obj = {};
    for (let i = 0; i < keys.length; i++) {
      const k = keys[i]!;
      const kind = kinds[i];
      msg[k] = kind === 0 ? template[k] : kind === 1 ? [] : kind === 2 ? { case: undefined } : kind === 4 ? new Uint8Array(0) : {};
    }
    return msg;
  };
}

/** How one field's (or one element's) value reads and writes. */
function valueCodec(f: DescField): { read: Decode; write: Encode } {
  switch (f.fieldKind) {
    case "scalar":
      return scalarCodec(f.scalar);
    case "enum":
      return enumCodec(f.enum);
    case "message":
      // A wrapper in a singular field is its bare value: leave it to protobuf-es.
      if (wrappers.has(f.message.typeName) && f.oneof === undefined) return { read: giveUp, write: giveUp };
      return messageCodec(f.message);
    case "list":
      return f.listKind === "scalar"
        ? scalarCodec(f.scalar)
        : f.listKind === "enum"
          ? enumCodec(f.enum)
          : messageCodec(f.message);
    case "map":
      // Keys other than strings have their own JSON rules: leave them to protobuf-es.
      if (f.mapKey !== ScalarType.STRING) return { read: giveUp, write: giveUp };
      return f.mapKind === "scalar" ? scalarCodec(f.scalar) : f.mapKind === "enum" ? enumCodec(f.enum) : messageCodec(f.message);
  }
}

/** Reads the field off a message and gives its JSON, or undefined when protobuf-es would leave it out. */
function writer(f: DescField, write: Encode): (msg: Obj) => unknown {
  const name = f.localName;
  if (f.oneof !== undefined) {
    const oneof = f.oneof.localName;
    return (msg) => {
      const o = msg[oneof] as { case: unknown; value: unknown } | undefined;
      if (o === undefined) giveUp();
      return o!.case === name ? write(o!.value) : undefined;
    };
  }
  switch (f.fieldKind) {
    case "list":
      return (msg) => {
        const list = msg[name];
        if (!Array.isArray(list)) giveUp();
        if ((list as unknown[]).length === 0) return undefined;
        return (list as unknown[]).map(write);
      };
    case "map":
      return (msg) => {
        const map = msg[name];
        if (map === null || typeof map !== "object") giveUp();
        let out: Obj | undefined;
        for (const k of Object.keys(map as Obj)) {
          if (k === "__proto__") giveUp();
          (out ??= {})[k] = write((map as Obj)[k]);
        }
        return out;
      };
    case "message":
      return (msg) => {
        const v = msg[name];
        return v === undefined ? undefined : write(v);
      };
    default: {
      if (f.presence === EXPLICIT) {
        return (msg) => (Object.prototype.hasOwnProperty.call(msg, name) && msg[name] !== undefined ? write(msg[name]) : undefined);
      }
      const isZero = f.fieldKind === "enum" ? (v: unknown) => v === 0 : zeroTest(f.scalar);
      return (msg) => {
        const v = msg[name];
        return isZero(v) ? undefined : write(v);
      };
    }
  }
}

/** Whether a value is the zero value that implicit presence leaves out (-0 is 0 too). */
function zeroTest(t: ScalarType): (v: unknown) => boolean {
  switch (t) {
    case ScalarType.STRING:
      return (v) => v === "";
    case ScalarType.BOOL:
      return (v) => v === false;
    case ScalarType.BYTES:
      return (v) => v instanceof Uint8Array && v.length === 0;
    case ScalarType.INT64:
    case ScalarType.UINT64:
    case ScalarType.SINT64:
    case ScalarType.FIXED64:
    case ScalarType.SFIXED64:
      return (v) => v === 0n;
    default:
      return (v) => v === 0;
  }
}

function scalarCodec(t: ScalarType): { read: Decode; write: Encode } {
  switch (t) {
    case ScalarType.STRING:
      return {
        read: (v) => (typeof v === "string" && wellFormed(v) ? v : giveUp()),
        write: (v) => (typeof v === "string" ? v : giveUp()),
      };
    case ScalarType.BOOL:
      return { read: (v) => (typeof v === "boolean" ? v : giveUp()), write: (v) => (typeof v === "boolean" ? v : giveUp()) };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { read: intIn(-0x80000000, 0x7fffffff), write: number };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { read: intIn(0, 0xffffffff), write: number };
    case ScalarType.DOUBLE:
      return {
        read: (v) => (typeof v === "number" ? v : giveUp()),
        write: (v) => (typeof v !== "number" ? giveUp() : Number.isFinite(v) ? v : giveUp()),
      };
    case ScalarType.BYTES:
      return {
        read: (v) => {
          if (typeof v !== "string") giveUp();
          if (v === "") return new Uint8Array(0);
          try {
            return base64Decode(v as string);
          } catch {
            return giveUp();
          }
        },
        write: (v) => (v instanceof Uint8Array ? base64Encode(v) : giveUp()),
      };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      // Reading: decimal strings and numbers both, with range rules and
      // jstype: leave them to protobuf-es. Writing is its toString.
      return { read: giveUp, write: (v) => (typeof v === "bigint" ? v.toString() : giveUp()) };
    default:
      // float: 32-bit range checks on both sides.
      return { read: giveUp, write: giveUp };
  }
}

/** Lone surrogates are protobuf-es's to refuse; where the check is missing, every string goes to it. */
const wellFormed: (s: string) => boolean =
  typeof (String.prototype as { isWellFormed?: unknown }).isWellFormed === "function"
    ? (s) => (s as unknown as { isWellFormed(): boolean }).isWellFormed()
    : () => false;

const number: Encode = (v) => (typeof v === "number" ? v : giveUp());

function intIn(min: number, max: number): Decode {
  return (v) => (typeof v === "number" && Number.isInteger(v) && v >= min && v <= max ? v : giveUp());
}

function enumCodec(e: DescEnum): { read: Decode; write: Encode } {
  if (e.typeName === "google.protobuf.NullValue") return { read: giveUp, write: giveUp };
  const byName = new Map(e.values.map((v) => [v.name, v.number]));
  const names = new Map(e.values.map((v) => [v.number, v.name]));
  return {
    // Numbers and unknown names (ignored with ignoreUnknownFields) go to protobuf-es.
    read: (v) => (typeof v === "string" ? (byName.get(v) ?? giveUp()) : giveUp()),
    write: (v) => (typeof v === "number" ? (names.get(v) ?? v) : giveUp()),
  };
}

function messageCodec(m: DescMessage): { read: Decode; write: Encode } {
  // In a field (outside google.protobuf.Value, which is never compiled here)
  // protobuf-es holds a Struct as its JsonObject.
  if (m.typeName === "google.protobuf.Struct") return structCodec;
  const c = codecOf(m);
  if (c !== undefined) {
    return {
      read: c.decode,
      write: (v) => ((v as Message | null)?.$typeName === m.typeName ? c.encode(v) : giveUp()),
    };
  }
  // A special WKT: protobuf-es converts that one value.
  return {
    read: (v) => {
      try {
        return fromJson(m, v as JsonValue, READ);
      } catch {
        return giveUp();
      }
    },
    write: (v) => {
      if ((v as Message | null)?.$typeName !== m.typeName) giveUp();
      try {
        return toJson(m, v as Message);
      } catch {
        return giveUp();
      }
    },
  };
}

/** A Struct field's JsonObject: its JSON is itself, checked the way protobuf-es checks it and copied. */
const structCodec: { read: Decode; write: Encode } = {
  read: (v, depth) => (v !== null && typeof v === "object" && !Array.isArray(v) ? copyJson(v, depth, true) : giveUp()),
  write: (v) => (v !== null && typeof v === "object" && !Array.isArray(v) ? copyJson(v, 0, false) : giveUp()),
};

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

const MIN_SECONDS = Date.parse("0001-01-01T00:00:00Z") / 1000;
const MAX_SECONDS = Date.parse("9999-12-31T23:59:59Z") / 1000;

/** Timestamp as RFC 3339: written with 0, 3, 6 or 9 fractional digits, read with 0 to 9 and an offset, as protobuf-es does. */
const pad2 = (n: number) => (n < 10 ? "0" + n : String(n));

/**
 * `new Date(seconds * 1000).toISOString()` up to the seconds, for years 1 to
 * 9999, without a Date (which costs more than the rest of a Task's JSON):
 * days to a civil date by the proleptic Gregorian calendar's 400-year cycle.
 */
function utc(seconds: number): string {
  const days = Math.floor(seconds / 86400);
  const rest = seconds - days * 86400;
  // Shift the epoch to 0000-03-01, so that leap days end a year.
  const z = days + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  const year = yoe + era * 400 + (month <= 2 ? 1 : 0);
  const h = Math.floor(rest / 3600);
  const m = Math.floor((rest - h * 3600) / 60);
  const sec = rest - h * 3600 - m * 60;
  return `${String(year).padStart(4, "0")}-${pad2(month)}-${pad2(day)}T${pad2(h)}:${pad2(m)}:${pad2(sec)}`;
}

const rfc3339 = /^([0-9]{4}-[0-9]{2}-[0-9]{2})T([0-9]{2}:[0-9]{2}:[0-9]{2})(?:\.([0-9]{1,9}))?(?:Z|([+-][0-9]{2}:[0-9]{2}))$/;

function timestampCodec(desc: DescMessage): Codec {
  const make = zeroMessage(desc);
  return {
    decode: (json) => {
      if (typeof json !== "string") giveUp();
      const m = rfc3339.exec(json as string);
      if (m === null) giveUp();
      // The same reading as protobuf-es: the date and time (with its offset) to
      // Date.parse, the fraction to nanos.
      const ms = Date.parse(`${m![1]}T${m![2]}${m![4] ?? "Z"}`);
      if (Number.isNaN(ms) || ms < MIN_SECONDS * 1000 || ms > MAX_SECONDS * 1000) giveUp();
      const frac = m![3];
      const ts = make();
      ts["seconds"] = BigInt(ms / 1000);
      ts["nanos"] = frac === undefined ? 0 : Number(frac.padEnd(9, "0"));
      return ts;
    },
    encode: (value) => {
      const { seconds, nanos } = value as { seconds: unknown; nanos: unknown };
      if (typeof seconds !== "bigint" || typeof nanos !== "number" || !Number.isInteger(nanos)) giveUp();
      const s = Number(seconds);
      if (s < MIN_SECONDS || s > MAX_SECONDS || (nanos as number) < 0 || (nanos as number) > 999_999_999) giveUp();
      let frac = "";
      if ((nanos as number) > 0) {
        const digits = String((nanos as number) + 1_000_000_000).slice(1);
        frac = digits.endsWith("000000") ? "." + digits.slice(0, 3) : digits.endsWith("000") ? "." + digits.slice(0, 6) : "." + digits;
      }
      return utc(s) + frac + "Z";
    },
  };
}
