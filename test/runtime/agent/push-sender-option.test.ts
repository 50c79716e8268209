// The engine's `pushSender` option: the engine (a2a-http/agent) has no push
// transport of its own, so it runs on Workers and in browsers; without a
// sender push is unavailable, said at creation for a card that offers it and
// answered PUSH_NOTIFICATION_NOT_SUPPORTED otherwise, never delivered some
// less guarded way. Any PushSender works, not only a2a-http/push's.
import { create, fromJsonString } from "@bufbuild/protobuf";
import { afterEach, describe, expect, test } from "vitest";
import { a2aErrorReason, isRpcError, type HandlerContext } from "a2a-http";
import type { PushAttempt, PushSender, PushTarget } from "a2a-http/agent";
import {
  AgentCardSchema,
  ListTasksRequestSchema,
  Role,
  SendMessageRequestSchema,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
  type AgentCard,
  type ListTasksResponse,
  type SendMessageResponse,
  type StreamResponse,
} from "../../../gen/a2a_pb.js";
import { createA2AServiceAgent } from "../../../gen/a2a_http_agent.js";

const card = (pushNotifications: boolean): AgentCard =>
  create(AgentCardSchema, {
    name: "push sender test",
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications },
    defaultInputModes: ["text/plain"],
  });

const ctx = (): HandlerContext => ({
  rpc: "test",
  headers: new Headers(),
  signal: new AbortController().signal,
  responseHeaders: new Headers(),
  extensions: [],
});

const message = (text: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: text } }],
});

const agents: { close(): Promise<void> }[] = [];
afterEach(async () => {
  await Promise.all(agents.splice(0).map((a) => a.close()));
});

function agent(options: Omit<Parameters<typeof createA2AServiceAgent>[1], "onError">) {
  const a = createA2AServiceAgent((_input, task) => task.complete("done"), { ...options, onError: () => {} });
  agents.push(a);
  return a;
}

async function reasonOf(call: () => unknown): Promise<string> {
  try {
    await call();
  } catch (e) {
    if (!isRpcError(e)) throw e;
    return `${a2aErrorReason(e)}: ${e.message}`;
  }
  throw new Error("no error");
}

/** An event as "<case> <state>", the task's own id checked. */
function summary(event: StreamResponse, taskId: string): string {
  const p = event.payload;
  if (p.case === "task") return p.value.id === taskId ? `task ${TaskState[p.value.status!.state]}` : "another task";
  if (p.case === "statusUpdate") return p.value.taskId === taskId ? `status ${TaskState[p.value.status!.state]}` : "another task";
  return p.case ?? "none";
}

/** A sender that records what the engine hands it, as one written for another host would see it. */
function recordingSender() {
  const checked: string[] = [];
  const sent: { taskKey: string; target: PushTarget; event: StreamResponse }[] = [];
  let closed = false;
  const sender: PushSender = {
    async check(url) {
      checked.push(url);
    },
    send(taskKey, target, body) {
      sent.push({ taskKey, target, event: fromJsonString(StreamResponseSchema, body) });
    },
    attempt: async (): Promise<PushAttempt> => ({ ok: true }),
    retryDelayMs: () => 0,
    maxAttempts: 1,
    timeoutMs: 1000,
    report() {},
    idle: async () => {},
    async close() {
      closed = true;
    },
  };
  return { sender, checked, sent, closed: () => closed };
}

describe("the engine's pushSender option", () => {
  test("a card that says pushNotifications: true without a sender is refused at creation, naming a2a-http/push", () => {
    expect(() => agent({ card: card(true) })).toThrow(
      /pushNotifications: true but there is no pushSender.*createPushSender\(\) from "a2a-http\/push"/,
    );
    expect(() => agent({ card: card(false) })).not.toThrow();
  });

  test("the push option of earlier versions is refused, not dropped", () => {
    const options = { card: card(false), push: { allow: { http: true } } };
    expect(() => agent(options)).toThrow(/the push option is gone; pass pushSender/);
  });

  test("a card function that says true without a sender: every push rpc and a config in SendMessage answer PUSH_NOTIFICATION_NOT_SUPPORTED", async () => {
    const a = agent({ card: () => card(true) });
    const sent = (await a.sendMessage(create(SendMessageRequestSchema, { message: message("x") }), ctx())) as SendMessageResponse;
    const taskId = sent.payload.case === "task" ? sent.payload.value.id : "";
    expect(taskId).not.toBe("");
    const refused = "PUSH_NOTIFICATION_NOT_SUPPORTED: push notifications are not available: this agent has no push sender";
    const url = "https://example.com/hook";
    expect(await reasonOf(() => a.createTaskPushNotificationConfig(create(TaskPushNotificationConfigSchema, { taskId, url }), ctx()))).toBe(
      refused,
    );
    expect(await reasonOf(() => a.listTaskPushNotificationConfigs({ taskId } as never, ctx()))).toBe(refused);
    expect(await reasonOf(() => a.getTaskPushNotificationConfig({ taskId, id: "c" } as never, ctx()))).toBe(refused);
    expect(await reasonOf(() => a.deleteTaskPushNotificationConfig({ taskId, id: "c" } as never, ctx()))).toBe(refused);
    const withConfig = create(SendMessageRequestSchema, { message: message("y"), configuration: { taskPushNotificationConfig: { url } } });
    expect(await reasonOf(() => a.sendMessage(withConfig, ctx()))).toBe(refused);
    // The refused SendMessage made no task.
    const list = (await a.listTasks(create(ListTasksRequestSchema, {}), ctx())) as ListTasksResponse;
    expect(list.tasks.map((t) => t.id)).toEqual([taskId]);
  });

  test("a sender of one's own: it checks each webhook URL, gets the task's events in order as StreamResponse JSON, and is closed with the engine", async () => {
    const r = recordingSender();
    const a = createA2AServiceAgent((_input, task) => task.complete("done"), { card: card(true), pushSender: r.sender });
    const url = "https://hooks.example.com/a2a";
    const req = create(SendMessageRequestSchema, {
      message: message("x"),
      configuration: { taskPushNotificationConfig: { id: "c1", url, token: "tok" } },
    });
    const res = (await a.sendMessage(req, ctx())) as SendMessageResponse;
    expect(res.payload.case === "task" && res.payload.value.status?.state).toBe(TaskState.COMPLETED);
    expect(r.checked).toEqual([url]);
    const taskId = res.payload.case === "task" ? res.payload.value.id : "";
    expect(r.sent.map((s) => s.target)).toEqual(r.sent.map(() => ({ configId: "c1", url, token: "tok", authentication: undefined })));
    expect(new Set(r.sent.map((s) => s.taskKey)).size).toBe(1);
    expect(r.sent.map((s) => summary(s.event, taskId))).toEqual(["task SUBMITTED", "artifactUpdate", "status COMPLETED"]);
    await a.close();
    expect(r.closed()).toBe(true);
  });
});
