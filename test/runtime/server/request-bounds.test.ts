/**
 * Issue 28 items 1, 3 and 9 (docs/security.md "Bounded requests"): a
 * non-finite number in a data part is refused on every binding with nothing
 * stored, and a list with a task that cannot be written still answers; a
 * request over the element cap is a 413; a Struct key `constructor` is
 * refused on gRPC as on HTTP+JSON, and protobuf-es's prototype trick with a
 * binary `__proto__` key is refused too.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create, toBinary } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, SendMessageRequestSchema, TaskSchema, ListTasksResponseSchema, Role, TaskState } from "../../../gen/a2a_pb.js";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { checkJson, checkMessage, DEFAULT_MAX_ELEMENTS } from "../../../packages/runtime/src/transcoding/bounds.js";
import { encodeResponse } from "../../../packages/runtime/src/transcoding/index.js";
import { RpcError } from "../../../packages/runtime/src/errors.js";

const v = { "a2a-version": "1.0", "content-type": "application/json" };
const send = (data: string) => `{"message":{"messageId":"m-${Math.random()}","role":"ROLE_USER","parts":[{"text":"hi"},{"data":${data}}]}}`;

function refusal(f: () => unknown): RpcError {
  try {
    f();
  } catch (e) {
    if (e instanceof RpcError) return e;
    throw e;
  }
  throw new Error("not refused");
}

describe("checkJson", () => {
  it("refuses a number that JSON.parse read as Infinity, naming where", () => {
    const e = refusal(() => checkJson(JSON.parse('{"a":[1,{"b":-1e400}]}')));
    expect(e.httpStatus).toBe(400);
    expect(e.message).toContain("a[1].b");
    expect(refusal(() => checkJson(JSON.parse("1e400"))).httpStatus).toBe(400);
  });
  it("counts every value and refuses past the cap with 413", () => {
    expect(() => checkJson(JSON.parse("[1,2,3]"), 4)).not.toThrow();
    const e = refusal(() => checkJson(JSON.parse("[1,2,3,4]"), 4));
    expect(e.httpStatus).toBe(413);
    expect(refusal(() => checkJson(JSON.parse('{"a":{"b":{"c":1}}}'), 3)).httpStatus).toBe(413);
  });
  it("refuses __proto__ and constructor keys", () => {
    expect(refusal(() => checkJson(JSON.parse('{"x":[{"constructor":1}]}'))).message).toContain("x[0].constructor");
    expect(refusal(() => checkJson(JSON.parse('{"__proto__":1}'))).message).toContain("__proto__");
  });
});

describe("checkMessage (decoded gRPC messages)", () => {
  const msg = (data: unknown, metadata?: Record<string, unknown>) =>
    create(SendMessageRequestSchema, {
      message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "data", value: data as never } }] },
      ...(metadata ? { metadata: metadata as never } : {}),
    });
  const num = (n: number) => ({ kind: { case: "numberValue", value: n } });
  it("refuses NaN and the infinities in a Value", () => {
    for (const n of [NaN, Infinity, -Infinity]) {
      const e = refusal(() =>
        checkMessage(SendMessageRequestSchema, msg({ kind: { case: "listValue", value: { values: [num(1), num(n)] } } })),
      );
      expect(e.httpStatus).toBe(400);
      expect(e.message).toContain("message.parts[0].data[1]");
    }
    expect(() => checkMessage(SendMessageRequestSchema, msg(num(1.5)))).not.toThrow();
  });
  it("refuses a Struct key constructor, in a Value and in a Struct field", () => {
    const inValue = msg({ kind: { case: "structValue", value: { fields: { constructor: num(1) } } } });
    expect(refusal(() => checkMessage(SendMessageRequestSchema, inValue)).message).toContain("constructor");
    expect(refusal(() => checkMessage(SendMessageRequestSchema, msg(num(1), { a: { constructor: 1 } }))).message).toContain(
      "metadata.a.constructor",
    );
    expect(refusal(() => checkMessage(SendMessageRequestSchema, msg(num(1), { a: Infinity }))).httpStatus).toBe(400);
  });
  it("refuses an object whose prototype a __proto__ key replaced", () => {
    const fields = { a: num(1) };
    Object.setPrototypeOf(fields, { polluted: true });
    const m = msg({ kind: { case: "structValue", value: { $typeName: "google.protobuf.Struct", fields } } });
    (m.message!.parts[0]!.content.value as { kind: { value: { fields: object } } }).kind.value.fields = fields;
    expect(refusal(() => checkMessage(SendMessageRequestSchema, m)).message).toContain("__proto__");
  });
  it("counts list items, map entries and Values against the cap", () => {
    const big = msg({ kind: { case: "listValue", value: { values: Array.from({ length: 50 }, () => num(1)) } } });
    expect(() => checkMessage(SendMessageRequestSchema, big, 100)).not.toThrow();
    expect(refusal(() => checkMessage(SendMessageRequestSchema, big, 40)).httpStatus).toBe(413);
    expect(DEFAULT_MAX_ELEMENTS).toBeGreaterThan(1000);
  });
});

describe("a list with an item that cannot be written", () => {
  const route = A2AServiceRoutes.find((r) => r.rpc === "listTasks")!;
  const good = create(TaskSchema, { id: "good", contextId: "c", status: { state: TaskState.COMPLETED } });
  const bad = create(TaskSchema, {
    id: "bad",
    contextId: "c",
    status: { state: TaskState.COMPLETED },
    metadata: {},
    artifacts: [{ artifactId: "a", parts: [{ content: { case: "data", value: { kind: { case: "numberValue", value: NaN } } } }] }],
  });
  const list = create(ListTasksResponseSchema, { tasks: [good, bad], nextPageToken: "", pageSize: 2, totalSize: 2 });
  it("is written without it, and the item is reported", () => {
    const skipped: Error[] = [];
    const json = encodeResponse(route, list, { emitRequired: true, onSkip: (e) => skipped.push(e) }) as { tasks: { id: string }[] };
    expect(json.tasks.map((t) => t.id)).toEqual(["good"]);
    expect(skipped).toHaveLength(1);
    expect(skipped[0]!.message).toContain("tasks[1]");
  });
  it("fails as before without onSkip", () => {
    expect(() => encodeResponse(route, list, { emitRequired: true })).toThrow();
  });
});

describe("the example agent refuses non-finite numbers on every binding and stores nothing", () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startExampleAgent({ framework: "express", port: 0 });
  });
  afterAll(async () => {
    await agent?.close();
  });
  const taskCount = async () => {
    const res = await fetch(`${agent.url}/tasks`, { headers: v });
    expect(res.status).toBe(200);
    return ((await res.json()) as { tasks?: unknown[] }).tasks?.length ?? 0;
  };

  it("HTTP+JSON and JSON-RPC: 1e400 and [1,-1e400] are 400 / invalid params", async () => {
    const before = await taskCount();
    for (const data of ["1e400", "[1,-1e400]", '{"x":{"y":[1e999]}}']) {
      const res = await fetch(`${agent.url}/message:send`, { method: "POST", headers: v, body: send(data) });
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { status: string; message: string } };
      expect(body.error.status).toBe("INVALID_ARGUMENT");
      expect(body.error.message).toContain("message.parts[1].data");
      const rpc = await fetch(agent.jsonRpcUrl!, {
        method: "POST",
        headers: v,
        body: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${send(data)}}`,
      });
      expect(((await rpc.json()) as { error: { code: number } }).error.code).toBe(-32602);
    }
    expect(await taskCount()).toBe(before);
  });

  it("gRPC: a binary numberValue of NaN or Infinity, and a Struct key constructor, are INVALID_ARGUMENT", async () => {
    const before = await taskCount();
    const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` }));
    const headers = { "a2a-version": "1.0" };
    for (const data of [
      { kind: { case: "numberValue", value: Infinity } },
      { kind: { case: "listValue", value: { values: [{ kind: { case: "numberValue", value: NaN } }] } } },
      { kind: { case: "structValue", value: { fields: { constructor: { kind: { case: "boolValue", value: true } } } } } },
    ]) {
      const req = create(SendMessageRequestSchema, {
        message: { messageId: `g-${Math.random()}`, role: Role.USER, parts: [{ content: { case: "data", value: data as never } }] },
      });
      expect(toBinary(SendMessageRequestSchema, req).length).toBeGreaterThan(0);
      const e = await grpc.sendMessage(req, { headers }).then(
        () => undefined,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(ConnectError);
      expect((e as ConnectError).code).toBe(3); // INVALID_ARGUMENT
    }
    expect(await taskCount()).toBe(before);
  });

  it("a body over the element cap is a 413 on HTTP+JSON and JSON-RPC", async () => {
    const data = `[${Array.from({ length: DEFAULT_MAX_ELEMENTS + 1 }, () => "0").join(",")}]`;
    const res = await fetch(`${agent.url}/message:send`, { method: "POST", headers: v, body: send(data) });
    expect(res.status).toBe(413);
    expect(((await res.json()) as { error: { status: string } }).error.status).toBe("RESOURCE_EXHAUSTED");
    const rpc = await fetch(agent.jsonRpcUrl!, {
      method: "POST",
      headers: v,
      body: `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${send(data)}}`,
    });
    expect(rpc.status).toBe(413);
  });
});
