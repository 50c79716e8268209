// Push configs remember the version of the request that made them: one made
// by a v0.3 client gets the task in v0.3's JSON on every event, one made by a
// v1.0 client the v1.0 StreamResponse, on the memory store (the engine sends)
// and on the SQL stores (the shared outbox sends, after the config went
// through the database). The mark never reaches a client.
import { toJson } from "@bufbuild/protobuf";
import { Hono } from "hono";
import type { PushAttempt, PushSender, PushTarget } from "a2a-http/agent";
import { afterAll, describe, expect, it } from "vitest";
import { createSqlStore } from "../../../packages/runtime/src/agent/sql/store.js";
import { createA2AServiceAgent, type A2AServiceExecutor } from "../../../gen/a2a_http_agent.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a_http_hono.js";
import { AgentCardSchema, TaskPushNotificationConfigSchema, type AgentCard } from "../../../gen/a2a_pb.js";
import { create } from "@bufbuild/protobuf";
import { describeSqlEngines } from "../agent/sql-databases.js";

const card = (): AgentCard =>
  create(AgentCardSchema, {
    name: "push",
    description: "push",
    version: "1.0.0",
    supportedInterfaces: [{ url: "http://127.0.0.1:1", protocolBinding: "JSONRPC", protocolVersion: "1.0" }],
    capabilities: { streaming: true, pushNotifications: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
  });

/** Waits for "go", then completes: the test registers its configs while the task works. */
const executor: A2AServiceExecutor = async ({ signal }, task) => {
  await task.working();
  await new Promise<void>((ok) => {
    const t = setInterval(() => {
      if (released || signal.aborted) {
        clearInterval(t);
        ok();
      }
    }, 5);
  });
  return task.complete("done");
};
let released = false;

/** A sender that records each delivery (through send, on the memory store; attempt, from a shared outbox). */
function recordingSender() {
  const got: { url: string; body: unknown }[] = [];
  const sender: PushSender = {
    check: async () => {},
    send: (_key: string, target: PushTarget, body: string) => void got.push({ url: target.url, body: JSON.parse(body) }),
    attempt: async (target: PushTarget, body: string): Promise<PushAttempt> => {
      got.push({ url: target.url, body: JSON.parse(body) });
      return { ok: true };
    },
    retryDelayMs: () => 0,
    maxAttempts: 1,
    timeoutMs: 1_000,
    report: () => {},
    idle: async () => {},
    close: async () => {},
  };
  return { sender, got };
}

async function run(store?: Awaited<ReturnType<typeof createSqlStore>>) {
  released = false;
  const { sender, got } = recordingSender();
  const agent = createA2AServiceAgent(executor, { card, pushSender: sender, ...(store ? { store } : {}) });
  const app = new Hono();
  app.route("/jsonrpc", a2aServiceJsonRpcHono(agent));
  app.route("/", a2aServiceHono(agent));
  const rpc = async (method: string, params: unknown, headers: Record<string, string> = {}) =>
    (await (
      await app.request("/jsonrpc", {
        method: "POST",
        headers: { "content-type": "application/json", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
      })
    ).json()) as {
      result?: Record<string, unknown>;
      error?: unknown;
    };
  const sent = await rpc("message/send", {
    message: { kind: "message", messageId: "p1", role: "user", parts: [{ kind: "text", text: "x" }] },
    configuration: { blocking: false },
  });
  const id = (sent.result as { id: string }).id;
  const v03 = await rpc("tasks/pushNotificationConfig/set", {
    taskId: id,
    pushNotificationConfig: { url: "https://v03.test/hook", token: "t3" },
  });
  expect(v03.error).toBeUndefined();
  const v1 = await rpc("CreateTaskPushNotificationConfig", { taskId: id, id: "v1", url: "https://v1.test/hook" }, { "a2a-version": "1.0" });
  expect(v1.error).toBeUndefined();
  released = true;
  // Until each config has had the last event (the completed task or status).
  const ended = (url: string) => got.some((g) => g.url === url && /"(completed|TASK_STATE_COMPLETED)"/.test(JSON.stringify(g.body)));
  const deadline = Date.now() + 10_000;
  while (Date.now() < deadline && !(ended("https://v03.test/hook") && ended("https://v1.test/hook")))
    await new Promise((r) => setTimeout(r, 20));
  const config = await agent.getTaskPushNotificationConfig(create(TaskPushNotificationConfigSchema, { taskId: id, id }) as never, {
    rpc: "getTaskPushNotificationConfig",
    headers: new Headers(),
    signal: new AbortController().signal,
    responseHeaders: new Headers(),
    extensions: [],
  });
  await agent.close();
  return { got, id, config };
}

function expectShapes(got: { url: string; body: unknown }[], id: string) {
  const old = got.filter((g) => g.url === "https://v03.test/hook").map((g) => g.body as Record<string, unknown>);
  const now = got.filter((g) => g.url === "https://v1.test/hook").map((g) => g.body as Record<string, unknown>);
  // v0.3: the task itself, kind-tagged, lower-case states; the last one completed.
  expect(old.length).toBeGreaterThan(0);
  for (const b of old) expect(b).toMatchObject({ kind: "task", id });
  expect((old.at(-1)!["status"] as { state: string }).state).toBe("completed");
  // v1.0: StreamResponse events.
  expect(now.length).toBeGreaterThan(0);
  for (const b of now) expect(Object.keys(b)).toEqual([expect.stringMatching(/^(task|statusUpdate|artifactUpdate|message)$/)]);
  expect(
    now.some((b) => (b["statusUpdate"] as { status?: { state?: string } } | undefined)?.status?.state === "TASK_STATE_COMPLETED"),
  ).toBe(true);
}

describe("push to v0.3 clients", () => {
  it("on the memory store: the task in v0.3 JSON to the v0.3 config, StreamResponses to the v1.0 one", async () => {
    const { got, id, config } = await run();
    expectShapes(got, id);
    // What a client reads back carries no mark (a gRPC client would see it as an unknown field).
    expect((config as { $unknown?: unknown }).$unknown).toBeUndefined();
    expect(toJson(TaskPushNotificationConfigSchema, config as never)).toMatchObject({ url: "https://v03.test/hook", token: "t3" });
  });
});

describeSqlEngines((engine) => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });
  it("on a SQL store: the config's version survives the database, and the outbox sends each its shape", async () => {
    const db = await engine().database();
    const store = await createSqlStore(await db.connect(), { migrate: true });
    const { got, id, config } = await run(store);
    expectShapes(got, id);
    expect((config as { $unknown?: unknown }).$unknown).toBeUndefined();
  }, 30_000);
});
