// Our v0.3 client against our v0.3 server (the a2a.v1 package, rpc names of
// v0.3 such as TaskSubscription), in one process through the generated Hono
// adapter: every rpc goes out and comes back, and the subscribe rpc is taken
// on POST as on GET (the profile's rule, a2a.ts), as the client POSTs it.
import { describe, expect, it } from "vitest";
import { a2aServiceHono } from "../../../gen/a2a-v0_3_http_hono.js";
import type { A2AServiceHandlers } from "../../../gen/a2a-v0_3_http.js";
import { createA2AServiceClient } from "../../../gen/a2a-v0_3_http_client.js";
import { Role, TaskState } from "../../../gen/a2a-v0_3_pb.js";

const task = (id: string, state = TaskState.WORKING) => ({ id, contextId: "c1", status: { state } });
const config = (name: string) => ({ name, pushNotificationConfig: { id: "p1", url: "https://callback.test/a" } });

/** Each handler answers with what it was asked, so that the test sees both directions. */
const handlers: A2AServiceHandlers = {
  sendMessage: (req) => ({ payload: { case: "msg", value: { messageId: "r-" + req.request!.messageId, role: Role.AGENT, content: [] } } }),
  async *sendStreamingMessage(req) {
    yield { payload: { case: "task", value: task("s-" + req.request!.messageId) } };
    yield { payload: { case: "task", value: task("s-" + req.request!.messageId, TaskState.COMPLETED) } };
  },
  getTask: (req) => task(req.name.slice("tasks/".length)),
  cancelTask: (req) => task(req.name.slice("tasks/".length), TaskState.CANCELLED),
  async *taskSubscription(req) {
    yield { payload: { case: "task", value: task(req.name.slice("tasks/".length)) } };
  },
  createTaskPushNotificationConfig: (req) => config(`${req.parent.replace(/^task\//, "tasks/")}/${req.configId}`),
  getTaskPushNotificationConfig: (req) => config(req.name),
  listTaskPushNotificationConfig: (req) => ({ configs: [config(`${req.parent}/pushNotificationConfigs/p1`)] }),
  getAgentCard: () => ({ name: "v0.3 agent", protocolVersion: "0.3.0" }),
  deleteTaskPushNotificationConfig: () => ({}),
};

function setup() {
  const app = a2aServiceHono(handlers);
  const seen: string[] = [];
  const fetch = (async (input: RequestInfo | URL, init?: RequestInit) => {
    const req = new Request(input, init);
    seen.push(`${req.method} ${new URL(req.url).pathname}`);
    return app.fetch(req);
  }) as typeof globalThis.fetch;
  return { client: createA2AServiceClient({ baseUrl: "http://agent.test", fetch }), seen, fetch };
}

async function all<T>(it: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of it) out.push(x);
  return out;
}

describe("our v0.3 client and our v0.3 server", () => {
  it("agree on every rpc", async () => {
    const { client, seen } = setup();
    const sent = await client.sendMessage({
      request: { messageId: "m1", role: Role.USER, content: [{ part: { case: "text", value: "hi" } }] },
    });
    expect(sent.payload).toMatchObject({ case: "msg", value: { messageId: "r-m1" } });
    const streamed = await all(client.sendStreamingMessage({ request: { messageId: "m2", role: Role.USER, content: [] } }));
    expect(streamed.map((e) => e.payload.case === "task" && e.payload.value.status?.state)).toEqual([
      TaskState.WORKING,
      TaskState.COMPLETED,
    ]);
    expect((await client.getTask({ name: "tasks/t1" })).id).toBe("t1");
    expect((await client.cancelTask({ name: "tasks/t1" })).status?.state).toBe(TaskState.CANCELLED);
    const sub = await all(client.taskSubscription({ name: "tasks/t2" }));
    expect(sub).toHaveLength(1);
    expect(sub[0]!.payload).toMatchObject({ case: "task", value: { id: "t2" } });
    const created = await client.createTaskPushNotificationConfig({
      parent: "task/t1/pushNotificationConfigs",
      configId: "p1",
      config: config("ignored"),
    });
    expect(created.name).toBe("tasks/t1/pushNotificationConfigs/p1");
    expect((await client.getTaskPushNotificationConfig({ name: "tasks/t1/pushNotificationConfigs/p1" })).pushNotificationConfig?.url).toBe(
      "https://callback.test/a",
    );
    expect((await client.listTaskPushNotificationConfig({ parent: "tasks/t1" })).configs.map((c) => c.name)).toEqual([
      "tasks/t1/pushNotificationConfigs/p1",
    ]);
    expect((await client.getAgentCard({})).name).toBe("v0.3 agent");
    await client.deleteTaskPushNotificationConfig({ name: "tasks/t1/pushNotificationConfigs/p1" });
    expect(seen).toContain("POST /v1/tasks/t2:subscribe");
    expect(seen).toHaveLength(10);
  });

  it("the server takes TaskSubscription on GET and on POST, nothing else", async () => {
    const { fetch } = setup();
    const h = { "a2a-version": "0.3" };
    for (const method of ["GET", "POST"]) {
      const res = await fetch("http://agent.test/v1/tasks/t3:subscribe", { method, headers: h });
      expect(res.status, method).toBe(200);
      expect(res.headers.get("content-type")).toBe("text/event-stream");
      expect(await res.text()).toContain('"id":"t3"');
    }
    const put = await fetch("http://agent.test/v1/tasks/t3:subscribe", { method: "PUT", headers: h });
    expect(put.status).toBe(405);
    expect(put.headers.get("allow")).toBe("GET, HEAD, OPTIONS, POST");
  });
});
