// The runtime's OpenTelemetry signals where instances share a SQL store
// (a2a-http/otel, issue 40): the gauges read at collection (open
// subscribers, the outbox's depth, bounded to one count at a time), and the
// task's trace context kept with the task, so that another instance's
// subscriber and cancel link to it and its outbox retries continue it.
// Two engines on one database (PGlite, and PostgreSQL with DATABASE_URL),
// the SDK's in-memory exporters.
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import type { AgentStore } from "a2a-http/agent";
import { engineGauges } from "../../../packages/runtime/src/agent/gauges.js";
import type { PushOutbox } from "../../../packages/runtime/src/agent/store.js";
import type { Subscribers } from "../../../packages/runtime/src/agent/subscribers.js";
import { TaskState, type StreamResponse, type Task } from "../../../gen/a2a_pb.js";
import { clientFor, eventually, gate, openAllGates, until, userMessage, type TestAgent } from "../agent/engine-harness.js";
import { describeSqlEngines, useDatabase } from "../agent/sql-databases.js";
import { LOCAL_PUSH, sqlInstances } from "../agent/sql-instances.js";
import { disable, enable, reader, spans, useInMemorySdk } from "./in-memory-sdk.js";

useInMemorySdk();

const CALLER_TRACE = "4bf92f3577b34da6a3ce929d0e0e4736";
const CALLER_SPAN = "00f067aa0ba902b7";
/** The trace of the request that creates a task (sent on gRPC, which our client does not trace itself). */
const traced = { headers: { traceparent: `00-${CALLER_TRACE}-${CALLER_SPAN}-01`, tracestate: "vendor=kept" } };

/** Finished spans matching, waited for. */
async function spansWhere(match: (s: ReturnType<typeof spans.getFinishedSpans>[number]) => boolean, what: string) {
  for (let i = 0; i < 300; i++) {
    const found = spans.getFinishedSpans().filter(match);
    if (found.length > 0) return found;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(
    `no span ${what}; have: ${spans
      .getFinishedSpans()
      .map((s) => s.name)
      .join(", ")}`,
  );
}

/** A metric's single data point's value, or undefined when it has none. */
async function gauge(name: string): Promise<number | undefined> {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  for (const sm of resourceMetrics.scopeMetrics) {
    for (const m of sm.metrics) {
      if (m.descriptor.name === name) return m.dataPoints[0]?.value as number | undefined;
    }
  }
  return undefined;
}

test("the outbox count: one store query at a time; a collection while one runs asks nothing", async () => {
  let calls = 0;
  let answer: (n: number) => void = () => {};
  const outbox = {
    depth: () => {
      calls++;
      return new Promise<number>((r) => (answer = r));
    },
  } as unknown as PushOutbox;
  const g = engineGauges({ count: () => 0 } as unknown as Subscribers, outbox);
  const first = g.outboxDepth();
  expect(g.outboxDepth(), "skipped while the first runs").toBeUndefined();
  expect(calls).toBe(1);
  answer(7);
  expect(await first).toBe(7);
  const second = g.outboxDepth();
  expect(calls, "a new count once the first ended").toBe(2);
  answer(3);
  expect(await second).toBe(3);
  // No outbox (the memory store): no query.
  expect(engineGauges({ count: () => 0 } as unknown as Subscribers, undefined).outboxDepth()).toBeUndefined();
});

describeSqlEngines((engine) =>
  describe("two instances on one database", () => {
    const database = useDatabase(engine);
    const { agents, storeOn, agentOn } = sqlInstances(database);
    let a: TestAgent;
    let b: TestAgent;
    let storeA: AgentStore;

    /** The trace kept in the task's row. */
    async function keptTrace(id: string): Promise<unknown> {
      const db = await database().connect();
      return (await db.query(`SELECT trace FROM a2a_tasks WHERE id = $1`, [id])).rows[0]?.["trace"];
    }

    beforeAll(async () => {
      storeA = await storeOn("A");
      a = await agentOn("A", { store: storeA, push: { allow: { http: true, addresses: ["127.0.0.1/32"] } } });
      b = await agentOn("B");
    }, 60_000);

    afterAll(async () => {
      openAllGates();
      for (const agent of agents) await agent.close();
    }, 60_000);

    it("a2a.server.subscribers counts the streams open in this process, read at collection", async () => {
      const go = gate();
      const key = a.script(async (input, task) => {
        await task.working("w");
        await until(go, input.signal);
        await task.complete("done");
      });
      const base = (await gauge("a2a.server.subscribers")) ?? 0;
      const it1 = clientFor("http+json", a)
        .sendStreamingMessage({ message: userMessage(`${key} s`) })
        [Symbol.asyncIterator]();
      const id = (((await it1.next()).value as StreamResponse).payload.value as Task).id;
      const it2 = clientFor("jsonrpc", b).subscribeToTask({ id })[Symbol.asyncIterator]();
      await it2.next();
      expect(await gauge("a2a.server.subscribers"), "one on A, one on B").toBe(base + 2);
      go.open();
      for (let r = await it1.next(); !r.done; r = await it1.next());
      for (let r = await it2.next(); !r.done; r = await it2.next());
      await eventually(async () => (await gauge("a2a.server.subscribers")) === base);
    }, 30_000);

    it("a2a.push.outbox.depth: the deliveries waiting, by one count per collection; none counted with telemetry off", async () => {
      const outbox = storeA.shared!.outbox;
      let counted = 0;
      const depth = outbox.depth!.bind(outbox);
      outbox.depth = () => {
        counted++;
        return depth();
      };
      // A config whose webhook address no one listens on: its delivery is retried, and waits meanwhile.
      const key = a.script(async (_input, task) => task.complete("done"));
      await clientFor("http+json", a).sendMessage({
        message: userMessage(`${key} p`),
        configuration: { taskPushNotificationConfig: { url: "http://127.0.0.1:9/hook", token: "t" } },
      });
      const waiting = await depth();
      expect(waiting).toBeGreaterThan(0);
      const before = counted;
      expect(await gauge("a2a.push.outbox.depth")).toBe(waiting);
      expect(counted - before, "one count per engine on the store").toBe(1);
      disable();
      try {
        await reader.collect();
        expect(counted - before, "no query once telemetry is off").toBe(1);
      } finally {
        enable();
      }
    }, 30_000);

    it("a subscriber and a cancel on B link to the trace of the request that started the task on A; no answer holds it", async () => {
      const key = a.script(async (input, task) => {
        await task.working("w");
        await new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
      });
      const started = await clientFor("grpc", a).sendMessage(
        { message: userMessage(`${key} t`), configuration: { returnImmediately: true } },
        traced,
      );
      const id = (started.payload.value as Task).id;
      expect(String(await keptTrace(id))).toContain(CALLER_TRACE);
      const it2 = clientFor("jsonrpc", b).subscribeToTask({ id })[Symbol.asyncIterator]();
      await it2.next();
      await eventually(async () => (await clientFor("grpc", b).getTask({ id })).status?.state === TaskState.WORKING);
      // The answers to clients, as their bytes: JSON (HTTP+JSON and a stream's SSE) and gRPC's message (no unknown field).
      const answers = [
        await (await fetch(`${b.url}/tasks/${id}`, { headers: { "a2a-version": "1.0" } })).text(),
        await (await fetch(`${b.url}/tasks`, { headers: { "a2a-version": "1.0" } })).text(),
      ];
      const sse = await fetch(`${b.url}/tasks/${id}:subscribe`, { headers: { "a2a-version": "1.0", accept: "text/event-stream" } });
      const reader = sse.body!.getReader();
      answers.push(new TextDecoder().decode((await reader.read()).value));
      await reader.cancel();
      for (const text of answers) {
        expect(text).toContain(id);
        expect(text).not.toContain(CALLER_TRACE);
        expect(text).not.toContain("traceparent");
      }
      const viaGrpc = await clientFor("grpc", b).getTask({ id });
      expect((viaGrpc as { $unknown?: unknown }).$unknown).toBeUndefined();

      await clientFor("grpc", b).cancelTask({ id });
      for (let r = await it2.next(); !r.done; r = await it2.next());
      const linked = (method: string) =>
        spansWhere(
          (s) => s.kind === 1 && s.attributes["rpc.method"] === method && s.links.some((l) => l.context.traceId === CALLER_TRACE),
          `${method} linked to the task's trace`,
        );
      for (const method of ["SubscribeToTask", "CancelTask"]) {
        const [span] = await linked(method);
        expect(span!.spanContext().traceId, `${method}: its own trace`).not.toBe(CALLER_TRACE);
        const link = span!.links.find((l) => l.context.traceId === CALLER_TRACE)!;
        expect(link.context.traceState?.get("vendor"), "tracestate kept").toBe("kept");
        expect(link.attributes?.["a2a.link"]).toBe("task");
      }
      // A GetTask (no subscriber, no cancel) links to nothing.
      const gets = spans.getFinishedSpans().filter((s) => s.kind === 1 && s.attributes["rpc.method"] === "GetTask");
      expect(gets.length).toBeGreaterThan(0);
      for (const g of gets) expect(g.links).toEqual([]);
    }, 30_000);

    it("a delivery the outbox retries from another instance continues the task's trace", async () => {
      const hooks: IncomingHttpHeaders[] = [];
      let failures = 0;
      const server = createServer((req, res) => {
        req.resume();
        req.on("end", () => {
          if (failures < 2) {
            failures++;
            res.writeHead(503).end();
            return;
          }
          hooks.push(req.headers);
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      try {
        // E writes the task and its deliveries; its receiver fails; E stops before a retry is due, and F sends them.
        const e = await agentOn("E", { push: { ...LOCAL_PUSH, baseDelayMs: 1_000, maxDelayMs: 1_000 } });
        const key = e.script(async (_input, task) => task.complete("done"));
        await clientFor("grpc", e).sendMessage(
          { message: userMessage(`${key} p`), configuration: { taskPushNotificationConfig: { url, token: "tok" } } },
          traced,
        );
        await eventually(() => failures >= 1);
        await e.close();
        agents.splice(agents.indexOf(e), 1);
        spans.reset();
        await agentOn("F");
        await eventually(() => hooks.length >= 2, 20_000);
        for (const h of hooks) expect(String(h["traceparent"])).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
        // This webhook's attempts that went through (the earlier test's unreachable webhook never answers ok).
        const attempts = await spansWhere(
          (s) => s.name === "a2a.push.deliver" && s.attributes["a2a.push.outcome"] === "ok",
          "push attempt",
        );
        for (const s of attempts) {
          expect(s.spanContext().traceId, "F's attempt in the task's trace").toBe(CALLER_TRACE);
          expect(s.parentSpanContext?.isRemote, "its parent: the kept context").toBe(true);
        }
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }, 40_000);

    it("with telemetry off, no trace is kept", async () => {
      disable();
      try {
        const key = a.script(async (_input, task) => task.complete("done"));
        const r = await clientFor("grpc", a).sendMessage({ message: userMessage(`${key} off`) }, traced);
        expect(await keptTrace((r.payload.value as Task).id)).toBeNull();
      } finally {
        enable();
      }
    });
  }),
);
