/**
 * Our generated client (gen/a2a_http_client.ts) against the A2A JS SDK's own
 * Express REST server (`restHandler`), with and without a tenant: all 11
 * operations, streaming and subscribe, and errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { TaskState, type StreamResponse, type Task } from "../../../gen/a2a_pb.js";
import { RpcError } from "a2a-http";
import { startSdkServer, type SdkServer } from "./harness/sdk-server.js";
import { cases, collect, recordingFetch, rejection, streamFailure, userMessage, type RecordingFetch } from "./harness/util.js";

function asRpcError(e: unknown): RpcError {
  expect(e).toBeInstanceOf(RpcError);
  return e as RpcError;
}

function textOf(task: Task | undefined): string[] {
  return (task?.artifacts ?? []).flatMap((a) => a.parts.map((p) => (p.content.case === "text" ? p.content.value : "")));
}

describe.each([
  { label: "no tenant", tenant: "" },
  { label: "tenant acme", tenant: "acme" },
  { label: "tenant with reserved characters", tenant: "team a/b:c" },
])("our client -> SDK REST server ($label)", ({ tenant }) => {
  let sdk: SdkServer;
  let client: A2AServiceClient;
  let rec: RecordingFetch;

  beforeAll(async () => {
    sdk = await startSdkServer({ tenant });
    rec = recordingFetch();
    client = createA2AServiceClient({ baseUrl: sdk.url, tenant, fetch: rec.fetch });
  });
  afterAll(async () => {
    await sdk?.close();
  });

  /** A task kept WORKING by the SDK peer until canceled. */
  async function waitingTask(): Promise<Task> {
    const res = await client.sendMessage({ message: userMessage("wait"), configuration: { returnImmediately: true } });
    expect(res.payload.case).toBe("task");
    return res.payload.value as Task;
  }

  async function completedTask(text = "hello"): Promise<Task> {
    const res = await client.sendMessage({ message: userMessage(text) });
    expect(res.payload.case).toBe("task");
    const task = res.payload.value as Task;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    return task;
  }

  it("SendMessage: a completed task with the echo artifact", async () => {
    const task = await completedTask("hello there");
    expect(task.id).not.toBe("");
    expect(textOf(task)).toEqual(["echo: hello there"]);
    expect(task.history.length).toBeGreaterThan(0);
  });

  it("SendMessage: a Message answer", async () => {
    const res = await client.sendMessage({ message: userMessage("message hi") });
    expect(res.payload.case).toBe("message");
    if (res.payload.case !== "message") return;
    const part = res.payload.value.parts[0]?.content;
    expect(part?.case === "text" ? part.value : undefined).toBe("reply: hi");
  });

  it("SendStreamingMessage: Task first, then the artifact and the terminal status", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("stream me") }));
    expect(events[0]?.payload.case).toBe("task");
    expect(cases(events)).toContain("artifactUpdate");
    const last = events.at(-1)!;
    expect(last.payload.case).toBe("statusUpdate");
    if (last.payload.case === "statusUpdate") expect(last.payload.value.status?.state).toBe(TaskState.COMPLETED);
    const artifact = events.find((e) => e.payload.case === "artifactUpdate")!;
    if (artifact.payload.case === "artifactUpdate") {
      const c = artifact.payload.value.artifact?.parts[0]?.content;
      expect(c?.case === "text" ? c.value : undefined).toBe("echo: stream me");
    }
  });

  it("SendStreamingMessage: a Message-only stream", async () => {
    const events = await collect(client.sendStreamingMessage({ message: userMessage("message streamed") }));
    expect(cases(events)).toEqual(["message"]);
  });

  it("GetTask, with historyLength", async () => {
    const task = await completedTask();
    const got = await client.getTask({ id: task.id });
    expect(got.id).toBe(task.id);
    expect(got.status?.state).toBe(TaskState.COMPLETED);
    expect(textOf(got)).toEqual(["echo: hello"]);
    const noHistory = await client.getTask({ id: task.id, historyLength: 0 });
    expect(noHistory.history).toEqual([]);
  });

  it("ListTasks: filters by context and status, pages", async () => {
    const contextId = crypto.randomUUID();
    const a = await client.sendMessage({ message: userMessage("one", { contextId }) });
    const b = await client.sendMessage({ message: userMessage("input", { contextId }) });
    const ids = [a, b].map((r) => (r.payload.value as Task).id);

    const all = await client.listTasks({ contextId });
    expect(all.tasks.map((t) => t.id).sort()).toEqual([...ids].sort());
    expect(all.totalSize).toBe(2);

    const inputOnly = await client.listTasks({ contextId, status: TaskState.INPUT_REQUIRED });
    expect(inputOnly.tasks.map((t) => t.id)).toEqual([ids[1]]);

    const page1 = await client.listTasks({ contextId, pageSize: 1 });
    expect(page1.tasks).toHaveLength(1);
    expect(page1.nextPageToken).not.toBe("");
    const page2 = await client.listTasks({ contextId, pageSize: 1, pageToken: page1.nextPageToken });
    expect(page2.tasks).toHaveLength(1);
    expect(new Set([page1.tasks[0]!.id, page2.tasks[0]!.id])).toEqual(new Set(ids));

    const withArtifacts = await client.listTasks({ contextId, includeArtifacts: true, status: TaskState.COMPLETED });
    expect(withArtifacts.tasks.map(textOf)).toEqual([["echo: one"]]);
  });

  it("CancelTask: a working task ends CANCELED", async () => {
    const task = await waitingTask();
    const canceled = await client.cancelTask({ id: task.id });
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
    expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.CANCELED);
  });

  it("SubscribeToTask: Task first, then the cancel arrives and the stream ends", async () => {
    const task = await waitingTask();
    const it = client.subscribeToTask({ id: task.id })[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    expect((first.value as StreamResponse).payload.case).toBe("task");
    expect(((first.value as StreamResponse).payload.value as Task).id).toBe(task.id);

    await client.cancelTask({ id: task.id });
    const rest: StreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    const states = rest.flatMap((e) => (e.payload.case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states.at(-1)).toBe(TaskState.CANCELED);
  });

  it("Create/Get/List/Delete TaskPushNotificationConfig (SDK answers 201 and 204)", async () => {
    const task = await completedTask();
    const created = await client.createTaskPushNotificationConfig({
      taskId: task.id,
      id: "cfg-1",
      url: "http://127.0.0.1:9/hook",
      token: "secret",
      authentication: { scheme: "Bearer", credentials: "abc" },
    });
    expect(created.id).toBe("cfg-1");
    expect(created.authentication?.scheme).toBe("Bearer");
    expect(created.authentication?.credentials).toBe("abc");
    expect(created.taskId).toBe(task.id);
    expect(created.url).toBe("http://127.0.0.1:9/hook");

    const got = await client.getTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });
    expect(got.url).toBe("http://127.0.0.1:9/hook");
    expect(got.token).toBe("secret");

    const listed = await client.listTaskPushNotificationConfigs({ taskId: task.id });
    expect(listed.configs.map((c) => c.id)).toEqual(["cfg-1"]);

    const deleted = await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });
    expect(deleted).toBeDefined();
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    // The SDK's delete is idempotent: a second delete is another 204.
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id: "cfg-1" });

    const statuses = rec.calls
      .filter((c) => c.url.includes(`/tasks/${task.id}/pushNotificationConfigs`))
      .map((c) => `${c.method} ${c.status}`);
    expect(statuses).toEqual(["POST 201", "GET 200", "GET 200", "DELETE 204", "GET 200", "DELETE 204"]);
  });

  it("path values with reserved characters: we escape every byte but [-_.~0-9a-zA-Z], Express decodes", async () => {
    const task = await completedTask();
    const id = "cfg/1 x:y!*'()%";
    expect((await client.createTaskPushNotificationConfig({ taskId: task.id, id, url: "http://127.0.0.1:9/hook" })).id).toBe(id);
    expect((await client.getTaskPushNotificationConfig({ taskId: task.id, id })).id).toBe(id);
    await client.deleteTaskPushNotificationConfig({ taskId: task.id, id });
    expect((await client.listTaskPushNotificationConfigs({ taskId: task.id })).configs).toEqual([]);
    const get = rec.calls.find((c) => c.method === "GET" && c.url.includes("/pushNotificationConfigs/cfg%2F"));
    expect(get?.url).toContain("/pushNotificationConfigs/cfg%2F1%20x%3Ay%21%2A%27%28%29%25");
  });

  it("GetExtendedAgentCard", async () => {
    const card = await client.getExtendedAgentCard({});
    expect(card.name).toBe("SDK peer (extended)");
    expect(card.supportedInterfaces[0]?.url).toBe(sdk.url);
    expect(card.supportedInterfaces[0]?.protocolBinding).toBe("HTTP+JSON");
  });

  describe("errors", () => {
    it("GetTask of an unknown task: TASK_NOT_FOUND, 404", async () => {
      const e = asRpcError(await rejection(client.getTask({ id: "no-such-task" })));
      expect(e.httpStatus).toBe(404);
      expect(e.status).toBe("NOT_FOUND");
      expect(e.reason).toBe("TASK_NOT_FOUND");
    });

    it("CancelTask of a completed task: TASK_NOT_CANCELABLE, 400", async () => {
      const task = await completedTask();
      const e = asRpcError(await rejection(client.cancelTask({ id: task.id })));
      expect(e.httpStatus).toBe(400);
      expect(e.status).toBe("FAILED_PRECONDITION");
      expect(e.reason).toBe("TASK_NOT_CANCELABLE");
    });

    it("CancelTask of an unknown task: TASK_NOT_FOUND", async () => {
      const e = asRpcError(await rejection(client.cancelTask({ id: "no-such-task" })));
      expect(e.reason).toBe("TASK_NOT_FOUND");
    });

    it("SubscribeToTask of a completed task: UNSUPPORTED_OPERATION before any event", async () => {
      const task = await completedTask();
      const { error, before } = await streamFailure(client.subscribeToTask({ id: task.id }));
      expect(before).toEqual([]);
      const e = asRpcError(error);
      expect(e.httpStatus).toBe(400);
      expect(e.reason).toBe("UNSUPPORTED_OPERATION");
    });

    it("SubscribeToTask of an unknown task: TASK_NOT_FOUND", async () => {
      const { error } = await streamFailure(client.subscribeToTask({ id: "no-such-task" }));
      expect(asRpcError(error).reason).toBe("TASK_NOT_FOUND");
    });

    it("SendStreamingMessage continuing an unknown task: TASK_NOT_FOUND before the stream", async () => {
      const { error, before } = await streamFailure(
        client.sendStreamingMessage({ message: userMessage("hello", { taskId: "no-such-task" }) }),
      );
      expect(before).toEqual([]);
      expect(asRpcError(error).reason).toBe("TASK_NOT_FOUND");
    });

    it("GetTaskPushNotificationConfig of an unknown id: 404 (the SDK says TASK_NOT_FOUND)", async () => {
      const task = await completedTask();
      const e = asRpcError(await rejection(client.getTaskPushNotificationConfig({ taskId: task.id, id: "nope" })));
      expect(e.httpStatus).toBe(404);
      expect(e.reason).toBe("TASK_NOT_FOUND");
    });

    it("a path the SDK's Express router does not know: its HTML 404 becomes an RpcError NOT_FOUND without a reason", async () => {
      const wrong = createA2AServiceClient({ baseUrl: `${sdk.origin}/nowhere`, tenant });
      const e = asRpcError(await rejection(wrong.getTask({ id: "x" })));
      expect(e.httpStatus).toBe(404);
      expect(e.status).toBe("NOT_FOUND");
      expect(e.reason).toBeUndefined();
    });

    it("A2A-Version 2.0: VERSION_NOT_SUPPORTED", async () => {
      const e = asRpcError(await rejection(client.getTask({ id: "x" }, { headers: { "A2A-Version": "2.0" } })));
      expect(e.httpStatus).toBe(400);
      expect(e.reason).toBe("VERSION_NOT_SUPPORTED");
    });

    it("A2A-Version 1.0.0 is refused by the SDK (exact string match, not Major.Minor)", async () => {
      const e = asRpcError(await rejection(client.getTask({ id: "x" }, { headers: { "A2A-Version": "1.0.0" } })));
      expect(e.reason).toBe("VERSION_NOT_SUPPORTED");
    });
  });

  describe("on the wire", () => {
    it("every call carries A2A-Version 1.0; Content-Type only with a body", () => {
      expect(rec.calls.length).toBeGreaterThan(10);
      for (const c of rec.calls) {
        if (c.headers.get("A2A-Version") !== "1.0") continue; // the explicit version-error cases
        expect(c.headers.has("Content-Type")).toBe(c.body !== undefined);
      }
      expect(rec.calls.every((c) => c.headers.has("A2A-Version"))).toBe(true);
    });

    it("subscribe is POST; the tenant is the path prefix exactly when the card sets one", () => {
      const subscribe = rec.calls.filter((c) => c.url.endsWith(":subscribe"));
      expect(subscribe.length).toBeGreaterThan(0);
      expect(subscribe.every((c) => c.method === "POST")).toBe(true);
      const prefix = tenant ? `${sdk.url}/${encodeURIComponent(tenant)}/` : `${sdk.url}/`;
      for (const c of rec.calls) {
        expect(c.url.startsWith(prefix)).toBe(true);
        if (!tenant) expect(c.url.startsWith(`${sdk.url}/acme/`)).toBe(false);
      }
    });

    it("the SDK answers unary calls as application/a2a+json, which the client reads", () => {
      const ok = rec.calls.filter((c) => c.status === 200 && !c.url.includes(":s"));
      expect(ok.length).toBeGreaterThan(0);
      for (const c of ok) expect(c.responseType).toMatch(/^application\/a2a\+json/);
    });
  });

  it.runIf(tenant !== "")("tenant scoping: a task made under the tenant is not found without it", async () => {
    const task = await completedTask();
    const plain = createA2AServiceClient({ baseUrl: sdk.url });
    const e = asRpcError(await rejection(plain.getTask({ id: task.id })));
    expect(e.reason).toBe("TASK_NOT_FOUND");
    // ...and an explicit tenant in the request picks the tenant route too.
    const again = await plain.getTask({ id: task.id, tenant });
    expect(again.id).toBe(task.id);
  });
});

describe("our client -> SDK REST server without an extended card", () => {
  let sdk: SdkServer;
  beforeAll(async () => {
    sdk = await startSdkServer({ extendedCard: false });
  });
  afterAll(async () => {
    await sdk?.close();
  });

  it("GetExtendedAgentCard: EXTENDED_AGENT_CARD_NOT_CONFIGURED", async () => {
    const client = createA2AServiceClient({ baseUrl: sdk.url });
    const e = asRpcError(await rejection(client.getExtendedAgentCard({})));
    expect(e.httpStatus).toBe(400);
    expect(e.reason).toBe("EXTENDED_AGENT_CARD_NOT_CONFIGURED");
  });

  it("a client set to send application/json is accepted too", async () => {
    const client = createA2AServiceClient({ baseUrl: sdk.url, contentType: "application/json" });
    const res = await client.sendMessage({ message: userMessage("message json") });
    expect(res.payload.case).toBe("message");
  });
});
