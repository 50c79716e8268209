// The runtime's OpenTelemetry signals where instances share a SQL store
// (a2a-http/otel, issue 40): the gauges read at collection (open
// subscribers, the outbox's depth, bounded to one count at a time), and the
// task's trace context kept with the task, so that another instance's
// subscriber and cancel link to it and its outbox retries continue it.
// Two engines on one database (PGlite, and PostgreSQL with DATABASE_URL),
// the SDK's in-memory exporters.
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider, MetricReader, type ResourceMetrics } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, beforeAll, describe, expect, it, test } from "vitest";
import type { AgentStore } from "a2a-http/agent";
import { enableOpenTelemetry } from "a2a-http/otel";
import { engineGauges } from "../../../packages/runtime/src/agent/gauges.js";
import type { PushOutbox } from "../../../packages/runtime/src/agent/store.js";
import type { Subscribers } from "../../../packages/runtime/src/agent/subscribers.js";
import { createSqlStore } from "../../../packages/runtime/src/agent/sql/store.js";
import type { StreamResponse, Task } from "../../../gen/a2a_pb.js";
import { clientFor, eventually, gate, openAllGates, startAgent, until, userMessage, type TestAgent } from "../agent/engine-harness.js";
import { describeSqlEngines, useDatabase } from "../agent/sql-databases.js";

/** Collects on demand. */
class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

const spans = new InMemorySpanExporter();
const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
const reader = new TestReader();
const meterProvider = new MeterProvider({ readers: [reader] });
const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });
const contextManager = new AsyncLocalStorageContextManager();
let disable: () => void = () => {};

beforeAll(() => {
  context.setGlobalContextManager(contextManager.enable());
  disable = enableOpenTelemetry({ tracerProvider, meterProvider, propagator });
});
afterAll(() => {
  disable();
  context.disable();
});

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
    const agents: TestAgent[] = [];
    let a: TestAgent;
    let b: TestAgent;
    let storeA: AgentStore;

    async function storeOn(instance: string): Promise<AgentStore> {
      return createSqlStore(await database().connect(), { migrate: true, instance });
    }

    beforeAll(async () => {
      storeA = await storeOn("A");
      a = await startAgent({ store: storeA, push: { allow: { http: true, addresses: ["127.0.0.1/32"] } } });
      b = await startAgent({ store: await storeOn("B") });
      agents.push(a, b);
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
        disable = enableOpenTelemetry({ tracerProvider, meterProvider, propagator });
      }
    }, 30_000);
  }),
);
