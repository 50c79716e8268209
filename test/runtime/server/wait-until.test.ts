// ctx.waitUntil: the host's hook that keeps work after the answer alive. On
// a Worker (Hono given an ExecutionContext, here a fake one that collects
// promises) the task engine hands it each run, so a returnImmediately
// SendMessage's executor is not dropped with the answer. Where there is no
// such hook (Hono on Node, Bun or Deno; the Node adapters) it is absent.
import { create } from "@bufbuild/protobuf";
import { Hono } from "hono";
import { afterAll, describe, expect, test } from "vitest";
import type { HandlerContext } from "a2a-http";
import { createFetchHandler } from "a2a-http/server";
import { AgentCardSchema } from "../../../gen/a2a_pb.js";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { createA2AServiceAgent } from "../../../gen/a2a_http_agent.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a_http_hono.js";
import { startBoth } from "./serve-both.js";

const headers = { "a2a-version": "1.0", "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "work" }] };

/** What Workers hand a fetch handler as its third argument, keeping the promises it is given. */
function fakeExecutionCtx() {
  const kept: Promise<unknown>[] = [];
  const ctx = {
    waitUntil(this: unknown, promise: Promise<unknown>) {
      // workerd checks the receiver: the adapter must call it as ctx's method.
      if (this !== ctx) throw new TypeError("Illegal invocation");
      kept.push(promise);
    },
    passThroughOnException() {},
    props: {},
  };
  return { ctx, kept };
}

/** An agent whose executor works until `release()`, then completes. */
function gatedAgent() {
  let release!: () => void;
  const gate = new Promise<void>((resolve) => (release = resolve));
  const card = create(AgentCardSchema, {
    name: "wait-until",
    description: "test",
    version: "1",
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
  });
  const agent = createA2AServiceAgent(
    async (_input, task) => {
      await task.working();
      await gate;
      await task.complete("done");
    },
    { card: () => card },
  );
  return { agent, release: () => release() };
}

/** The parts of the answers the test reads. */
interface TaskJson {
  readonly id: string;
  readonly status: { readonly state: string };
}
type Answer = Record<string, unknown> & { task?: TaskJson; result?: { task?: TaskJson } & TaskJson };

const settledWithin = (p: Promise<unknown>, ms: number) =>
  Promise.race([p.then(() => true), new Promise<boolean>((resolve) => setTimeout(() => resolve(false), ms))]);

describe("on a Worker (Hono with an ExecutionContext)", () => {
  const agents: { close(): Promise<void> }[] = [];
  afterAll(() => Promise.all(agents.map((a) => a.close())));

  const bindings = {
    "HTTP+JSON": {
      app: a2aServiceHono,
      send: () =>
        new Request("http://agent.test/message:send", {
          method: "POST",
          headers,
          body: JSON.stringify({ message, configuration: { returnImmediately: true } }),
        }),
      get: (id: string) => new Request(`http://agent.test/tasks/${id}`, { headers }),
      task: (body: Answer) => body.task!,
      read: (body: Answer) => body as unknown as TaskJson,
    },
    "JSON-RPC": {
      app: a2aServiceJsonRpcHono,
      send: () =>
        new Request("http://agent.test/", {
          method: "POST",
          headers,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: 1,
            method: "SendMessage",
            params: { message, configuration: { returnImmediately: true } },
          }),
        }),
      get: (id: string) =>
        new Request("http://agent.test/", {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: 2, method: "GetTask", params: { id } }),
        }),
      task: (body: Answer) => body.result!.task!,
      read: (body: Answer) => body.result!,
    },
  };

  test.each(Object.keys(bindings) as (keyof typeof bindings)[])(
    "%s: a returnImmediately SendMessage hands its run to waitUntil, which settles when the executor is done",
    async (name) => {
      const b = bindings[name];
      const { agent, release } = gatedAgent();
      agents.push(agent);
      const app = new Hono().route("/", b.app(agent));
      const { ctx, kept } = fakeExecutionCtx();
      const res = await app.fetch(b.send(), {}, ctx);
      expect(res.status).toBe(200);
      const task = b.task((await res.json()) as Answer);
      expect(task.status.state).not.toBe("TASK_STATE_COMPLETED");
      expect(kept).toHaveLength(1);
      // The executor is still at work after the answer: the host must not drop it.
      expect(await settledWithin(kept[0]!, 50)).toBe(false);
      release();
      expect(await settledWithin(kept[0]!, 2_000)).toBe(true);
      const after = await app.fetch(b.get(task.id), {}, fakeExecutionCtx().ctx);
      expect(b.read((await after.json()) as Answer).status.state).toBe("TASK_STATE_COMPLETED");
    },
  );
});

/** A handler that records the ctx.waitUntil it was given. */
function recording() {
  const seen: (HandlerContext["waitUntil"] | "none")[] = [];
  const handlers: Partial<A2AServiceHandlers> = {
    getTask(req, ctx) {
      seen.push(ctx.waitUntil ?? "none");
      return { id: req.id, contextId: "c" };
    },
  };
  return { seen, handlers };
}

describe("elsewhere", () => {
  test("Hono without an ExecutionContext (Bun, Deno): no waitUntil, and Hono's throwing getter is not a failure", async () => {
    const { seen, handlers } = recording();
    const res = await a2aServiceHono(handlers).fetch(new Request("http://agent.test/tasks/t1", { headers }));
    expect(res.status).toBe(200);
    expect(seen).toEqual(["none"]);
  });

  test("the fetch handler takes an explicit waitUntil (a Worker without Hono)", async () => {
    const { seen, handlers } = recording();
    const { ctx, kept } = fakeExecutionCtx();
    const handle = createFetchHandler(A2AServiceRoutes, handlers, { profile: "a2a" });
    const res = await handle(new Request("http://agent.test/tasks/t1", { headers }), { waitUntil: (p) => ctx.waitUntil(p) });
    expect(res.status).toBe(200);
    const hook = seen[0];
    expect(typeof hook).toBe("function");
    const p = Promise.resolve();
    (hook as (p: Promise<unknown>) => void)(p);
    expect(kept).toEqual([p]);
  });

  test.each(["express", "fastify", "hono"] as const)("on Node (%s): no waitUntil", async (framework) => {
    const { seen, handlers } = recording();
    const server = await startBoth(framework, handlers);
    try {
      const res = await fetch(`${server.origin}/tasks/t1`, { headers });
      expect(res.status).toBe(200);
      expect(seen).toEqual(["none"]);
    } finally {
      await server.close();
    }
  });
});
