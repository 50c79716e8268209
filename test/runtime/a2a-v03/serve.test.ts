// A2A v0.3 requests against an agent on the task engine, in one process
// through the generated Hono adapters (HTTP+JSON at /, JSON-RPC at /jsonrpc,
// the card at the well-known paths): the version decides the dialect, v0.3's
// JSON goes in and comes out, both versions share the tasks, bad v0.3 input
// is a clear error with nothing stored, and `a2aV03: false` turns it off.
import { create, toJson } from "@bufbuild/protobuf";
import { Hono } from "hono";
import { agentCardHono } from "a2a-http/server";
import { describe, expect, it } from "vitest";
import { createA2AServiceAgent, type A2AServiceExecutor } from "../../../gen/a2a_http_agent.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a_http_hono.js";
import { AgentCardSchema, type AgentCard } from "../../../gen/a2a_pb.js";

const base = "http://127.0.0.1:41241";

const card = (): AgentCard =>
  create(AgentCardSchema, {
    name: "v0.3 test agent",
    description: "echoes",
    version: "1.0.0",
    supportedInterfaces: [
      { url: base, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "" },
      { url: `${base}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
      { url: `${base}/acme`, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "acme" },
    ],
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "echoes" }],
  });

/** Echoes the text as an artifact; "wait" keeps the task working until canceled. */
const executor: A2AServiceExecutor = async ({ text, signal }, task) => {
  await task.working();
  if (text === "wait") return new Promise<void>((ok) => signal.addEventListener("abort", () => ok(), { once: true }));
  return task.complete({ artifactId: "echo", name: "echo", parts: [{ content: { case: "text", value: `echo: ${text}` } }] });
};

function setup(options: { a2aV03?: boolean } = {}) {
  const agent = createA2AServiceAgent(executor, { card, ...options });
  const app = new Hono();
  const cardJson = () => toJson(AgentCardSchema, card());
  const cardOptions = options.a2aV03 === false ? { a2aV03: false } : {};
  app.get("/.well-known/agent-card.json", agentCardHono(cardJson, cardOptions));
  app.get("/.well-known/agent.json", agentCardHono(cardJson, cardOptions));
  app.route("/jsonrpc", a2aServiceJsonRpcHono(agent));
  app.route("/", a2aServiceHono(agent));
  const call = async (path: string, init: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) => {
    const headers: Record<string, string> = { ...init.headers };
    if (init.body !== undefined) headers["content-type"] ??= "application/json";
    const res = await app.request(path, {
      method: init.method ?? (init.body === undefined ? "GET" : "POST"),
      headers,
      ...(init.body === undefined ? {} : { body: typeof init.body === "string" ? init.body : JSON.stringify(init.body) }),
    });
    const text = await res.text();
    return {
      status: res.status,
      type: res.headers.get("content-type") ?? "",
      text,
      json: text && !text.startsWith("data:") ? JSON.parse(text) : undefined,
    };
  };
  let n = 0;
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) =>
    (await call("/jsonrpc", { body: { jsonrpc: "2.0", id: ++n, method, params }, headers })).json;
  return { agent, call, rpc };
}

const v03Message = (text: string, extra: object = {}) => ({
  kind: "message",
  messageId: `m-${Math.random()}`,
  role: "user",
  parts: [{ kind: "text", text }],
  ...extra,
});

/** The data objects of an SSE body. */
const events = (text: string) =>
  text
    .split("\n\n")
    .filter((e) => e.startsWith("data: "))
    .map((e) => JSON.parse(e.slice("data: ".length)));

describe("A2A v0.3 JSON-RPC on the engine", () => {
  it("message/send answers a v0.3 Task: kind tags, lower-case states, parts by kind", async () => {
    const { rpc, agent } = setup();
    const r = await rpc("message/send", { message: v03Message("hello") });
    expect(r.error).toBeUndefined();
    expect(r.result).toMatchObject({
      kind: "task",
      status: { state: "completed" },
      artifacts: [{ name: "echo", parts: [{ kind: "text", text: "echo: hello" }] }],
      history: [{ kind: "message", role: "user", parts: [{ kind: "text", text: "hello" }] }],
    });
    expect(r.result.contextId).toMatch(/\S/);
    await agent.close();
  });

  it("message/stream: task, working (final false), artifact-update, completed (final true), as text/event-stream", async () => {
    const { call, agent } = setup();
    const res = await call("/jsonrpc", { body: { jsonrpc: "2.0", id: 7, method: "message/stream", params: { message: v03Message("s") } } });
    expect(res.type).toContain("text/event-stream");
    const results = events(res.text).map((e) => e.result);
    expect(results.map((e) => [e.kind, e.status?.state, e.final])).toEqual([
      ["task", "submitted", undefined],
      ["status-update", "working", false],
      ["artifact-update", undefined, undefined],
      ["status-update", "completed", true],
    ]);
    expect(events(res.text).every((e) => e.id === 7 && e.jsonrpc === "2.0")).toBe(true);
    await agent.close();
  });

  it("tasks/get with historyLength, tasks/cancel of a working task, errors with v0.3's codes", async () => {
    const { rpc, agent } = setup();
    const sent = await rpc("message/send", { message: v03Message("wait"), configuration: { blocking: false } });
    expect(sent.result.status.state).toMatch(/submitted|working/);
    const got = await rpc("tasks/get", { id: sent.result.id, historyLength: 0 });
    expect(got.result.id).toBe(sent.result.id);
    expect(got.result.history ?? []).toEqual([]);
    const canceled = await rpc("tasks/cancel", { id: sent.result.id });
    expect(canceled.result.status.state).toBe("canceled");
    expect((await rpc("tasks/cancel", { id: sent.result.id })).error.code).toBe(-32002);
    expect((await rpc("tasks/get", { id: "no-such-task" })).error.code).toBe(-32001);
    expect(
      (await rpc("tasks/pushNotificationConfig/set", { taskId: sent.result.id, pushNotificationConfig: { url: "https://x.test/h" } })).error
        .code,
    ).toBe(-32003);
    await agent.close();
  });

  it("checks the version before the method: a v1.0 name without A2A-Version is -32009, a v0.3 name with 1.0 is -32601", async () => {
    const { rpc, agent } = setup();
    expect((await rpc("SendMessage", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] } })).error.code).toBe(-32009);
    expect((await rpc("message/send", { message: v03Message("x") }, { "a2a-version": "1.0" })).error.code).toBe(-32601);
    expect((await rpc("message/send", { message: v03Message("x") }, { "a2a-version": "0.3" })).result.kind).toBe("task");
    // A name of neither version is not found, whatever the version.
    expect((await rpc("no/such", {})).error.code).toBe(-32601);
    const missing = await rpc("no/such", {}, { "a2a-version": "1.0" });
    expect(missing.error.code).toBe(-32601);
    expect(missing.error.data).toEqual([
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "METHOD_NOT_FOUND",
        domain: "a2a-protocol.org",
        metadata: { method: "no/such" },
      },
    ]);
    await agent.close();
  });

  it("bad v0.3 params are -32602 naming the field, and store nothing", async () => {
    const { rpc, call, agent } = setup();
    const list = async () => (await call("/tasks", { headers: { "a2a-version": "1.0" } })).json.tasks.length;
    const before = await list();
    const bad = [
      [{ message: { ...v03Message("x"), parts: [{ text: 1 }] } }, "params.message.parts[0].text"],
      [{ message: { ...v03Message("x"), parts: [{ kind: "video" }] } }, "params.message.parts[0].kind"],
      [{ message: { ...v03Message("x"), role: "robot" } }, "params.message.role"],
      [
        { message: { ...v03Message("x"), parts: [{ kind: "file", file: { bytes: "AAAA", uri: "https://x.test/f" } }] } },
        "params.message.parts[0].file",
      ],
      [{ message: { ...v03Message("x"), parts: "text" } }, "params.message.parts"],
      [[1, 2], "params"],
    ] as const;
    for (const [params, field] of bad) {
      const r = await rpc("message/send", params);
      expect(r.error.code, JSON.stringify(params)).toBe(-32602);
      expect(r.error.message).toContain(field);
    }
    expect(await list()).toBe(before);
    await agent.close();
  });

  it("a task made by a v0.3 client is a v1.0 client's task, and the other way round", async () => {
    const { rpc, call, agent } = setup();
    const v03 = (await rpc("message/send", { message: v03Message("one") })).result;
    const asV1 = await call(`/tasks/${v03.id}`, { headers: { "a2a-version": "1.0" } });
    expect(asV1.json.status.state).toBe("TASK_STATE_COMPLETED");
    const v1 = await call("/message:send", {
      body: { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "two" }] } },
      headers: { "a2a-version": "1.0" },
    });
    expect((await rpc("tasks/get", { id: v1.json.task.id })).result.artifacts[0].parts[0].text).toBe("echo: two");
    await agent.close();
  });
});

describe("A2A v0.3 JSON-RPC streams", () => {
  it("answer an error before the first event as a stream too (v0.3 clients read only text/event-stream there)", async () => {
    const { call, agent } = setup();
    const res = await call("/jsonrpc", { body: { jsonrpc: "2.0", id: 3, method: "tasks/resubscribe", params: { id: "no-such-task" } } });
    expect(res.type).toContain("text/event-stream");
    expect(events(res.text)).toEqual([
      { jsonrpc: "2.0", id: 3, error: expect.objectContaining({ code: -32001, message: "task not found" }) },
    ]);
    // v1.0's stream methods keep their plain error answer.
    const v1 = await call("/jsonrpc", {
      body: { jsonrpc: "2.0", id: 4, method: "SubscribeToTask", params: { id: "no-such-task" } },
      headers: { "a2a-version": "1.0" },
    });
    expect(v1.type).toContain("application/json");
    expect(v1.json.error.code).toBe(-32001);
    await agent.close();
  });
});

describe("A2A v0.3 HTTP+JSON (/v1/...) on the engine", () => {
  it("serves v0.3's ProtoJSON: content, TASK_STATE_*, {task} wrappers; errors as {code, message} with v1.0's status", async () => {
    const { call, agent } = setup();
    const sent = await call("/v1/message:send", { body: { message: { messageId: "r1", role: "ROLE_USER", content: [{ text: "rest" }] } } });
    expect(sent.status).toBe(200);
    expect(sent.json.task).toMatchObject({
      status: { state: "TASK_STATE_COMPLETED" },
      artifacts: [{ parts: [{ text: "echo: rest" }] }],
      history: [{ role: "ROLE_USER", content: [{ text: "rest" }] }],
    });
    const got = await call(`/v1/tasks/${sent.json.task.id}?historyLength=1`);
    expect(got.json.history).toHaveLength(1);
    const missing = await call("/v1/tasks/nope");
    expect(missing.status).toBe(404);
    expect(missing.json).toMatchObject({ code: -32001, message: "task not found" });
    // The card offers no extended card: v1.0's answer (UnsupportedOperation) in v0.3's shape.
    const card = await call("/v1/card");
    expect(card.json.code).toBe(-32004);
    await agent.close();
  });

  it("streams {task}, {statusUpdate} with final, {artifactUpdate}; subscribes on GET and POST; cancels with TASK_STATE_CANCELLED", async () => {
    const { call, agent } = setup();
    const res = await call("/v1/message:stream", { body: { message: { messageId: "r2", role: "ROLE_USER", content: [{ text: "s" }] } } });
    expect(events(res.text).map((e) => Object.keys(e)[0] + (e.statusUpdate ? `:${e.statusUpdate.final}` : ""))).toEqual([
      "task",
      "statusUpdate:false",
      "artifactUpdate",
      "statusUpdate:true",
    ]);
    const waiting = await call("/v1/message:send", {
      body: { message: { messageId: "r3", role: "ROLE_USER", content: [{ text: "wait" }] }, configuration: { blocking: false } },
    });
    const id = waiting.json.task.id;
    const canceled = await call(`/v1/tasks/${id}:cancel`, { method: "POST", body: "null" });
    expect(canceled.json.status.state).toBe("TASK_STATE_CANCELLED");
    for (const method of ["GET", "POST"]) {
      const again = await call(`/v1/tasks/${id}:subscribe`, { method });
      // A canceled task cannot be subscribed to (v1.0's rule, UnsupportedOperation), in v0.3's error shape.
      expect(again.status, method).toBe(400);
      expect(again.json.code).toBe(-32004);
    }
    await agent.close();
  });

  it("takes ProtoJSON's proto field names too (snake_case), and a create-config body in either shape", async () => {
    const { call, agent } = setup();
    const sent = await call("/v1/message:send", {
      body: {
        message: {
          message_id: "s1",
          context_id: "ctx-s",
          role: "ROLE_USER",
          content: [{ file: { file_with_uri: "https://x.test/a.txt", mime_type: "text/plain" } }],
        },
      },
    });
    expect(sent.status).toBe(200);
    expect(sent.json.task.contextId).toBe("ctx-s");
    expect(sent.json.task.history[0].content[0]).toEqual({ file: { fileWithUri: "https://x.test/a.txt", mimeType: "text/plain" } });
    await agent.close();
  });

  it("a v1.0 tenant named v1 is reached with A2A-Version 1.0; the same path without one is v0.3", async () => {
    const { call, agent } = setup();
    const inTenant = await call("/v1/message:send", {
      body: { message: { messageId: "t1", role: "ROLE_USER", parts: [{ text: "tenant" }] } },
      headers: { "a2a-version": "1.0" },
    });
    expect(inTenant.status).toBe(200);
    const id = inTenant.json.task.id;
    expect((await call(`/v1/tasks/${id}`, { headers: { "a2a-version": "1.0" } })).status).toBe(200);
    // Not in the default tenant, where v0.3 requests act.
    expect((await call(`/v1/tasks/${id}`)).status).toBe(404);
    expect((await call(`/tasks/${id}`, { headers: { "a2a-version": "1.0" } })).status).toBe(404);
    // A v1.0 path without a version is still refused as a version, not served as v0.3.
    const noVersion = await call("/message:send", { body: { message: { messageId: "t2", role: "ROLE_USER", parts: [{ text: "x" }] } } });
    expect(noVersion.status).toBe(400);
    expect(noVersion.json.error.details[0].reason).toBe("VERSION_NOT_SUPPORTED");
    await agent.close();
  });

  it("bad v0.3 bodies are 400 naming the field, and store nothing", async () => {
    const { call, agent } = setup();
    const list = async () => (await call("/tasks", { headers: { "a2a-version": "1.0" } })).json.tasks.length;
    const before = await list();
    for (const [body, field] of [
      [
        { message: { messageId: "b", role: "ROLE_USER", content: [{ file: { fileWithUri: "u", fileWithBytes: "AA" } }] } },
        "content[0].file",
      ],
      [{ message: { messageId: "b", role: "ROLE_USER", content: [{}] } }, "content[0]"],
      [{ message: { messageId: "b", role: "ROLE_ROBOT", content: [{ text: "x" }] } }, "role"],
      [[], "body"],
    ] as const) {
      const r = await call("/v1/message:send", { body });
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.json.code).toBe(-32602);
      expect(r.json.message).toContain(field);
    }
    expect((await call("/v1/tasks/x?historyLength=ten")).json.code).toBe(-32602);
    // Path ids pass the rule v1.0's do (tenant.ts), refused in v0.3's shape (scripts/security sends raw paths too).
    for (const id of ["a%00b", "a%1Bb", "a%2Fb"]) {
      const r = await call(`/v1/tasks/${id}`);
      expect(r.status, id).toBe(400);
      expect(r.json.code).toBe(-32602);
    }
    expect((await call("/v1/message:send", { body: "{", headers: { "content-type": "application/json" } })).status).toBe(400);
    expect((await call("/v1/message:send", { body: "{}", headers: { "content-type": "text/plain" } })).json.code).toBe(-32005);
    expect(await list()).toBe(before);
    await agent.close();
  });
});

describe("one card for v1.0 and v0.3", () => {
  it("is v1.0's alone for a request that says A2A-Version 1.0, varying by that header", async () => {
    const { call, agent } = setup();
    const res = await call("/.well-known/agent-card.json", { headers: { "a2a-version": "1.0" } });
    const v1Fields = new Set(AgentCardSchema.fields.map((f) => f.jsonName));
    expect(Object.keys(res.json).filter((k) => !v1Fields.has(k))).toEqual([]);
    expect(res.json.supportedInterfaces).toHaveLength(3);
    const app = setup();
    const raw = await app.call("/.well-known/agent-card.json");
    expect(raw.json.protocolVersion).toBe("0.3.0");
    await app.agent.close();
    await agent.close();
  });

  it("answers each variant with its own ETag and Vary: A2A-Version, and 304 for each", async () => {
    const agent = createA2AServiceAgent(executor, { card });
    const app = new Hono();
    app.get(
      "/card",
      agentCardHono(() => toJson(AgentCardSchema, card())),
    );
    const get = (headers: Record<string, string>) => app.request("/card", { headers });
    const v1 = await get({ "a2a-version": "1.0" });
    const v03 = await get({});
    expect(v1.headers.get("vary")).toBe("A2A-Version");
    expect(v03.headers.get("vary")).toBe("A2A-Version");
    expect(v1.headers.get("etag")).not.toBe(v03.headers.get("etag"));
    expect((await get({ "a2a-version": "1.0", "if-none-match": v1.headers.get("etag")! })).status).toBe(304);
    expect((await get({ "if-none-match": v03.headers.get("etag")! })).status).toBe(304);
    expect((await get({ "if-none-match": v1.headers.get("etag")! })).status).toBe(200);
    await agent.close();
  });

  it("adds v0.3's fields from the JSON-RPC and HTTP+JSON interfaces without a tenant, at both well-known paths", async () => {
    const { call, agent } = setup();
    for (const path of ["/.well-known/agent-card.json", "/.well-known/agent.json"]) {
      const c = (await call(path)).json;
      expect(c).toMatchObject({
        protocolVersion: "0.3.0",
        url: `${base}/jsonrpc`,
        preferredTransport: "JSONRPC",
        additionalInterfaces: [
          { url: base, transport: "HTTP+JSON" },
          { url: `${base}/jsonrpc`, transport: "JSONRPC" },
        ],
        supportsAuthenticatedExtendedCard: false,
        skills: [{ id: "echo", tags: [] }],
      });
      // The v1.0 entries first, as they were; then one v0.3 entry per v0.3 interface.
      expect(
        c.supportedInterfaces.map(
          (i: { protocolVersion: string; tenant?: string }) => `${i.protocolVersion}${i.tenant ? `/${i.tenant}` : ""}`,
        ),
      ).toEqual(["1.0", "1.0", "1.0/acme", "0.3", "0.3"]);
    }
    await agent.close();
  });

  it("with a2aV03: false, the card and both bindings are v1.0 only", async () => {
    const { call, rpc, agent } = setup({ a2aV03: false });
    const c = (await call("/.well-known/agent-card.json")).json;
    expect(c.protocolVersion).toBeUndefined();
    expect(c.supportedInterfaces).toHaveLength(3);
    expect((await rpc("message/send", { message: v03Message("x") })).error.code).toBe(-32009);
    const rest = await call("/v1/message:send", { body: { message: { messageId: "r", role: "ROLE_USER", content: [{ text: "x" }] } } });
    expect(rest.status).toBe(400);
    expect(rest.json.error.details[0].reason).toBe("VERSION_NOT_SUPPORTED");
    await agent.close();
  });
});
