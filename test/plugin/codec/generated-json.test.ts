// Property: the JSON codecs that the plugin generates (gen/*_http_json.ts),
// with protobuf-es for what they leave to it, give exactly what protobuf-es
// gives: the same JSON text from toJson (key order included), the same
// message from fromJson (ignoreUnknownFields), and the same error message
// when either throws. Random messages of every message of a2a.proto and the
// test protos (well-known types included, reached through their fields), then
// random damage to their JSON (wrong types, nulls, proto names, numbers as
// strings, unknown enum names, bad timestamps, `__proto__` keys).
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { create, fromJson, toJson, type DescFile, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import { checkRequired, decodeRequest, encodeResponse } from "../../../packages/runtime/src/transcoding/index.js";
import { fillRequiredDefaults, requiredViolations } from "../../../packages/runtime/src/transcoding/required.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { a2a } from "../../runtime/transcoding/helpers.js";
import { readLenient, writeMessage, writeResult } from "../../../packages/runtime/src/transcoding/message-json.js";
import { readTimestamp, writeTimestamp, type MessageJsonCodec } from "../../../packages/runtime/src/codegen/index.js";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import * as a2aJson from "../../../gen/a2a_http_json.js";
import * as a2aV03Json from "../../../gen/a2a-v0_3_http_json.js";
import * as edgeJson from "../../../gen/acme/edge/v1/edge_http_json.js";
import * as libraryJson from "../../../gen/acme/library/v1/library_http_json.js";
import { file_a2a, type SendMessageRequest } from "../../../gen/a2a_pb.js";
import { file_a2a_v0_3 } from "../../../gen/a2a-v0_3_pb.js";
import { file_acme_edge_v1_edge } from "../../../gen/acme/edge/v1/edge_pb.js";
import { file_acme_library_v1_library } from "../../../gen/acme/library/v1/library_pb.js";
import { damage, initShape, message, outcome } from "./arbitraries.js";

function messagesOf(file: DescFile): DescMessage[] {
  const out: DescMessage[] = [];
  const visit = (m: DescMessage) => {
    out.push(m);
    m.nestedMessages.forEach(visit);
  };
  file.messages.forEach(visit);
  return out.filter((m) => !m.proto.options?.mapEntry);
}

const files = [file_a2a, file_a2a_v0_3, file_acme_edge_v1_edge, file_acme_library_v1_library];
const all = files.flatMap(messagesOf);
/** The generated codecs, by message type name. */
const codecs = new Map<string, MessageJsonCodec>();
for (const mod of [a2aJson, a2aV03Json, edgeJson, libraryJson]) {
  for (const c of Object.values(mod) as MessageJsonCodec[]) codecs.set(c.typeName, c);
}
const codecOf = (desc: DescMessage) => codecs.get(desc.typeName);
/** What the runtime does with a message's JSON: the generated codec, then protobuf-es. */
const fastFromJson = (desc: DescMessage, json: JsonValue) => readLenient(desc, codecOf(desc), json);
const fastToJson = (desc: DescMessage, msg: Message) => writeMessage(desc, codecOf(desc), msg);
const compiledFromJson = (desc: DescMessage, json: JsonValue) => codecOf(desc)!.read(json);
const compiledToJson = (desc: DescMessage, msg: Message, required?: boolean) => codecOf(desc)!.write(msg as never, required);
const runs = Number(process.env.FAST_JSON_RUNS ?? 25);

describe("generated JSON codecs agree with protobuf-es", () => {
  it(`cover all ${all.length} messages of the test files`, () => {
    expect(all.length).toBeGreaterThan(100);
    expect(all.filter((d) => codecOf(d) === undefined).map((d) => d.typeName)).toEqual([]);
  });
  it("read({}) makes what create() makes (requests without a body start from it)", () => {
    for (const desc of all) {
      const zero = codecOf(desc)!.read({});
      expect(zero, desc.typeName).toStrictEqual(create(desc));
      expect(Object.getPrototypeOf(zero)).toBe(Object.getPrototypeOf(create(desc)));
    }
  });
  for (const desc of all) {
    it(desc.typeName, () => {
      fc.assert(
        fc.property(message(desc, 3), fc.integer(), (msg, seed) => {
          // Encoding: same JSON text, or the same error.
          const want = outcome(() => JSON.stringify(toJson(desc, msg)));
          const got = outcome(() => JSON.stringify(fastToJson(desc, msg)));
          expect(got).toEqual(want);
          // With REQUIRED defaults (the A2A profile's answers): what fillRequiredDefaults adds to toJson, in its order.
          const wantRequired = outcome(() => {
            const j = toJson(desc, msg);
            fillRequiredDefaults(desc, msg, j);
            return JSON.stringify(j);
          });
          expect(outcome(() => JSON.stringify(writeMessage(desc, codecOf(desc), msg, true)))).toEqual(wantRequired);
          if (!("ok" in want)) return;
          const json = JSON.parse(want.ok) as JsonValue;
          // Decoding the valid JSON: the same message.
          const a = fromJson(desc, json, { ignoreUnknownFields: true });
          const b = fastFromJson(desc, json);
          // toStrictEqual, not equals(): NaN is NaN here, and unset properties count.
          expect(b).toStrictEqual(a);
          expect(Object.getPrototypeOf(b)).toBe(Object.getPrototypeOf(a));
          // Decoding damaged JSON: the same message, or the same error.
          let s = seed >>> 0;
          const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
          const bad = damage(json, rnd, desc) as JsonValue;
          const ra = outcome(() => fromJson(desc, bad, { ignoreUnknownFields: true }));
          const rb = outcome(() => fastFromJson(desc, bad));
          if ("ok" in ra && "ok" in rb) {
            expect(rb.ok).toStrictEqual(ra.ok);
            expect(Object.getPrototypeOf(rb.ok)).toBe(Object.getPrototypeOf(ra.ok));
          } else expect(rb).toEqual(ra);
        }),
        { numRuns: runs },
      );
    });
  }
  for (const desc of all) {
    it(`${desc.typeName}: an init shape is written as create() would make it`, () => {
      fc.assert(
        fc.property(message(desc, 3), fc.integer(), fc.boolean(), (msg, seed, required) => {
          let s = seed >>> 0;
          const rnd = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
          const init = initShape(msg, rnd, seed % 3 === 0 ? 0 : 0.1);
          const want = outcome(() => {
            const m = create(desc, init as never);
            const j = toJson(desc, m);
            if (required) fillRequiredDefaults(desc, m, j);
            return JSON.stringify(j);
          });
          expect(outcome(() => JSON.stringify(writeResult(desc, codecOf(desc), init, required)))).toEqual(want);
          // The codec alone: the same, or left to create() (undefined).
          const direct = outcome(() => codecOf(desc)!.write(init as never, required));
          if ("ok" in direct && direct.ok !== undefined) expect({ ok: JSON.stringify(direct.ok) }).toEqual(want);
        }),
        { numRuns: runs },
      );
    });
  }
  it("a handler's usual init shapes are written without create()", () => {
    const taskDesc = all.find((m) => m.typeName === "lf.a2a.v1.Task")!;
    const task = fromJson(taskDesc, {
      id: "t1",
      status: { state: "TASK_STATE_WORKING", timestamp: "2026-01-02T03:04:05.123Z" },
      history: [{ messageId: "m", parts: [{ text: "hi" }] }],
    });
    const send = all.find((m) => m.typeName === "lf.a2a.v1.SendMessageResponse")!;
    const init = { payload: { case: "task", value: task } };
    expect(codecOf(send)!.write(init as never, true)).toEqual({ task: codecOf(taskDesc)!.write(task as never, true) });
    // All of a Task given, nothing as a message: written too.
    const plain = initShape(task, () => 1, 0) as Record<string, unknown>;
    expect(plain["$typeName"]).toBeUndefined();
    expect(JSON.stringify(codecOf(taskDesc)!.write(plain as never))).toBe(JSON.stringify(toJson(taskDesc, task)));
    // A field left out is create()'s to fill: the codec gives up.
    expect(codecOf(taskDesc)!.write({ ...plain, contextId: undefined } as never)).toBeUndefined();
    expect(codecOf(taskDesc)!.write([] as never)).toBeUndefined();
  });
  it("A2A's usual messages take the generated path, not protobuf-es", () => {
    const task = {
      id: "t1",
      contextId: "c1",
      status: {
        state: "TASK_STATE_WORKING",
        timestamp: "2026-01-02T03:04:05.123Z",
        message: { messageId: "m", role: "ROLE_AGENT", parts: [{ text: "hi" }] },
      },
      artifacts: [
        { artifactId: "a", parts: [{ data: { k: [1, "x", null, { y: true }] } }, { raw: "AAEC", mediaType: "application/octet-stream" }] },
      ],
      metadata: { n: 1.5 },
    };
    const desc = all.find((m) => m.typeName === "lf.a2a.v1.Task")!;
    const msg = compiledFromJson(desc, task);
    expect(msg).toBeDefined();
    expect(compiledToJson(desc, msg!)).toEqual(toJson(desc, msg!));
    const send = all.find((m) => m.typeName === "lf.a2a.v1.SendMessageRequest")!;
    expect(
      compiledFromJson(send, {
        message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] },
        configuration: { historyLength: 3 },
      }),
    ).toBeDefined();
  });
  it("REQUIRED fields at their defaults are written by the generated writer itself, in messages at any depth", () => {
    const task = {
      id: "t1",
      status: { message: { messageId: "m", parts: [{ text: "" }, { data: { k: 1 } }] } },
      artifacts: [{ parts: [{ text: "x" }] }],
    };
    const cases: [string, JsonValue][] = [
      ["lf.a2a.v1.ListTasksResponse", { tasks: [task, {}] }],
      ["lf.a2a.v1.StreamResponse", { statusUpdate: { status: {} } }],
      ["lf.a2a.v1.StreamResponse", { artifactUpdate: { artifact: { parts: [] } } }],
      ["lf.a2a.v1.SendMessageResponse", { task }],
    ];
    for (const [typeName, json] of cases) {
      const desc = all.find((m) => m.typeName === typeName)!;
      const msg = fromJson(desc, json);
      const written = compiledToJson(desc, msg, true);
      expect(written, typeName).toBeDefined();
      const want = toJson(desc, msg);
      fillRequiredDefaults(desc, msg, want);
      expect(JSON.stringify(written)).toBe(JSON.stringify(want));
      // Without the flag, ProtoJSON's own rules: defaults left out.
      expect(compiledToJson(desc, msg)).toEqual(toJson(desc, msg));
    }
    const list = compiledToJson(
      all.find((m) => m.typeName === "lf.a2a.v1.ListTasksResponse")!,
      fromJson(all.find((m) => m.typeName === "lf.a2a.v1.ListTasksResponse")!, {}),
      true,
    );
    expect(list).toEqual({ tasks: [], nextPageToken: "", pageSize: 0, totalSize: 0 });
  });
  it("data parts (google.protobuf.Value) of any JSON read and write as protobuf-es does them", () => {
    const part = all.find((m) => m.typeName === "lf.a2a.v1.Part")!;
    const nasty = fc.oneof(fc.jsonValue({ maxDepth: 4 }), fc.constantFrom({ ["__proto__"]: 1 }, [[[[[[[[[[1]]]]]]]]]], "\ud800"));
    fc.assert(
      fc.property(nasty, (data) => {
        const json = JSON.parse(JSON.stringify({ data })) as JsonValue;
        const want = outcome(() => fromJson(part, json, { ignoreUnknownFields: true }));
        expect(outcome(() => fastFromJson(part, json))).toStrictEqual(want);
        if ("ok" in want) expect(JSON.stringify(fastToJson(part, want.ok))).toBe(JSON.stringify(toJson(part, want.ok)));
      }),
      { numRuns: runs * 20 },
    );
    const deep = JSON.parse("[".repeat(40) + "]".repeat(40)) as JsonValue;
    expect(compiledFromJson(part, { data: deep })).toBeUndefined();
    expect(compiledFromJson(part, { data: { a: [1, "x", null, true, { b: [] }] } })).toBeDefined();
  });
  it("timestamps written as protobuf-es writes them, over the whole range", () => {
    fc.assert(
      fc.property(fc.bigInt({ min: -62135596800n, max: 253402300799n }), fc.integer({ min: 0, max: 999_999_999 }), (seconds, nanos) => {
        const ts = create(TimestampSchema, { seconds, nanos });
        expect(writeTimestamp(ts)).toBe(toJson(TimestampSchema, ts));
      }),
      { numRuns: 2000 },
    );
    for (const seconds of [-62135596800n, 253402300799n, 0n, -1n, 951782400n, 951868800n, 4107542400n, -2203891200n]) {
      const ts = create(TimestampSchema, { seconds });
      expect(writeTimestamp(ts)).toBe(toJson(TimestampSchema, ts));
    }
    // The writer remembers the last value's text: written again, and after a
    // neighbour differing in one field only, each value still reads as its own.
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.bigInt({ min: 1_700_000_000n, max: 1_700_000_002n }), fc.constantFrom(0, 1, 5_000_000, 999_999_999)), {
          minLength: 2,
          maxLength: 12,
        }),
        (values) => {
          for (const [seconds, nanos] of values) {
            const ts = create(TimestampSchema, { seconds, nanos });
            expect(writeTimestamp(ts)).toBe(toJson(TimestampSchema, ts));
          }
        },
      ),
      { numRuns: 300 },
    );
    // A bad value right after a good one with the same seconds is still refused.
    writeTimestamp(create(TimestampSchema, { seconds: 1n, nanos: 0 }));
    expect(() => writeTimestamp({ seconds: 1n, nanos: 1_000_000_000 })).toThrow();
  });
  it("timestamps read as protobuf-es reads them", () => {
    const texts = [
      "2026-01-02T03:04:05Z",
      "2026-01-02T03:04:05.1Z",
      "2026-01-02T03:04:05.123456789Z",
      "2026-01-02T03:04:05.1234567891Z",
      "2026-01-02T03:04:05+01:00",
      "2026-01-02T03:04:05.5-05:30",
      "2026-01-02T03:04:05",
      "2026-01-02t03:04:05Z",
      "2026-02-30T00:00:00Z",
      "2026-13-01T00:00:00Z",
      "2026-01-02T24:00:00Z",
      "2026-01-02T23:59:60Z",
      "0000-12-31T23:59:59Z",
      "0001-01-01T00:00:00Z",
      "9999-12-31T23:59:59.999999999Z",
      "9999-12-31T23:59:59-01:00",
      "0001-01-01T00:00:00+01:00",
      " 2026-01-02T03:04:05Z",
      "2026-01-02T03:04:05.Z",
      "+02026-01-02T03:04:05Z",
      "2026-01-02T03:04:05+1:00",
    ];
    for (const t of texts) {
      const want = outcome(() => fromJson(TimestampSchema, t));
      const got = outcome(() => readTimestamp(t));
      // Where the reader gives up, protobuf-es answers; where it answers, it agrees.
      if ("ok" in got) expect(got, t).toStrictEqual(want);
    }
    expect(outcome(() => readTimestamp("2026-01-02T03:04:05.5-05:30"))).toHaveProperty("ok");
  });
  it("non-object JSON and init shapes of the wrong type fall back to protobuf-es", () => {
    const desc = all.find((m) => m.name === "Task")!;
    for (const v of [null, 1, "x", [], true]) {
      expect(outcome(() => fastFromJson(desc, v as JsonValue))).toEqual(
        outcome(() => fromJson(desc, v as JsonValue, { ignoreUnknownFields: true })),
      );
    }
    const other = create(all.find((m) => m.name === "Message")!);
    expect(outcome(() => fastToJson(desc, other as never))).toEqual(outcome(() => toJson(desc, other as never)));
  });
});

describe("the generated REQUIRED checks (MessageJsonCodec.complete)", () => {
  const checked = all.filter((d) => codecOf(d)?.complete !== undefined);
  it("exist for the A2A requests with REQUIRED fields, and say so of complete ones", () => {
    expect(checked.length).toBeGreaterThan(20);
    const send = all.find((m) => m.typeName === "lf.a2a.v1.SendMessageRequest")!;
    const complete = codecOf(send)!.complete!;
    const ok = fromJson(send, { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } });
    expect(complete(ok)).toBe(true);
    for (const bad of [
      {},
      { message: { role: "ROLE_USER", parts: [{ text: "hi" }] } },
      { message: { messageId: "m1", role: "ROLE_USER" } },
    ]) {
      expect(complete(fromJson(send, bad))).toBe(false);
    }
  });
  for (const desc of checked) {
    it(`${desc.typeName}: true only when reflect() finds nothing missing, and checkRequired's verdict unchanged`, () => {
      const complete = codecOf(desc)!.complete!;
      fc.assert(
        fc.property(message(desc, 3), (msg) => {
          const missing = requiredViolations(desc, msg).length > 0;
          if (complete(msg)) expect(missing).toBe(false);
          expect(
            Object.hasOwn(
              outcome(() => checkRequired(desc, msg, complete)),
              "error",
            ),
          ).toBe(missing);
        }),
        { numRuns: runs },
      );
    });
  }
});

describe("the REQUIRED check's fast path", () => {
  for (const name of ["lf.a2a.v1.SendMessageRequest", "lf.a2a.v1.TaskPushNotificationConfig", "lf.a2a.v1.Task", "lf.a2a.v1.AgentCard"]) {
    const desc = all.find((m) => m.typeName === name)!;
    it(`${name}: checkRequired throws exactly when reflect() finds a missing field`, () => {
      fc.assert(
        fc.property(message(desc, 3), (msg) => {
          const missing = requiredViolations(desc, msg).length > 0;
          expect(
            Object.hasOwn(
              outcome(() => checkRequired(desc, msg)),
              "error",
            ),
          ).toBe(missing);
        }),
        { numRuns: runs * 4 },
      );
    });
  }
});

describe("the jsonCodec option", () => {
  const bodies: unknown[] = [
    { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }, { data: { a: [1, null] } }] }, metadata: { k: "v" } },
    { message: { messageId: "m1", role: "ROLE_NOPE" } },
    { message: { messageId: 7 } },
    { message: { message_id: "m1", messageId: "m2" } },
    { configuration: { historyLength: "3" } },
    { message: { parts: [{ text: "a", data: {} }] } },
  ];
  it("the server decodes and encodes alike either way", () => {
    const route = a2a("sendMessage");
    for (const body of bodies) {
      const run = (jsonCodec: "generated" | "protobuf-es") =>
        outcome(() => {
          const msg = decodeRequest(route, { variables: {}, query: "", body }, { jsonCodec }) as SendMessageRequest;
          return JSON.stringify(
            encodeResponse(a2a("getTask"), create(a2a("getTask").output, { id: "t", history: msg.message ? [msg.message] : [] }), {
              jsonCodec,
            }),
          );
        });
      expect(run("generated"), JSON.stringify(body)).toEqual(run("protobuf-es"));
    }
  });
  it("the client decodes alike either way", async () => {
    const answers = [
      '{"id":"t1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-02T03:04:05.5+01:00"},"metadata":{"x":[1]}}',
      '{"id":"t1","status":{"state":"TASK_STATE_UNHEARD_OF"}}',
      '{"id":5}',
      '{"id":"t1","status":{"timestamp":"2026-13-01T00:00:00Z"}}',
    ];
    for (const text of answers) {
      const fetch = async () => new Response(text, { status: 200, headers: { "content-type": "application/json" } });
      const get = async (jsonCodec: "generated" | "protobuf-es") => {
        try {
          return { ok: await createA2AServiceClient({ baseUrl: "http://127.0.0.1:1", fetch, jsonCodec }).getTask({ id: "t1" }) };
        } catch (e) {
          return { error: String(e) };
        }
      };
      expect(await get("generated"), text).toStrictEqual(await get("protobuf-es"));
    }
  });
  it("the JSON-RPC client encodes and decodes alike either way", async () => {
    const results = [
      '{"id":"t1","status":{"state":"TASK_STATE_COMPLETED","timestamp":"2026-01-02T03:04:05.5+01:00"},"metadata":{"x":[1]}}',
      '{"id":"t1","status":{"state":"TASK_STATE_UNHEARD_OF"}}',
      '{"id":5}',
    ];
    for (const result of results) {
      const sent: string[] = [];
      const fetch = async (_url: unknown, init?: RequestInit) => {
        sent.push(String(init?.body));
        const id = (JSON.parse(String(init?.body)) as { id: number }).id;
        return new Response(`{"jsonrpc":"2.0","id":${id},"result":${result}}`, {
          status: 200,
          headers: { "content-type": "application/json" },
        });
      };
      const get = async (jsonCodec: "generated" | "protobuf-es") => {
        const client = createA2AServiceClient({ baseUrl: "http://127.0.0.1:1/jsonrpc", fetch, jsonCodec, transport: "jsonrpc" });
        try {
          return { ok: await client.getTask({ id: "t1", historyLength: 2, tenant: "acme" }) };
        } catch (e) {
          return { error: String(e) };
        }
      };
      expect(await get("generated"), result).toStrictEqual(await get("protobuf-es"));
      expect(sent[0]).toBe(sent[1]);
    }
  });
});
