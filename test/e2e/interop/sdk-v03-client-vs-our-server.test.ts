/**
 * The A2A v0.3 clients most agents and tools still ship, @a2a-js/sdk 0.3.14
 * (the devDependency alias a2a-sdk-v03), against the example agent as
 * example/server.ts serves it (HTTP+JSON at the root, JSON-RPC at /jsonrpc,
 * the card at /.well-known/agent-card.json), on each framework: the legacy
 * `A2AClient.fromCardUrl` (JSON-RPC), and `ClientFactory` with only the
 * JSON-RPC transport and with only the REST one, each picking its endpoint
 * from the card's v0.3 fields. Then, with plain fetch, the rules that decide
 * which version a request speaks, that tasks cross versions, that malformed
 * v0.3 input is refused by name with nothing stored, and the card.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { v03Rpc } from "../v03-rpc.js";
import type {
  AgentCard as V03AgentCard,
  Message as V03Message,
  MessageSendParams,
  Task as V03Task,
  TaskArtifactUpdateEvent,
  TaskPushNotificationConfig,
  TaskStatusUpdateEvent,
} from "a2a-sdk-v03";
import {
  A2AClient,
  ClientFactory,
  JsonRpcTransport,
  JsonRpcTransportFactory,
  RestTransport,
  RestTransportFactory,
  TaskNotCancelableError,
  TaskNotFoundError,
  type Client,
} from "a2a-sdk-v03/client";
import { startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { frameworks } from "./harness/our-server.js";
import { recordingFetch, rejection, type RecordingFetch } from "./harness/util.js";

type V03Event = V03Message | V03Task | TaskStatusUpdateEvent | TaskArtifactUpdateEvent;

/** One v0.3 SDK client behind the calls the tests make; errors thrown, whatever the client's own way of giving them. */
interface V03Client {
  /** How the SDK gives errors: as typed errors (ClientFactory's clients), or as JSON-RPC error answers (legacy A2AClient). */
  readonly typedErrors: boolean;
  /** `signal` aborts the call (ClientFactory's clients; the legacy client takes none). */
  send(params: MessageSendParams, signal?: AbortSignal): Promise<V03Task | V03Message>;
  stream(params: MessageSendParams): AsyncGenerator<V03Event>;
  getTask(params: { id: string; historyLength?: number }): Promise<V03Task>;
  cancelTask(params: { id: string }): Promise<V03Task>;
  resubscribe(params: { id: string }): AsyncGenerator<V03Event>;
  setPush(params: TaskPushNotificationConfig): Promise<TaskPushNotificationConfig>;
  getPush(params: { id: string; pushNotificationConfigId: string }): Promise<TaskPushNotificationConfig>;
  listPush(params: { id: string }): Promise<TaskPushNotificationConfig[]>;
  deletePush(params: { id: string; pushNotificationConfigId: string }): Promise<void>;
  extendedCard(): Promise<V03AgentCard>;
}

/** A JSON-RPC error answer the legacy A2AClient returned (it does not throw), thrown. */
class RpcErrorAnswer extends Error {
  constructor(readonly error: { code: number; message: string; data?: unknown }) {
    super(`JSON-RPC error ${error.code}: ${error.message}`);
  }
}

/** The legacy client's answer: its `result`, or its `error` thrown. */
function unwrap<T>(answer: { result: T } | { error: { code: number; message: string } }): T {
  if ("error" in answer) throw new RpcErrorAnswer(answer.error);
  return answer.result;
}

function legacyClient(c: A2AClient): V03Client {
  return {
    typedErrors: false,
    send: async (p) => unwrap(await c.sendMessage(p)) as V03Task | V03Message,
    stream: (p) => c.sendMessageStream(p),
    getTask: async (p) => unwrap(await c.getTask(p)) as V03Task,
    cancelTask: async (p) => unwrap(await c.cancelTask(p)) as V03Task,
    resubscribe: (p) => c.resubscribeTask(p),
    setPush: async (p) => unwrap(await c.setTaskPushNotificationConfig(p)) as TaskPushNotificationConfig,
    // Typed as TaskIdParams in 0.3.14, sent as given: the config id travels too.
    getPush: async (p) => unwrap(await c.getTaskPushNotificationConfig(p)) as TaskPushNotificationConfig,
    listPush: async (p) => unwrap(await c.listTaskPushNotificationConfig(p)) as TaskPushNotificationConfig[],
    deletePush: async (p) => {
      unwrap(await c.deleteTaskPushNotificationConfig(p));
    },
    // The legacy client has no method for it; its extension-method call sends any method name.
    extendedCard: async () =>
      unwrap(
        await c.callExtensionMethod<undefined, { jsonrpc: "2.0"; id: number; result: V03AgentCard }>(
          "agent/getAuthenticatedExtendedCard",
          undefined,
        ),
      ),
  };
}

function factoryClient(c: Client): V03Client {
  return {
    typedErrors: true,
    send: (p, signal) => c.sendMessage(p, signal ? { signal } : undefined),
    stream: (p) => c.sendMessageStream(p),
    getTask: (p) => c.getTask(p),
    cancelTask: (p) => c.cancelTask(p),
    resubscribe: (p) => c.resubscribeTask(p),
    setPush: (p) => c.setTaskPushNotificationConfig(p),
    getPush: (p) => c.getTaskPushNotificationConfig(p),
    listPush: (p) => c.listTaskPushNotificationConfig(p),
    deletePush: (p) => c.deleteTaskPushNotificationConfig(p),
    // The transport's own call: Client.getAgentCard() makes it only when the card says supportsAuthenticatedExtendedCard.
    extendedCard: () => c.transport.getExtendedAgentCard(),
  };
}

type Variant = "A2AClient.fromCardUrl (JSON-RPC)" | "ClientFactory, JSON-RPC" | "ClientFactory, REST";
const variants: readonly Variant[] = ["A2AClient.fromCardUrl (JSON-RPC)", "ClientFactory, JSON-RPC", "ClientFactory, REST"];

/** A v0.3 user message whose only part is `text`. */
function message(text: string, extra: Partial<V03Message> = {}): V03Message {
  return { kind: "message", messageId: crypto.randomUUID(), role: "user", parts: [{ kind: "text", text }], ...extra };
}

function texts(parts: readonly { kind: string; text?: string }[] | undefined): string[] {
  return (parts ?? []).map((p) => (p.kind === "text" ? (p.text ?? "") : `<${p.kind}>`));
}

function artifactTexts(task: V03Task): string[] {
  return (task.artifacts ?? []).flatMap((a) => texts(a.parts));
}

/** Each event as [kind, what matters]: the state (and `final`) of tasks and status updates, the artifact's text. */
function summary(e: V03Event): unknown[] {
  switch (e.kind) {
    case "task":
      return ["task", e.status.state];
    case "status-update":
      return ["status-update", e.status.state, e.final];
    case "artifact-update":
      return ["artifact-update", ...texts(e.artifact.parts)];
    case "message":
      return ["message", ...texts(e.parts)];
  }
}

async function drain<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The JSON-RPC code of an error a v0.3 client gave: its answer's code, or the typed error's (JSON-RPC) or the REST body's code. */
function codeOf(e: unknown): number | undefined {
  if (e instanceof RpcErrorAnswer) return e.error.code;
  return (e as { errorResponse?: { error?: { code?: number } } }).errorResponse?.error?.code;
}

const V1 = { "a2a-version": "1.0" };

describe.each(frameworks)("@a2a-js/sdk 0.3.14 clients -> the example agent on %s", (framework) => {
  let agent: RunningAgent;
  let jsonRpcUrl: string;

  beforeAll(async () => {
    agent = await startExampleAgent({ framework, port: 0, grpcPort: -1 });
    jsonRpcUrl = agent.jsonRpcUrl!;
  });
  afterAll(async () => {
    await agent?.close();
  });

  /** v1.0's ListTasks of the default tenant: how many tasks the agent holds. */
  async function taskCount(): Promise<number> {
    const res = await fetch(`${agent.url}/tasks?pageSize=1`, { headers: V1 });
    expect(res.status).toBe(200);
    return ((await res.json()) as { totalSize: number }).totalSize;
  }

  describe.each(variants)("%s", (variant) => {
    let client: V03Client;
    let rec: RecordingFetch;
    const rest = variant === "ClientFactory, REST";

    beforeAll(async () => {
      rec = recordingFetch();
      if (variant === "A2AClient.fromCardUrl (JSON-RPC)") {
        client = legacyClient(await A2AClient.fromCardUrl(`${agent.url}/.well-known/agent-card.json`, { fetchImpl: rec.fetch }));
      } else {
        // One transport each: the factory must find its endpoint in the card (url + preferredTransport, additionalInterfaces).
        const factory = new ClientFactory({
          transports: [rest ? new RestTransportFactory({ fetchImpl: rec.fetch }) : new JsonRpcTransportFactory({ fetchImpl: rec.fetch })],
        });
        const c = await factory.createFromUrl(agent.url);
        expect(c.transport).toBeInstanceOf(rest ? RestTransport : JsonRpcTransport);
        client = factoryClient(c);
      }
    });

    /**
     * A task left WORKING (the example's `/wait`), sent without blocking as
     * v0.3 JSON-RPC (the REST client cannot send it so: see the blocking test).
     */
    async function working(): Promise<V03Task> {
      const task = (await v03Rpc<V03Task>(jsonRpcUrl, "message/send", { message: message("/wait"), configuration: { blocking: false } }))
        .result;
      expect(task.kind).toBe("task");
      expect(task.status.state).toBe("working");
      return task;
    }

    async function completed(text = "hello"): Promise<V03Task> {
      const task = (await client.send({ message: message(text) })) as V03Task;
      expect(task.kind).toBe("task");
      expect(task.status.state).toBe("completed");
      return task;
    }

    it("reaches the endpoint the card names for its transport, without A2A-Version", async () => {
      await completed();
      const call = rec.calls.at(-1)!;
      expect(call.method).toBe("POST");
      expect(call.url).toBe(rest ? `${agent.url}/v1/message:send` : jsonRpcUrl);
      if (!rest) expect(JSON.parse(call.body!).method).toBe("message/send");
      expect(call.headers.get("a2a-version")).toBeNull();
      expect(call.status).toBe(200);
    });

    it("message/send (blocking): a Task with kind task, lower-case state, the artifact's text; a Message for /message", async () => {
      const contextId = crypto.randomUUID();
      const task = (await client.send({ message: message("hello v0.3", { contextId }) })) as V03Task;
      expect(task).toMatchObject({ kind: "task", contextId, status: { state: "completed" } });
      expect(task.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(artifactTexts(task)).toEqual(["echo: hello v0.3"]);
      expect(task.artifacts?.[0]?.artifactId).toBe(`${task.id}-echo`);
      expect(task.history?.map((m) => [m.kind, m.role, texts(m.parts)])).toEqual([["message", "user", ["hello v0.3"]]]);

      const reply = (await client.send({ message: message("/message hi there") })) as V03Message;
      expect(reply).toMatchObject({ kind: "message", role: "agent" });
      expect(texts(reply.parts)).toEqual(["hi there"]);
    });

    // @a2a-js/sdk 0.3's REST transport writes `blocking: false` as `"configuration": {}` (ProtoJSON leaves out a
    // false bool): a configuration without `blocking: true` does not block (a2a-v03/proto-json.ts).
    it("message/send with blocking: false answers at once, the task still working", async () => {
      // Fails in a second rather than at the test's timeout when the server blocks (the abort closes the request).
      const task = (await client.send(
        { message: message("/wait"), configuration: { blocking: false } },
        AbortSignal.timeout(1000),
      )) as V03Task;
      expect(task).toMatchObject({ kind: "task", status: { state: "working" } });
      await client.cancelTask({ id: task.id });
    });

    it("message/stream: task, working (final false), artifact, completed (final true), in that order", async () => {
      const events = await drain(client.stream({ message: message("streamed") }));
      expect(events.map(summary)).toEqual([
        ["task", "submitted"],
        ["status-update", "working", false],
        ["artifact-update", "echo: streamed"],
        ["status-update", "completed", true],
      ]);
      const id = (events[0] as V03Task).id;
      for (const e of events.slice(1)) expect((e as TaskStatusUpdateEvent).taskId).toBe(id);
      if (!rest) expect(rec.calls.at(-1)?.responseType).toMatch(/^text\/event-stream/);
    });

    it("tasks/get: the task, its history cut to historyLength", async () => {
      // Two turns: /input stops in input-required, the second message completes it.
      const first = (await client.send({ message: message("/input") })) as V03Task;
      expect(first.status.state).toBe("input-required");
      expect(texts(first.status.message?.parts)).toEqual(["What else do you need?"]);
      const second = (await client.send({ message: message("second", { taskId: first.id, contextId: first.contextId }) })) as V03Task;
      expect(second.id).toBe(first.id);
      expect(second.status.state).toBe("completed");

      const full = await client.getTask({ id: first.id });
      expect(full).toMatchObject({ kind: "task", id: first.id, contextId: first.contextId, status: { state: "completed" } });
      expect(artifactTexts(full)).toEqual(["echo: second"]);
      const history = full.history?.map((m) => [m.role, ...texts(m.parts)]);
      expect(history?.[0]).toEqual(["user", "/input"]);
      expect(history?.at(-1)).toEqual(["user", "second"]);
      expect(history).toContainEqual(["agent", "What else do you need?"]);

      const last = await client.getTask({ id: first.id, historyLength: 1 });
      expect(last.history?.map((m) => [m.role, ...texts(m.parts)])).toEqual([["user", "second"]]);
      const none = await client.getTask({ id: first.id, historyLength: 0 });
      expect(none.history ?? []).toEqual([]);
      expect(none.status.state).toBe("completed");
    });

    it("tasks/cancel of a working task: canceled, and tasks/get says so", async () => {
      const task = await working();
      const canceled = await client.cancelTask({ id: task.id });
      expect(canceled).toMatchObject({ kind: "task", id: task.id, status: { state: "canceled" } });
      expect((await client.getTask({ id: task.id })).status.state).toBe("canceled");
    });

    it("tasks/cancel of a completed task: TaskNotCancelableError (-32002)", async () => {
      const task = await completed();
      const e = await rejection(client.cancelTask({ id: task.id }));
      if (client.typedErrors) expect(e).toBeInstanceOf(TaskNotCancelableError);
      if (!rest) expect(codeOf(e)).toBe(-32002);
    });

    it("tasks/resubscribe to a working task: the task first; a cancel ends the stream with canceled, final true", async () => {
      const task = await working();
      const it = client.resubscribe({ id: task.id })[Symbol.asyncIterator]();
      const first = await it.next();
      expect(summary(first.value as V03Event)).toEqual(["task", "working"]);
      expect((first.value as V03Task).id).toBe(task.id);
      await client.cancelTask({ id: task.id });
      const rest: V03Event[] = [];
      for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
      expect(rest.map(summary).at(-1)).toEqual(["status-update", "canceled", true]);
    });

    it("tasks/pushNotificationConfig set / get / list / delete", async () => {
      const task = await completed();
      const url = "http://127.0.0.1:9/hook";
      const set = await client.setPush({ taskId: task.id, pushNotificationConfig: { id: "cfg-1", url, token: "tok-1" } });
      expect(set).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: "cfg-1", url, token: "tok-1" } });
      await client.setPush({
        taskId: task.id,
        pushNotificationConfig: { id: "cfg-2", url, authentication: { schemes: ["Bearer"], credentials: "secret" } },
      });

      const got = await client.getPush({ id: task.id, pushNotificationConfigId: "cfg-1" });
      expect(got).toMatchObject({ taskId: task.id, pushNotificationConfig: { id: "cfg-1", url, token: "tok-1" } });
      const got2 = await client.getPush({ id: task.id, pushNotificationConfigId: "cfg-2" });
      expect(got2.pushNotificationConfig.authentication?.schemes).toEqual(["Bearer"]);

      const listed = await client.listPush({ id: task.id });
      expect(listed.map((c) => [c.taskId, c.pushNotificationConfig.id]).sort()).toEqual([
        [task.id, "cfg-1"],
        [task.id, "cfg-2"],
      ]);

      await client.deletePush({ id: task.id, pushNotificationConfigId: "cfg-1" });
      expect((await client.listPush({ id: task.id })).map((c) => c.pushNotificationConfig.id)).toEqual(["cfg-2"]);
      const e = await rejection(client.getPush({ id: task.id, pushNotificationConfigId: "cfg-1" }));
      if (client.typedErrors) expect(e).toBeInstanceOf(TaskNotFoundError);
      if (!rest) expect(codeOf(e)).toBe(-32001);
    });

    it("tasks/get of an unknown task: TaskNotFoundError (-32001)", async () => {
      const e = await rejection(client.getTask({ id: "no-such-task" }));
      if (client.typedErrors) expect(e).toBeInstanceOf(TaskNotFoundError);
      if (!rest) expect(codeOf(e)).toBe(-32001);
      if (rest) expect((e as Error).message).toContain("task not found");
    });

    // On JSON-RPC the error must come as an SSE error event: the SDK's JSON-RPC transport reads nothing but
    // text/event-stream on a stream ("Invalid response Content-Type for SSE stream" otherwise).
    it("tasks/resubscribe to an unknown task: TaskNotFoundError (-32001)", async () => {
      const e = await rejection(drain(client.resubscribe({ id: "no-such-task" })));
      // A JSON-RPC stream's error comes as the cause of the SDK's Error (an SSE error event).
      const typed = rest ? e : (e as Error).cause;
      expect(typed, String(e)).toBeInstanceOf(TaskNotFoundError);
    });

    it("agent/getAuthenticatedExtendedCard: the extended card, with v0.3's fields", async () => {
      const card = await client.extendedCard();
      expect(card.skills.map((s) => s.id)).toEqual(["echo", "extended-echo"]);
      expect(card.protocolVersion).toBe("0.3.0");
      expect(card.url).toBe(jsonRpcUrl);
      expect(card.preferredTransport).toBe("JSONRPC");
      expect(card.capabilities).toMatchObject({ streaming: true, pushNotifications: true });
      if (rest) expect(rec.calls.at(-1)?.url).toBe(`${agent.url}/v1/card`);
    });

    it("a task sent by a v1.0 client is read by this one", async () => {
      const res = await fetch(`${agent.url}/message:send`, {
        method: "POST",
        headers: { ...V1, "content-type": "application/json" },
        body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text: "from v1.0" }] } }),
      });
      expect(res.status).toBe(200);
      const { task } = (await res.json()) as { task: { id: string } };
      const read = await client.getTask({ id: task.id });
      expect(read).toMatchObject({ kind: "task", id: task.id, status: { state: "completed" } });
      expect(artifactTexts(read)).toEqual(["echo: from v1.0"]);
      expect(read.history?.map((m) => [m.role, ...texts(m.parts)])).toEqual([["user", "from v1.0"]]);
    });
  });

  describe("the wire, with plain fetch", () => {
    async function rpc(body: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(jsonRpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify(body),
      });
      expect(res.status).toBe(200);
      return (await res.json()) as { id: unknown; result?: Record<string, unknown>; error?: { code: number; message: string } };
    }

    async function restCall(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
      const res = await fetch(agent.url + path, {
        method,
        headers: { ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
        ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) }),
      });
      return { status: res.status, json: (await res.json()) as Record<string, unknown> };
    }

    const v1Message = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] });
    const v03RestMessage = (text: string) => ({ messageId: crypto.randomUUID(), role: "ROLE_USER", content: [{ text }] });

    it("a v1.0 method without A2A-Version is -32009 VersionNotSupported, not served", async () => {
      const before = await taskCount();
      const r = await rpc({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: v1Message("unversioned") } });
      expect(r.error?.code).toBe(-32009);
      expect(r.id).toBe(1);
      expect(await taskCount()).toBe(before);
    });

    it("a v0.3 method with A2A-Version: 1.0 is -32601 method not found", async () => {
      const r = await rpc(
        { jsonrpc: "2.0", id: 2, method: "message/send", params: { message: message("versioned") } },
        { "a2a-version": "1.0" },
      );
      expect(r.error?.code).toBe(-32601);
      const r2 = await rpc({ jsonrpc: "2.0", id: 3, method: "tasks/get", params: { id: "x" } }, { "a2a-version": "1.0" });
      expect(r2.error?.code).toBe(-32601);
    });

    it("a v0.3 method with A2A-Version: 0.3 is served", async () => {
      const r = await rpc(
        { jsonrpc: "2.0", id: 4, method: "message/send", params: { message: message("point three") } },
        { "a2a-version": "0.3" },
      );
      expect(r.result).toMatchObject({ kind: "task", status: { state: "completed" } });
    });

    it("POST /v1/message:send with A2A-Version: 1.0 is a v1.0 request in tenant v1", async () => {
      const r = await restCall("POST", "/v1/message:send", { message: v1Message("tenant v1") }, V1);
      expect(r.status).toBe(200);
      const task = (r.json as { task: { id: string; status: { state: string }; history: { parts: unknown[] }[] } }).task;
      // v1.0's shape: parts (not v0.3's content).
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(task.history[0]!.parts).toEqual([{ text: "tenant v1" }]);
      // In tenant "v1": found there, not in the default tenant, not by a v0.3 request (v0.3 has no tenants).
      const inV1 = await restCall("GET", `/v1/tasks/${task.id}`, undefined, V1);
      expect(inV1.status).toBe(200);
      expect(inV1.json["id"]).toBe(task.id);
      const inDefault = await restCall("GET", `/tasks/${task.id}`, undefined, V1);
      expect(inDefault.status).toBe(404);
      const asV03 = await restCall("GET", `/v1/tasks/${task.id}`);
      expect(asV03.status).toBe(404);
      expect(asV03.json["code"]).toBe(-32001);
    });

    it("POST /v1/message:send without A2A-Version is v0.3, its task in the default tenant, read by v1.0", async () => {
      const r = await restCall("POST", "/v1/message:send", { message: v03RestMessage("from v0.3") });
      expect(r.status).toBe(200);
      type V03RestTask = { id: string; status: { state: string }; history: { content: unknown[] }[] };
      const task = (r.json as { task: V03RestTask }).task;
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(task.history[0]!.content).toEqual([{ text: "from v0.3" }]);
      // The same task through v1.0's GetTask, in v1.0's shape.
      const v1 = await restCall("GET", `/tasks/${task.id}`, undefined, V1);
      expect(v1.status).toBe(200);
      expect(v1.json).toMatchObject({
        id: task.id,
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "echo: from v0.3" }] }],
        history: [{ role: "ROLE_USER", parts: [{ text: "from v0.3" }] }],
      });
      // And v0.3's GetTask, in v0.3's.
      const v03 = await restCall("GET", `/v1/tasks/${task.id}?historyLength=0`);
      expect(v03.status).toBe(200);
      expect(v03.json).toMatchObject({
        id: task.id,
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "echo: from v0.3" }] }],
      });
      expect(v03.json["history"] ?? []).toEqual([]);
    });

    it("a task sent by the v0.3 JSON-RPC client is read by v1.0 (GET /tasks/{id})", async () => {
      const r = await rpc({ jsonrpc: "2.0", id: 5, method: "message/send", params: { message: message("v0.3 to v1.0") } });
      const id = (r.result as { id: string }).id;
      const v1 = await restCall("GET", `/tasks/${id}`, undefined, V1);
      expect(v1.status).toBe(200);
      expect(v1.json).toMatchObject({
        id,
        status: { state: "TASK_STATE_COMPLETED" },
        artifacts: [{ parts: [{ text: "echo: v0.3 to v1.0" }] }],
        history: [{ role: "ROLE_USER", parts: [{ text: "v0.3 to v1.0" }] }],
      });
    });

    const goodMessage = () => message("fine");
    const malformedRpc: [string, unknown, string][] = [
      ["a part without kind or text", { message: { ...goodMessage(), parts: [{ metadata: {} }] } }, "params.message.parts[0].kind"],
      ["a text part without text", { message: { ...goodMessage(), parts: [{ kind: "text" }] } }, "params.message.parts[0].text"],
      ["a bad role", { message: { ...goodMessage(), role: "robot" } }, "params.message.role"],
      ["params as an array", [goodMessage()], "params"],
      [
        "a file part with both bytes and uri",
        { message: { ...goodMessage(), parts: [{ kind: "file", file: { bytes: "aGk=", uri: "https://example.com/f.txt" } }] } },
        "params.message.parts[0].file",
      ],
    ];

    it.each(malformedRpc)("JSON-RPC message/send with %s: -32602 naming the field, nothing stored", async (_label, params, field) => {
      const before = await taskCount();
      const r = await rpc({ jsonrpc: "2.0", id: 9, method: "message/send", params });
      expect(r.id).toBe(9);
      expect(r.error?.code).toBe(-32602);
      expect(r.error?.message.startsWith(`${field}:`), r.error?.message).toBe(true);
      expect(await taskCount()).toBe(before);
    });

    const malformedRest: [string, unknown, string][] = [
      [
        "a part without text, file or data",
        { message: { ...v03RestMessage("x"), content: [{ metadata: {} }] } },
        "body.message.content[0]",
      ],
      ["a bad role", { message: { ...v03RestMessage("x"), role: "robot" } }, "message.role"],
      ["a body that is an array", [v03RestMessage("x")], "body"],
      [
        "a file part with both bytes and uri",
        { message: { ...v03RestMessage("x"), content: [{ file: { fileWithBytes: "aGk=", fileWithUri: "https://example.com/f.txt" } }] } },
        "body.message.content[0].file",
      ],
    ];

    it.each(malformedRest)(
      "REST POST /v1/message:send with %s: 400, code -32602 naming the field, nothing stored",
      async (_label, body, field) => {
        const before = await taskCount();
        const r = await restCall("POST", "/v1/message:send", body);
        expect(r.status).toBe(400);
        expect(r.json["code"]).toBe(-32602);
        expect(String(r.json["message"])).toContain(field);
        expect(await taskCount()).toBe(before);
      },
    );

    // A v0.3 stream that fails before its first event is an SSE stream of that one error (as @a2a-js/sdk 0.3's
    // server sends it; its clients read nothing else), not v1.0's plain application/json answer.
    it("JSON-RPC tasks/resubscribe of an unknown task: an SSE stream whose one event is the -32001 error", async () => {
      const res = await fetch(jsonRpcUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "text/event-stream" },
        body: JSON.stringify({ jsonrpc: "2.0", id: "r-1", method: "tasks/resubscribe", params: { id: "no-such-task" } }),
      });
      expect(res.status).toBe(200);
      expect(res.headers.get("content-type")).toMatch(/^text\/event-stream/);
      const events = (await res.text())
        .split("\n\n")
        .map((e) => e.split("\n").find((l) => l.startsWith("data: ")))
        .filter((l) => l !== undefined)
        .map((l) => JSON.parse(l.slice(6)));
      expect(events).toEqual([{ jsonrpc: "2.0", id: "r-1", error: expect.objectContaining({ code: -32001 }) }]);
    });

    it("REST errors are v0.3's {code, message, data} with v1.0's HTTP status", async () => {
      const r = await restCall("GET", "/v1/tasks/no-such-task");
      expect(r.status).toBe(404);
      expect(r.json).toMatchObject({ code: -32001, message: "task not found" });
      expect(Array.isArray(r.json["data"])).toBe(true);
      // The id is in the details (ErrorInfo's metadata), never echoed into the message.
      expect(JSON.stringify(r.json["data"])).toContain('"taskId":"no-such-task"');
      expect(r.json["error"]).toBeUndefined();
    });
  });

  describe("the card", () => {
    type Card = {
      protocolVersion: string;
      url: string;
      preferredTransport: string;
      additionalInterfaces: { url: string; transport: string }[];
      supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    };

    async function card(path: string): Promise<{ status: number; card: Card }> {
      const res = await fetch(agent.url + path);
      return { status: res.status, card: res.status === 200 ? ((await res.json()) as Card) : (undefined as unknown as Card) };
    }

    function expectV03Fields(c: Card) {
      expect(c.protocolVersion).toBe("0.3.0");
      expect(c.url).toBe(jsonRpcUrl);
      expect(c.preferredTransport).toBe("JSONRPC");
      expect(c.additionalInterfaces).toEqual([
        { url: agent.url, transport: "HTTP+JSON" },
        { url: jsonRpcUrl, transport: "JSONRPC" },
      ]);
      for (const i of c.additionalInterfaces) expect(i.url).toMatch(/^https?:\/\/127\.0\.0\.1:\d+/);
      // v1.0 clients still find their interfaces first.
      expect(c.supportedInterfaces.slice(0, 2)).toEqual([
        { url: agent.url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      ]);
    }

    it("/.well-known/agent-card.json has v0.3's fields beside v1.0's", async () => {
      const r = await card("/.well-known/agent-card.json");
      expect(r.status).toBe(200);
      expectV03Fields(r.card);
    });

    it("/.well-known/agent.json (the v0.2 path) serves the same card", async () => {
      const r = await card("/.well-known/agent.json");
      expect(r.status).toBe(200);
      expectV03Fields(r.card);
    });
  });
});
