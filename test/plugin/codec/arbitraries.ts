// Random messages for property tests of ProtoJSON (generated-json.test.ts,
// lean-client/agreement.test.ts): arbitrary init shapes of any message type
// (well-known types included, reached through their fields), random damage
// to their JSON (wrong types, nulls, proto names, numbers as strings, unknown
// enum names, bad timestamps, `__proto__` keys), and init shapes made partial.
import fc from "fast-check";
import { create, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";

export const is64 = (t: ScalarType) =>
  t === ScalarType.INT64 || t === ScalarType.SINT64 || t === ScalarType.SFIXED64 || t === ScalarType.UINT64 || t === ScalarType.FIXED64;

export function scalar(t: ScalarType): fc.Arbitrary<unknown> {
  switch (t) {
    case ScalarType.STRING:
      return fc.oneof(fc.string({ unit: "grapheme", maxLength: 6 }), fc.string({ unit: "binary", maxLength: 3 }), fc.constant(""));
    case ScalarType.BOOL:
      return fc.boolean();
    case ScalarType.BYTES:
      return fc.uint8Array({ maxLength: 6 });
    case ScalarType.DOUBLE:
      return fc.double();
    case ScalarType.FLOAT:
      return fc.float();
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 2 ** 32 - 1 }));
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return fc.oneof(fc.constant(0n), fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }));
    default:
      return is64(t)
        ? fc.oneof(fc.constant(0n), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }))
        : fc.oneof(fc.constant(0), fc.integer());
  }
}

/** An arbitrary init shape of `desc`, `depth` levels of messages at most. */
export function message(desc: DescMessage, depth: number): fc.Arbitrary<Message> {
  if (desc.typeName === "google.protobuf.Timestamp") {
    return fc
      .record({
        seconds: fc.oneof(fc.bigInt({ min: -62135596800n, max: 253402300799n }), fc.bigInt({ min: -(2n ** 40n), max: 2n ** 40n })),
        nanos: fc.oneof(
          fc.constant(0),
          fc.integer({ min: 0, max: 999 }).map((n) => n * 1_000_000),
          fc.integer({ min: 0, max: 999_999_999 }),
          fc.integer(),
        ),
      })
      .map((t) => create(desc, t as never));
  }
  const parts: Record<string, fc.Arbitrary<unknown>> = {};
  for (const f of desc.fields) {
    if (f.oneof) continue;
    const v = fieldValue(f, depth);
    if (v) parts[f.localName] = v;
  }
  for (const o of desc.oneofs) {
    const cases = o.fields.map((f) => ({ f, v: single(f, depth) })).filter((c) => c.v !== undefined);
    parts[o.localName] = fc.oneof(
      fc.constant({ case: undefined }),
      ...cases.map(({ f, v }) => v!.map((value) => ({ case: f.localName, value }))),
    );
  }
  return fc.record(parts, { requiredKeys: [] }).map((init) => create(desc, init as never));
}

/** A Struct in a field is held as its JsonObject; now and then with what JSON cannot carry. */
const jsonObject = fc.dictionary(
  fc.oneof(fc.string({ maxLength: 3 }), fc.constant("__proto__")),
  fc.oneof(
    { weight: 9, arbitrary: fc.jsonValue({ maxDepth: 2 }) },
    { weight: 1, arbitrary: fc.constantFrom(Number.NaN, undefined, Infinity) },
  ),
  { maxKeys: 3 },
);

const wrappers = /^google\.protobuf\.(Double|Float|Int64|UInt64|Int32|UInt32|Bool|String|Bytes)Value$/;

function messageItem(m: DescMessage, depth: number): fc.Arbitrary<unknown> | undefined {
  if (m.typeName === "google.protobuf.Struct") return jsonObject;
  return depth <= 0 ? undefined : message(m, depth - 1);
}

function single(f: DescField, depth: number): fc.Arbitrary<unknown> | undefined {
  if (f.fieldKind === "message") {
    // A wrapper in a singular field outside a oneof is held as its bare value.
    if (wrappers.test(f.message.typeName) && !f.oneof) return scalar(f.message.fields[0]!.scalar!);
    return messageItem(f.message, depth);
  }
  if (f.fieldKind === "enum") return fc.oneof(fc.constantFrom(...f.enum.values.map((v) => v.number)), fc.integer({ min: -5, max: 50 }));
  if (f.fieldKind === "scalar") return scalar(f.scalar);
  return undefined;
}

function fieldValue(f: DescField, depth: number): fc.Arbitrary<unknown> | undefined {
  switch (f.fieldKind) {
    case "list": {
      const item =
        f.listKind === "message"
          ? messageItem(f.message, depth)
          : f.listKind === "enum"
            ? fc.constantFrom(...f.enum.values.map((v) => v.number))
            : scalar(f.scalar);
      return item && fc.array(item, { maxLength: 3 });
    }
    case "map": {
      const value =
        f.mapKind === "message"
          ? messageItem(f.message, depth)
          : f.mapKind === "enum"
            ? fc.constantFrom(...f.enum.values.map((v) => v.number))
            : scalar(f.scalar);
      const key =
        f.mapKey === ScalarType.STRING
          ? fc.oneof(fc.string({ maxLength: 4 }), fc.constant("__proto__"))
          : f.mapKey === ScalarType.BOOL
            ? fc.constantFrom("true", "false")
            : fc.integer({ min: -3, max: 300 }).map(String);
      return value && fc.dictionary(key, value, { maxKeys: 3 });
    }
    default:
      return single(f, depth);
  }
}

/** Runs `fn`; the result, or the thrown error's message. */
export function outcome<T>(fn: () => T): { ok: T } | { error: string } {
  try {
    return { ok: fn() };
  } catch (e) {
    return { error: e instanceof Error ? e.message : String(e) };
  }
}

/** Damages `json` in place at random spots, driven by `rnd`. */
export function damage(json: unknown, rnd: () => number, desc: DescMessage): unknown {
  const junk: unknown[] = [
    null,
    "",
    "x",
    1,
    -1,
    1.5,
    "1",
    "-7",
    true,
    [],
    {},
    [null],
    "TASK_STATE_NOPE",
    "2026-13-01T00:00:00Z",
    2 ** 40,
    "__proto__",
  ];
  const pick = () => junk[Math.floor(rnd() * junk.length)];
  const walk = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map((x) => (rnd() < 0.1 ? pick() : walk(x)));
    if (v === null || typeof v !== "object") return v;
    const out: Record<string, unknown> = {};
    for (const [k, x] of Object.entries(v)) {
      const r = rnd();
      if (r < 0.1) out[k] = pick();
      else if (r < 0.15) (out[k] = walk(x)), (out[snake(k)] = walk(x));
      else if (r < 0.2) out[snake(k)] = walk(x);
      else out[k] = walk(x);
    }
    if (rnd() < 0.1)
      Object.defineProperty(out, "__proto__", { value: { polluted: 1 }, enumerable: true, configurable: true, writable: true });
    if (rnd() < 0.1) {
      const f = desc.fields[Math.floor(rnd() * desc.fields.length)];
      if (f) out[f.jsonName] = pick();
    }
    return out;
  };
  return walk(json);
}

/**
 * `msg` as an init shape: `$typeName` dropped at every level (below the
 * top, a message is left whole at random, with probability 1/4), and with
 * probability `damage` per key, the key left out or set to null or undefined.
 */
export function initShape(msg: unknown, rnd: () => number, damage: number): unknown {
  const walk = (v: unknown, top: boolean): unknown => {
    if (v === null || typeof v !== "object" || v instanceof Uint8Array) return v;
    if (Array.isArray(v)) return v.map((x) => walk(x, false));
    if (!top && "$typeName" in v && rnd() < 0.25) return v;
    const out: Record<string, unknown> = {};
    for (const k of Object.keys(v)) {
      const x = (v as Record<string, unknown>)[k];
      if (k === "$typeName") continue;
      const r = rnd();
      if (r < damage / 3) continue;
      out[k] = r < (damage * 2) / 3 ? null : r < damage ? undefined : walk(x, false);
    }
    return out;
  };
  return walk(msg, true);
}

export const snake = (k: string) => k.replace(/[A-Z]/g, (c) => "_" + c.toLowerCase());
