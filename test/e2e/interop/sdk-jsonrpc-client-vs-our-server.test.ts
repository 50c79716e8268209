/**
 * The A2A JS SDK's JSON-RPC client (ClientFactory + JsonRpcTransportFactory,
 * built from the card we serve, which lists HTTP+JSON first and JSONRPC
 * second) against the example agent's JSON-RPC binding on each generated
 * adapter, with and without a tenant; then the wire itself (batches,
 * notifications, malformed envelopes) with plain fetch.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import type { AgentCard as SdkAgentCard, StreamResponse as SdkStreamResponse, Task as SdkTask } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  JsonRpcTransportFactory,
  ServiceParameters,
  withA2AExtensions,
  type Client,
} from "@a2a-js/sdk/client";
import {
  type A2AError,
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
} from "@a2a-js/sdk/errors";
import { frameworks, startOurServer, type OurServer } from "./harness/our-server.js";
import { recordingFetch, rejection, streamFailure, type RecordingFetch } from "./harness/util.js";
import { artifactTexts, drain, isMessage, req, sdkMessage, withFailingStream } from "./harness/sdk-shapes.js";

const matrix = frameworks.flatMap((framework) => [
  { framework, label: "no tenant", tenant: "" },
  { framework, label: "tenant acme", tenant: "acme" },
]);

/** The JSON-RPC code the SDK's typed error carries. */
const envelopeCode = (e: unknown) => (e as { envelopeCode?: number }).envelopeCode;

describe.each(matrix)("SDK JSON-RPC client -> our $framework server ($label)", ({ framework, tenant }) => {
  let server: OurServer;
  let rec: RecordingFetch;
  let client: Client;

  beforeAll(async () => {
    server = await startOurServer(framework, { tenant, wrap: withFailingStream });
    rec = recordingFetch();
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new JsonRpcTransportFactory({ fetchImpl: rec.fetch })],
        preferredTransports: ["JSONRPC"],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: rec.fetch }),
      }),
    );
    client = await factory.createFromUrl(server.origin);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function completed(text = "hello"): Promise<SdkTask> {
    const res = await client.sendMessage(req({ message: sdkMessage(text) }));
    expect(isMessage(res)).toBe(false);
    expect((res as SdkTask).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    return res as SdkTask;
  }

  it("SendMessage: a task, and a Message answer", async () => {
    const task = await completed("hello there");
    expect(artifactTexts(task)).toEqual(["echo: hello there"]);
    const msg = await client.sendMessage(req({ message: sdkMessage("/message hi") }));
    expect(isMessage(msg)).toBe(true);
  });

  it("SendStreamingMessage: Task first, terminal status last, every event a JSON-RPC response", async () => {
    const events = await drain(client.sendMessageStream(req({ message: sdkMessage("/work 2") })));
    expect(events[0]!.payload?.$case).toBe("task");
    const last = events.at(-1)!;
    expect(last.payload?.$case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    const call = rec.calls.findLast((c) => c.body?.includes('"SendStreamingMessage"'));
    expect(call?.url).toBe(server.jsonRpcUrl);
    expect(call?.responseType).toMatch(/^text\/event-stream/);
  });

  it("GetTask and ListTasks", async () => {
    const contextId = crypto.randomUUID();
    const task = (await client.sendMessage(req({ message: sdkMessage("one", { contextId }) }))) as SdkTask;
    const got = await client.getTask(req({ id: task.id, historyLength: 0 }));
    expect(got.id).toBe(task.id);
    expect(got.history ?? []).toEqual([]);
    const listed = await client.listTasks(req({ contextId, includeArtifacts: true }));
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(listed.tasks.map(artifactTexts)).toEqual([["echo: one"]]);
    expect(listed.nextPageToken ?? "").toBe("");
  });

  it("CancelTask and SubscribeToTask: Task first, the cancel ends the stream", async () => {
    const task = (await client.sendMessage(req({ message: sdkMessage("/wait"), configuration: { returnImmediately: true } }))) as SdkTask;
    const it = client.resubscribeTask(req({ id: task.id }))[Symbol.asyncIterator]();
    const first = await it.next();
    expect((first.value as SdkStreamResponse).payload?.$case).toBe("task");
    const canceled = await client.cancelTask(req({ id: task.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: SdkStreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    const states = rest.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("push config create / get / list / delete", async () => {
    const task = await completed();
    const created = await client.createTaskPushNotificationConfig(
      req({ taskId: task.id, id: "cfg-1", url: "http://127.0.0.1:9/hook", token: "t" }),
    );
    expect(created.id).toBe("cfg-1");
    expect((await client.getTaskPushNotificationConfig(req({ taskId: task.id, id: "cfg-1" }))).token).toBe("t");
    expect((await client.listTaskPushNotificationConfig(req({ taskId: task.id }))).configs.map((c) => c.id)).toEqual(["cfg-1"]);
    await expect(client.deleteTaskPushNotificationConfig(req({ taskId: task.id, id: "cfg-1" }))).resolves.toBeUndefined();
    expect((await client.listTaskPushNotificationConfig(req({ taskId: task.id }))).configs ?? []).toEqual([]);
  });

  it("GetExtendedAgentCard lists both interfaces", async () => {
    const card: SdkAgentCard = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toContain("extended-echo");
    expect(card.supportedInterfaces.map((i) => i.protocolBinding)).toEqual(["HTTP+JSON", "JSONRPC"]);
  });

  it("A2A-Extensions and A2A-Version travel as headers", async () => {
    await client.sendMessage(req({ message: sdkMessage("/message ext") }), {
      serviceParameters: ServiceParameters.create(withA2AExtensions("https://example.com/ext/a")),
    });
    const seen = server.requests.findLast((r) => r.method === "POST" && r.path === "/jsonrpc");
    expect(String(seen?.headers["a2a-extensions"])).toBe("https://example.com/ext/a");
    expect(seen?.headers["a2a-version"]).toBe("1.0");
  });

  it("the tenant travels in params.tenant and scopes the tasks", async () => {
    const task = await completed();
    const call = rec.calls.findLast((c) => c.body?.includes('"GetTask"') === false && c.body?.includes('"SendMessage"'));
    const params = JSON.parse(call!.body!).params as { tenant?: string };
    expect(params.tenant ?? "").toBe(tenant);
    // Asked for under another tenant, the task is not there.
    const res = await fetch(
      server.jsonRpcUrl,
      rpcInit({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: task.id, tenant: "other" } }),
    );
    expect((await res.json()).error.code).toBe(-32001);
  });

  describe("errors arrive as the SDK's typed errors, with their JSON-RPC codes", () => {
    it("GetTask of an unknown task: TaskNotFoundError, -32001", async () => {
      const e = await rejection(client.getTask(req({ id: "no-such-task" })));
      expect(e).toBeInstanceOf(TaskNotFoundError);
      expect(envelopeCode(e)).toBe(-32001);
    });

    it("CancelTask of a completed task: TaskNotCancelableError, -32002", async () => {
      const task = await completed();
      const e = await rejection(client.cancelTask(req({ id: task.id })));
      expect(e).toBeInstanceOf(TaskNotCancelableError);
      expect(envelopeCode(e)).toBe(-32002);
    });

    it("SubscribeToTask of a completed task: UnsupportedOperationError (-32004) before any event", async () => {
      const task = await completed();
      const { error, before } = await streamFailure(client.resubscribeTask(req({ id: task.id })));
      expect(before).toEqual([]);
      expect(error).toBeInstanceOf(UnsupportedOperationError);
      expect(envelopeCode(error)).toBe(-32004);
    });

    it("an error after the stream started: a JSON-RPC error event with the same id", async () => {
      const { error, before } = await streamFailure(client.sendMessageStream(req({ message: sdkMessage("/boom") })));
      expect(before.map((e) => (e as SdkStreamResponse).payload?.$case)).toEqual(["task"]);
      // The SDK wraps a stream event's error in a plain Error whose cause is the typed one.
      const cause = (error as Error).cause;
      expect(cause).toBeInstanceOf(UnsupportedOperationError);
      expect((cause as A2AError).message).toContain("broke on purpose");
    });

    it("GetTask with a negative historyLength: RequestMalformedError, -32602", async () => {
      const e = await rejection(client.getTask(req({ id: "x", historyLength: -1 })));
      expect(e).toBeInstanceOf(RequestMalformedError);
      expect(envelopeCode(e)).toBe(-32602);
    });
  });
});

function rpcInit(body: unknown, headers: Record<string, string> = {}): RequestInit {
  return {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: typeof body === "string" ? body : JSON.stringify(body),
  };
}

describe.each(frameworks)("the JSON-RPC wire on our %s server", (framework) => {
  let server: OurServer;
  beforeAll(async () => {
    server = await startOurServer(framework);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function post(body: unknown, headers?: Record<string, string>) {
    const res = await fetch(server.jsonRpcUrl, rpcInit(body, headers));
    const text = await res.text();
    return { status: res.status, type: res.headers.get("content-type"), json: text === "" ? undefined : JSON.parse(text) };
  }

  it("answers application/json with the request's id", async () => {
    const r = await post({ jsonrpc: "2.0", id: "abc", method: "GetTask", params: { id: "nope" } });
    expect(r.status).toBe(200);
    expect(r.type).toMatch(/^application\/json/);
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id: "abc", error: { code: -32001 } });
    // data is the google.rpc.Status details: the ErrorInfo first.
    expect(r.json.error.data[0]).toMatchObject({
      "@type": "type.googleapis.com/google.rpc.ErrorInfo",
      reason: "TASK_NOT_FOUND",
      domain: "a2a-protocol.org",
    });
  });

  it.each([
    ["invalid JSON", "{", -32700, null],
    ["an empty body", "", -32600, null],
    ["a scalar body", "42", -32600, null],
    ["a wrong jsonrpc version", { jsonrpc: "1.0", id: 1, method: "GetTask" }, -32600, 1],
    ["a method that is no string", { jsonrpc: "2.0", id: 2, method: 7 }, -32600, 2],
    ["an id that is an object", { jsonrpc: "2.0", id: {}, method: "GetTask" }, -32600, null],
    ["an unknown method", { jsonrpc: "2.0", id: 3, method: "tasks/get" }, -32601, 3],
    ["params as an array", { jsonrpc: "2.0", id: 4, method: "GetTask", params: ["x"] }, -32602, 4],
    [
      "a params field of the wrong type",
      { jsonrpc: "2.0", id: 5, method: "GetTask", params: { id: "x", historyLength: "many" } },
      -32602,
      5,
    ],
    ["a missing REQUIRED field", { jsonrpc: "2.0", id: 6, method: "SendMessage", params: {} }, -32602, 6],
    ["a __proto__ key", '{"jsonrpc":"2.0","id":7,"method":"SendMessage","params":{"__proto__":{"x":1}}}', -32600, 7],
    ["an escaped __proto__ key", '{"jsonrpc":"2.0","id":8,"method":"SendMessage","params":{"\\u005f_proto__":{"x":1}}}', -32600, 8],
  ])("%s: a JSON-RPC error, and the handler is not called", async (_label, body, code, id) => {
    const r = await post(body);
    expect(r.status).toBe(200);
    expect(r.json).toMatchObject({ jsonrpc: "2.0", id, error: { code } });
  });

  it("a missing REQUIRED field names it in a BadRequest detail", async () => {
    const r = await post({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: {} });
    const bad = r.json.error.data.find((d: { "@type": string }) => d["@type"].endsWith("BadRequest"));
    expect(bad.fieldViolations.map((v: { field: string }) => v.field)).toContain("message");
  });

  it("an unsupported A2A-Version is -32009, and a missing one is 0.3", async () => {
    expect((await post({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }, { "a2a-version": "2.0" })).json.error.code).toBe(
      -32009,
    );
    const res = await fetch(server.jsonRpcUrl, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }),
    });
    expect((await res.json()).error.code).toBe(-32009);
  });

  it("a batch is answered with an array, in order; notifications get no element", async () => {
    const r = await post([
      {
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "/message a" }] } },
      },
      {
        jsonrpc: "2.0",
        method: "SendMessage",
        params: { message: { messageId: "m2", role: "ROLE_USER", parts: [{ text: "/message b" }] } },
      },
      { jsonrpc: "2.0", id: 2, method: "GetTask", params: { id: "nope" } },
      { foo: "bar" },
      {
        jsonrpc: "2.0",
        id: 3,
        method: "SendStreamingMessage",
        params: { message: { messageId: "m3", role: "ROLE_USER", parts: [{ text: "x" }] } },
      },
    ]);
    expect(r.status).toBe(200);
    expect(r.json).toHaveLength(4);
    expect(r.json[0]).toMatchObject({ id: 1, result: { message: { role: "ROLE_AGENT" } } });
    expect(r.json[1]).toMatchObject({ id: 2, error: { code: -32001 } });
    expect(r.json[2]).toMatchObject({ id: null, error: { code: -32600 } });
    expect(r.json[3]).toMatchObject({ id: 3, error: { code: -32600 } });
  });

  it("an empty batch is one -32600; a batch of notifications only, and a single notification, are 204", async () => {
    expect((await post([])).json).toMatchObject({ id: null, error: { code: -32600 } });
    const note = { jsonrpc: "2.0", method: "GetTask", params: { id: "nope" } };
    expect(await post([note, note])).toMatchObject({ status: 204, json: undefined });
    expect(await post(note)).toMatchObject({ status: 204, json: undefined });
  });

  it("ListTaskPushNotificationConfig, as spec §9.4.7 spells it, is ListTaskPushNotificationConfigs", async () => {
    const r = await post({ jsonrpc: "2.0", id: 1, method: "ListTaskPushNotificationConfig", params: { taskId: "nope" } });
    expect(r.json).toMatchObject({ id: 1, error: { code: -32001 } });
  });

  it("GET is 405 with Allow: POST; a path below the endpoint is 404", async () => {
    const get = await fetch(server.jsonRpcUrl);
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await get.json()).error.code).toBe(-32600);
    const below = await fetch(server.jsonRpcUrl + "/x", rpcInit({ jsonrpc: "2.0", id: 1, method: "GetTask" }));
    expect(below.status).toBe(404);
  });

  it("a text/plain body is -32005 (CONTENT_TYPE_NOT_SUPPORTED)", async () => {
    const r = await post({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x" } }, { "content-type": "text/plain" });
    expect(r.json.error.code).toBe(-32005);
  });

  it("a stream is SSE of JSON-RPC responses with the request's id", async () => {
    const res = await fetch(
      server.jsonRpcUrl,
      rpcInit({
        jsonrpc: "2.0",
        id: "s-1",
        method: "SendStreamingMessage",
        params: { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } },
      }),
    );
    expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
    const events = (await res.text())
      .split("\n\n")
      .filter((e) => e.startsWith("data: "))
      .map((e) => JSON.parse(e.slice(6)));
    expect(events.length).toBeGreaterThan(1);
    for (const e of events) expect(e).toMatchObject({ jsonrpc: "2.0", id: "s-1" });
    expect(Object.keys(events[0].result)).toEqual(["task"]);
  });
});
