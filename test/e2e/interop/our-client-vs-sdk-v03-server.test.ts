/**
 * Our generated A2A client, its typed v1.0 API unchanged, against an agent
 * that speaks only A2A v0.3: @a2a-js/sdk 0.3.14's server (JSON-RPC and REST
 * on Express) with an executor of our own. pickTransport reads the v0.3 card
 * and makes the client speak v0.3 (a2a-v03/client.ts); each call goes out in
 * v0.3's shapes and comes back as v1.0 messages: send, stream, get, cancel,
 * resubscribe, the push configs, the extended card, and the errors as the
 * v1.0 error reasons.
 */
import { randomUUID } from "node:crypto";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import { DefaultRequestHandler, InMemoryPushNotificationStore, InMemoryTaskStore } from "a2a-sdk-v03/server";
import type { AgentExecutor, ExecutionEventBus, RequestContext } from "a2a-sdk-v03/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "a2a-sdk-v03/server/express";
import { a2aErrorReason, isRpcError, pickTransport } from "a2a-http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { Role, TaskState, type StreamResponse } from "../../../gen/a2a_pb.js";

const now = () => new Date().toISOString();

/** Echoes a message as an artifact and completes; "wait" keeps the task working until it is canceled. */
class EchoExecutor implements AgentExecutor {
  private readonly running = new Map<string, { contextId: string; canceled: boolean }>();

  async execute(ctx: RequestContext, bus: ExecutionEventBus): Promise<void> {
    const { userMessage, taskId, contextId, task } = ctx;
    const text = userMessage.parts.map((p) => (p.kind === "text" ? p.text : "")).join("");
    if (!task)
      bus.publish({ kind: "task", id: taskId, contextId, status: { state: "submitted", timestamp: now() }, history: [userMessage] });
    bus.publish({ kind: "status-update", taskId, contextId, final: false, status: { state: "working", timestamp: now() } });
    const run = { contextId, canceled: false };
    this.running.set(taskId, run);
    try {
      if (text === "wait") {
        while (!run.canceled) await new Promise((r) => setTimeout(r, 20));
        return;
      }
      bus.publish({
        kind: "artifact-update",
        taskId,
        contextId,
        lastChunk: true,
        artifact: {
          artifactId: randomUUID(),
          name: "echo",
          parts: [
            { kind: "text", text: `echo: ${text}` },
            { kind: "data", data: { n: 1 } },
          ],
        },
      });
      bus.publish({ kind: "status-update", taskId, contextId, final: true, status: { state: "completed", timestamp: now() } });
    } finally {
      this.running.delete(taskId);
      bus.finished();
    }
  }

  async cancelTask(taskId: string, bus: ExecutionEventBus): Promise<void> {
    const run = this.running.get(taskId);
    if (run) run.canceled = true;
    bus.publish({
      kind: "status-update",
      taskId,
      contextId: run?.contextId ?? "",
      final: true,
      status: { state: "canceled", timestamp: now() },
    });
  }
}

let server: Server;
let base = "";

beforeAll(async () => {
  const app = express();
  const card = () => ({
    protocolVersion: "0.3.0",
    name: "v0.3 echo",
    description: "an @a2a-js/sdk 0.3.14 agent",
    url: `${base}/a2a/jsonrpc`,
    preferredTransport: "JSONRPC",
    additionalInterfaces: [
      { url: `${base}/a2a/jsonrpc`, transport: "JSONRPC" },
      { url: `${base}/a2a/rest`, transport: "HTTP+JSON" },
    ],
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "echoes", tags: ["echo"] }],
    supportsAuthenticatedExtendedCard: true,
  });
  server = await new Promise<Server>((ok) => {
    const s = app.listen(0, "127.0.0.1", () => ok(s));
  });
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const handler = new DefaultRequestHandler(
    card(),
    new InMemoryTaskStore(),
    new EchoExecutor(),
    undefined,
    new InMemoryPushNotificationStore(),
    {
      send: async () => {},
    },
    card(),
  );
  app.use("/.well-known/agent-card.json", agentCardHandler({ agentCardProvider: handler }));
  app.use("/a2a/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/a2a/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((r) => server.close(r));
});

const message = (text: string) => ({
  messageId: randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: text } }],
});

describe.each(["JSONRPC", "HTTP+JSON"] as const)("our client -> @a2a-js/sdk 0.3.14 server over %s", (binding) => {
  let client: A2AServiceClient;
  const seen: { url: string; version: string | null; body: string }[] = [];

  beforeAll(async () => {
    const card = await (await fetch(`${base}/.well-known/agent-card.json`)).json();
    const picked = pickTransport(card, [binding]);
    expect(picked.a2aVersion).toBe("0.3");
    expect(picked.baseUrl).toBe(`${base}/a2a/${binding === "JSONRPC" ? "jsonrpc" : "rest"}`);
    client = createA2AServiceClient({
      ...picked,
      fetch: async (input, init) => {
        const req = new Request(input, init);
        seen.push({ url: req.url, version: req.headers.get("a2a-version"), body: init?.body ? String(init.body) : "" });
        return fetch(req);
      },
    });
  });

  it("sends in v0.3's shapes and reads the answer as v1.0's Task", async () => {
    const r = await client.sendMessage({ message: message("hello") });
    expect(r.payload.case).toBe("task");
    const task = r.payload.value as Exclude<typeof r.payload.value, undefined> & { status?: { state: number } };
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    if (r.payload.case !== "task") return;
    const parts = r.payload.value.artifacts[0]!.parts;
    expect(parts[0]!.content).toEqual({ case: "text", value: "echo: hello" });
    expect(parts[1]!.content.case).toBe("data");
    const last = seen.at(-1)!;
    expect(last.version).toBe("0.3");
    if (binding === "JSONRPC")
      expect(JSON.parse(last.body)).toMatchObject({ method: "message/send", params: { message: { kind: "message", role: "user" } } });
    else expect(last.url).toMatch(/\/a2a\/rest\/v1\/message:send$/);
  });

  it("streams task, status updates and the artifact, in order, as StreamResponses", async () => {
    const got: StreamResponse["payload"]["case"][] = [];
    let state = 0;
    for await (const e of client.sendStreamingMessage({ message: message("s") })) {
      got.push(e.payload.case);
      if (e.payload.case === "statusUpdate") state = e.payload.value.status?.state ?? 0;
    }
    expect(got[0]).toBe("task");
    expect(got).toContain("artifactUpdate");
    expect(state).toBe(TaskState.COMPLETED);
  });

  it("gets a task with its history, cancels a working one, resubscribes", async () => {
    const r = await client.sendMessage({ message: message("wait"), configuration: { returnImmediately: true } });
    if (r.payload.case !== "task") throw new Error("no task");
    const id = r.payload.value.id;
    const got = await client.getTask({ id, historyLength: 1 });
    expect(got.id).toBe(id);
    expect(got.history).toHaveLength(1);
    const events = client.subscribeToTask({ id });
    const first = (await events[Symbol.asyncIterator]().next()).value as StreamResponse;
    expect(first.payload.case).toMatch(/task|statusUpdate/);
    const canceled = await client.cancelTask({ id });
    expect(canceled.status?.state).toBe(TaskState.CANCELED);
  });

  it("sets, gets, lists and deletes push configs", async () => {
    const r = await client.sendMessage({ message: message("wait"), configuration: { returnImmediately: true } });
    if (r.payload.case !== "task") throw new Error("no task");
    const taskId = r.payload.value.id;
    const set = await client.createTaskPushNotificationConfig({ taskId, id: "c1", url: "https://hook.test/a", token: "t" });
    expect(set).toMatchObject({ taskId, id: "c1", url: "https://hook.test/a", token: "t" });
    expect((await client.getTaskPushNotificationConfig({ taskId, id: "c1" })).url).toBe("https://hook.test/a");
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs.map((c) => c.id)).toEqual(["c1"]);
    await client.deleteTaskPushNotificationConfig({ taskId, id: "c1" });
    expect((await client.listTaskPushNotificationConfigs({ taskId })).configs).toEqual([]);
    await client.cancelTask({ id: taskId });
  });

  it("reads the extended card as v1.0's, its interfaces of version 0.3", async () => {
    const card = await client.getExtendedAgentCard({});
    expect(card.name).toBe("v0.3 echo");
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toContainEqual(["JSONRPC", "0.3"]);
    expect(card.capabilities?.extendedAgentCard).toBe(true);
  });

  it("turns v0.3's errors into the v1.0 error reasons, and says what v0.3 lacks", async () => {
    const missing = await client.getTask({ id: "no-such-task" }).catch((e: unknown) => e);
    expect(isRpcError(missing) && a2aErrorReason(missing)).toBe("TASK_NOT_FOUND");
    const done = await client.sendMessage({ message: message("x") });
    if (done.payload.case !== "task") throw new Error("no task");
    const notCancelable = await client.cancelTask({ id: done.payload.value.id }).catch((e: unknown) => e);
    expect(isRpcError(notCancelable) && a2aErrorReason(notCancelable)).toBe("TASK_NOT_CANCELABLE");
    const list = await client.listTasks({}).catch((e: unknown) => e);
    expect(isRpcError(list) && list.message).toMatch(/ListTasks is not in A2A v0.3/);
  });
});
