/**
 * Our generated client with `transport: "jsonrpc"` against the A2A JS SDK's
 * own JSON-RPC server (`jsonRpcHandler` over the same DefaultRequestHandler
 * as its REST server), with and without a tenant; the transport picked from
 * the SDK's card by `pickTransport`.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { create } from "@bufbuild/protobuf";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { AgentCardSchema, TaskState, type StreamResponse, type Task } from "../../../gen/a2a_pb.js";
import { RpcError, pickTransport } from "a2a-http";
import { startSdkServer, type SdkServer } from "./harness/sdk-server.js";
import { cases, collect, recordingFetch, rejection, streamFailure, userMessage, type RecordingFetch } from "./harness/util.js";

function asRpcError(e: unknown): RpcError {
  expect(e).toBeInstanceOf(RpcError);
  return e as RpcError;
}

describe.each([
  { label: "no tenant", tenant: "" },
  { label: "tenant acme", tenant: "acme" },
])("our JSON-RPC client -> SDK jsonRpcHandler ($label)", ({ tenant }) => {
  let sdk: SdkServer;
  let client: A2AServiceClient;
  let rec: RecordingFetch;

  beforeAll(async () => {
    // The SDK's jsonRpcHandler logs every error answer to console.error.
    vi.spyOn(console, "error").mockImplementation(() => {});
    sdk = await startSdkServer({ tenant });
    rec = recordingFetch();
    const card = await (await fetch(`${sdk.origin}/.well-known/agent-card.json`)).json();
    client = createA2AServiceClient({ ...pickTransport(card, ["JSONRPC", "HTTP+JSON"]), fetch: rec.fetch });
  });
  afterAll(async () => {
    vi.restoreAllMocks();
    await sdk?.close();
  });

  async function completedTask(text = "hello"): Promise<Task> {
    const res = await client.sendMessage({ message: userMessage(text) });
    expect(res.payload.case).toBe("task");
    expect((res.payload.value as Task).status?.state).toBe(TaskState.COMPLETED);
    return res.payload.value as Task;
  }

  async function waitingTask(): Promise<Task> {
    const res = await client.sendMessage({ message: userMessage("wait"), configuration: { returnImmediately: true } });
    expect(res.payload.case).toBe("task");
    return res.payload.value as Task;
  }

  it("the card's JSONRPC interface was picked: every call is a POST to it", async () => {
    await completedTask();
    expect(rec.calls.length).toBeGreaterThan(0);
    for (const c of rec.calls) {
      expect(c.url).toBe(sdk.jsonRpcUrl);
      expect(c.method).toBe("POST");
      expect(c.headers.get("content-type")).toBe("application/json");
      expect(c.headers.get("a2a-version")).toBe("1.0");
    }
  });

  it("SendMessage: a task, and a Message answer", async () => {
    await completedTask("hello there");
    const res = await client.sendMessage({ message: userMessage("message hi") });
    expect(res.payload.case).toBe("message");
  });

  it("SendStreamingMessage: Task first, the artifact, the terminal status", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("stream me") }));
    expect(events[0]?.payload.case).toBe("task");
    expect(cases(events)).toContain("artifactUpdate");
    const last = events.at(-1)!;
    expect(last.payload.case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.COMPLETED);
  });

  it("GetTask and ListTasks", async () => {
    const contextId = crypto.randomUUID();
    const res = await client.sendMessage({ message: userMessage("one", { contextId }) });
    const id = (res.payload.value as Task).id;
    expect((await client.getTask({ id })).id).toBe(id);
    expect((await client.getTask({ id, historyLength: 0 })).history).toEqual([]);
    const listed = await client.listTasks({ contextId });
    expect(listed.tasks.map((t) => t.id)).toEqual([id]);
  });

  it("CancelTask and SubscribeToTask", async () => {
    const task = await waitingTask();
    const it = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = await it.next();
    expect((first.value as StreamResponse).payload.case).toBe("task");
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    const rest: StreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    const states = rest.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states.at(-1)).toBe(TaskState.CANCELED);
  });

  it("push config create / get / list / delete (the SDK answers delete with result: null)", async () => {
    const task = await completedTask();
    const created = await client.createTaskPushNotificationConfig({
      taskId: task.id,
      id: "cfg-1",
      url: "http://127.0.0.1:9/hook",
      token: "s",
    });
    expect(created.id).toBe("cfg-1");
    expect((await client.getTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" })).token).toBe("s");
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs.map((c) => c.id)).toEqual(["cfg-1"]);
    expect(await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" })).toBeDefined();
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
  });

  it("GetExtendedAgentCard", async () => {
    const card = await client.getExtendedAgentCard({});
    expect(card.name).toBe("SDK peer (extended)");
  });

  describe("errors: the JSON-RPC code becomes the A2A reason and its google.rpc code", () => {
    it("GetTask of an unknown task: TASK_NOT_FOUND, NOT_FOUND", async () => {
      const e = asRpcError(await rejection(client.getTask({ id: "no-such-task" })));
      expect(e.status).toBe("NOT_FOUND");
      expect(e.reason).toBe("TASK_NOT_FOUND");
    });

    it("CancelTask of a completed task: TASK_NOT_CANCELABLE, FAILED_PRECONDITION", async () => {
      const task = await completedTask();
      const e = asRpcError(await rejection(client.cancelTask({ id: task.id })));
      expect(e.status).toBe("FAILED_PRECONDITION");
      expect(e.reason).toBe("TASK_NOT_CANCELABLE");
    });

    it("SubscribeToTask of a completed task: UNSUPPORTED_OPERATION before any event", async () => {
      const task = await completedTask();
      const { error, before } = await streamFailure(client.subscribeToTask({ id: task.id }));
      expect(before).toEqual([]);
      expect(asRpcError(error).reason).toBe("UNSUPPORTED_OPERATION");
    });

    it("A2A-Version 2.0: VERSION_NOT_SUPPORTED", async () => {
      const e = asRpcError(await rejection(client.getTask({ id: "x" }, { headers: { "A2A-Version": "2.0" } })));
      expect(e.reason).toBe("VERSION_NOT_SUPPORTED");
    });

    it("an aborted call is CANCELLED", async () => {
      const ctl = new AbortController();
      ctl.abort();
      const e = asRpcError(await rejection(client.getTask({ id: "x" }, { signal: ctl.signal })));
      expect(e.status).toBe("CANCELLED");
    });
  });

  it.runIf(tenant !== "")("the tenant goes in params.tenant and scopes the SDK's tasks", async () => {
    const task = await completedTask();
    const send = rec.calls.find((c) => c.body?.includes('"SendMessage"'));
    expect(JSON.parse(send!.body!).params.tenant).toBe(tenant);
    const other = createA2AServiceClient({ baseUrl: sdk.jsonRpcUrl, transport: "jsonrpc", tenant: "other" });
    expect(asRpcError(await rejection(other.getTask({ id: task.id }))).reason).toBe("TASK_NOT_FOUND");
  });
});

describe("pickTransport", () => {
  const card = {
    supportedInterfaces: [
      { url: "http://a/grpc", protocolBinding: "GRPC", protocolVersion: "1.0" },
      { url: "http://a/rest", protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "t" },
      { url: "http://a/old", protocolBinding: "JSONRPC", protocolVersion: "0.3" },
      { url: "http://a/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0.2" },
    ],
  };

  it("takes the client's first preference the card offers, passing over other versions", () => {
    expect(pickTransport(card, ["JSONRPC", "HTTP+JSON"])).toMatchObject({ transport: "jsonrpc", baseUrl: "http://a/rpc", tenant: "" });
    expect(pickTransport(card, ["HTTP+JSON", "JSONRPC"])).toMatchObject({ transport: "http+json", baseUrl: "http://a/rest", tenant: "t" });
  });

  it("without a preference, the card's order among the bindings this client speaks", () => {
    expect(pickTransport(card).baseUrl).toBe("http://a/rest");
  });

  it("takes a protobuf-es AgentCard too", () => {
    const message = create(AgentCardSchema, {
      supportedInterfaces: [{ url: "http://b", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    });
    expect(pickTransport(message)).toMatchObject({ transport: "jsonrpc", baseUrl: "http://b" });
  });

  it("nothing fits: FAILED_PRECONDITION naming what the card offers", () => {
    let thrown: unknown;
    try {
      pickTransport({ supportedInterfaces: [card.supportedInterfaces[0]!] });
    } catch (x) {
      thrown = x;
    }
    const e = asRpcError(thrown);
    expect(e.status).toBe("FAILED_PRECONDITION");
    expect(e.message).toContain("GRPC 1.0 at http://a/grpc");
  });
});
