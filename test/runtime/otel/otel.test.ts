// The runtime's OpenTelemetry signals (a2a-http/otel, issue 40) in process,
// with the SDK's in-memory exporters: a SERVER span per rpc on every binding
// (HTTP+JSON and JSON-RPC on Express, Fastify, Hono and Node's http; gRPC
// through connect-es) under the caller's traceparent, the executor's run as
// its child, the executor's own client call and its push delivery in the same
// trace, store operations, the metrics, log lines with the span's ids, and
// no content or credentials in any attribute. And that without
// enableOpenTelemetry the runtime holds no import of @opentelemetry/api.
import { createServer, type IncomingHttpHeaders, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { context, propagation, trace } from "@opentelemetry/api";
import type { ResourceMetrics } from "@opentelemetry/sdk-metrics";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";
import { afterEach, describe, expect, test } from "vitest";
import { jsonLogger } from "a2a-http";
import type { AgentStore } from "a2a-http/agent";
import { createNodeHandler } from "a2a-http/node";
import { enableOpenTelemetry } from "a2a-http/otel";
import { createPushSender } from "a2a-http/push";
import { A2AService, AgentCardSchema } from "../../../gen/a2a_pb.js";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { createA2AServiceAgent, type A2AServiceExecutor } from "../../../gen/a2a_http_agent.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { withUnavailableFaults } from "../../../packages/runtime/src/agent/sql/unavailable.js";
import { startBoth, type BothFramework } from "../server/serve-both.js";
import { disable, enable, meterProvider, propagator, reader, spans, tracerProvider, useInMemorySdk } from "./in-memory-sdk.js";

useInMemorySdk();

const CALLER_TRACE = "0af7651916cd43dd8448eb211c80319c";
const CALLER_SPAN = "b7ad6b7169203331";
const traceparent = `00-${CALLER_TRACE}-${CALLER_SPAN}-01`;
/** What must never be an attribute: the message's text, a credential, a push token. */
const SECRET_TEXT = "secret-content-42";
const CREDENTIAL = "Bearer s3cr3t-credential";
const PUSH_TOKEN = "push-token-77";

const cardOf = (pushNotifications: boolean) =>
  create(AgentCardSchema, {
    name: "otel",
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications },
    defaultInputModes: ["text/plain"],
  });
const card = cardOf(false);
const pushCard = cardOf(true);
const echo: A2AServiceExecutor = async (input, task) => void (await task.complete(`echo: ${input.text}`));

const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: SECRET_TEXT }] };
const headers = {
  "a2a-version": "1.0",
  "content-type": "application/json",
  authorization: CREDENTIAL,
  traceparent,
  tracestate: "vendor=x",
  baggage: "tier=gold",
};

function finished(): ReadableSpan[] {
  return spans.getFinishedSpans();
}

/** Waits until a span named `name` (or matching) has ended. */
async function spanNamed(match: (s: ReadableSpan) => boolean, what: string): Promise<ReadableSpan> {
  for (let i = 0; i < 200; i++) {
    const s = finished().find(match);
    if (s) return s;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(
    `no span ${what}; have: ${finished()
      .map((s) => s.name)
      .join(", ")}`,
  );
}

const parentOf = (s: ReadableSpan) => s.parentSpanContext?.spanId;

/** No attribute of any finished span holds content or a credential. */
function expectNothingSecret(): void {
  const all = JSON.stringify(finished().map((s) => s.attributes));
  expect(all).not.toContain(SECRET_TEXT);
  expect(all).not.toContain("s3cr3t");
  expect(all).not.toContain(PUSH_TOKEN);
}

/** Checks a served rpc's SERVER span and its executor run's. */
async function expectServed(method: string, system: "http" | "jsonrpc" | "grpc") {
  const server = await spanNamed((s) => s.kind === 1 && s.attributes["rpc.method"] === method, `SERVER ${method}`);
  expect(server.spanContext().traceId, "the caller's trace").toBe(CALLER_TRACE);
  expect(parentOf(server), "the caller's span is the parent").toBe(CALLER_SPAN);
  expect(server.attributes["rpc.service"]).toBe("lf.a2a.v1.A2AService");
  if (system === "http") {
    expect(server.name).toBe("POST /message:send");
    expect(server.attributes["http.route"]).toBe("/message:send");
    expect(server.attributes["http.request.method"]).toBe("POST");
    expect(server.attributes["http.response.status_code"]).toBe(200);
  } else {
    expect(server.name).toBe(`lf.a2a.v1.A2AService/${method}`);
    expect(server.attributes["rpc.system"]).toBe(system);
  }
  expect(server.attributes["rpc.response.status_code"]).toBe("OK");
  expect(typeof server.attributes["a2a.task.id"]).toBe("string");
  expect(typeof server.attributes["a2a.context.id"]).toBe("string");
  const run = await spanNamed((s) => s.name === "a2a.executor.run" && s.spanContext().traceId === CALLER_TRACE, "executor run");
  expect(parentOf(run), "the run is the request's child").toBe(server.spanContext().spanId);
  expect(run.attributes["a2a.task.state"]).toBe("COMPLETED");
  expectNothingSecret();
}

describe("HTTP+JSON and JSON-RPC on every adapter", () => {
  for (const framework of ["express", "fastify", "hono"] satisfies BothFramework[]) {
    test(framework, async () => {
      const agent = createA2AServiceAgent(echo, { card });
      const s = await startBoth(framework, agent);
      try {
        const rest = await fetch(`${s.origin}/message:send`, { method: "POST", headers, body: JSON.stringify({ message }) });
        expect(rest.status).toBe(200);
        await expectServed("SendMessage", "http");
        spans.reset();
        const rpc = await fetch(`${s.origin}/jsonrpc`, {
          method: "POST",
          headers,
          body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } }),
        });
        expect(rpc.status).toBe(200);
        await expectServed("SendMessage", "jsonrpc");
        const m = await metricsByName();
        const points = (name: string) => m.get(name)?.dataPoints.map((p) => p.attributes) ?? [];
        expect(points("rpc.server.duration")).toContainEqual(
          expect.objectContaining({ "rpc.system": "jsonrpc", "rpc.method": "SendMessage" }),
        );
        expect(points("http.server.request.duration")).toContainEqual(
          expect.objectContaining({ "http.route": "/message:send", "http.response.status_code": 200, "rpc.response.status_code": "OK" }),
        );
      } finally {
        await s.close();
        await agent.close();
      }
    });
  }

  test("node's http, an error answer: the span records its google.rpc code", async () => {
    const agent = createA2AServiceAgent(echo, { card });
    const server = createServer(createNodeHandler(A2AServiceRoutes, agent, { profile: "a2a" }));
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    try {
      const ok = await fetch(`${origin}/message:send`, { method: "POST", headers, body: JSON.stringify({ message }) });
      expect(ok.status).toBe(200);
      await expectServed("SendMessage", "http");
      spans.reset();
      const missing = await fetch(`${origin}/tasks/nope`, { headers });
      expect(missing.status).toBe(404);
      const span = await spanNamed((s) => s.attributes["rpc.method"] === "GetTask", "GetTask");
      expect(span.name).toBe("GET /tasks/{id=*}");
      expect(span.attributes["rpc.response.status_code"]).toBe("NOT_FOUND");
      expect(span.attributes["a2a.task.id"], "the task the rpc names").toBe("nope");
      expect(span.attributes["http.response.status_code"]).toBe(404);
      expect(span.status.code).toBe(2);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
      await agent.close();
    }
  });

  test("a stream's span ends with the stream and counts as an active stream meanwhile", async () => {
    const agent = createA2AServiceAgent(echo, { card });
    const s = await startBoth("hono", agent);
    try {
      const res = await fetch(`${s.origin}/message:stream`, { method: "POST", headers, body: JSON.stringify({ message }) });
      expect(await res.text()).toContain("TASK_STATE_COMPLETED");
      const span = await spanNamed((x) => x.attributes["rpc.method"] === "SendStreamingMessage", "stream");
      expect(span.spanContext().traceId).toBe(CALLER_TRACE);
      expect(span.attributes["rpc.response.status_code"]).toBe("OK");
      const m = await metricsByName();
      const streams = m.get("a2a.server.active_streams");
      expect(streams, "active streams recorded").toBeDefined();
      // Up and down again: none open once the stream ended.
      expect(streams!.dataPoints.reduce((n, p) => n + (p.value as number), 0)).toBe(0);
    } finally {
      await s.close();
      await agent.close();
    }
  });
});

test("gRPC through connect-es: a SERVER span under the caller's traceparent, grpc status", async () => {
  const agent = createA2AServiceAgent(echo, { card });
  const transport = createRouterTransport(a2aServiceConnect(agent, {}));
  const client = createClient(A2AService, transport);
  const msg = { messageId: "m1", role: 1, parts: [{ content: { case: "text" as const, value: SECRET_TEXT } }] };
  await client.sendMessage({ message: msg }, { headers: { "a2a-version": "1.0", traceparent, authorization: CREDENTIAL } });
  await expectServed("SendMessage", "grpc");
  const span = finished().find((s) => s.attributes["rpc.method"] === "SendMessage")!;
  expect(span.attributes["rpc.grpc.status_code"]).toBe(0);
  spans.reset();
  await expect(client.getTask({ id: "nope" }, { headers: { "a2a-version": "1.0", traceparent } })).rejects.toThrow();
  const failed = await spanNamed((s) => s.attributes["rpc.method"] === "GetTask", "GetTask");
  expect(failed.attributes["rpc.grpc.status_code"]).toBe(5);
  expect(failed.status.code).toBe(2);
  await agent.close();
});

describe("one trace across agents and the webhook", () => {
  const servers: Server[] = [];
  afterEach(async () => {
    for (const s of servers.splice(0)) {
      s.closeAllConnections();
      await new Promise((r) => s.close(r));
    }
  });

  async function listen(server: Server): Promise<string> {
    servers.push(server);
    await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  }

  test("client → agent A → (its executor's client) → agent B, and A's push webhook: one trace id, parent by parent", async () => {
    const b = createA2AServiceAgent(echo, { card });
    const bUrl = await listen(createServer(createNodeHandler(A2AServiceRoutes, b, { profile: "a2a" })));
    const hooks: IncomingHttpHeaders[] = [];
    const hookUrl = await listen(
      createServer((req, res) => {
        hooks.push(req.headers);
        req.resume();
        req.on("end", () => res.end());
      }),
    );
    const bClient = createA2AServiceClient({ baseUrl: bUrl });
    const pushSender = createPushSender({ allow: { http: true, addresses: ["127.0.0.1/32"] } });
    const a = createA2AServiceAgent(
      async (input, task) => {
        // The executor asks agent B; the client carries the run's trace context.
        const res = await bClient.sendMessage({
          message: { messageId: "b1", role: 1, parts: [{ content: { case: "text", value: input.text } }] },
        });
        await task.complete(res.payload.case === "task" ? "asked B" : "no task");
      },
      { card: pushCard, pushSender },
    );
    const aUrl = await listen(createServer(createNodeHandler(A2AServiceRoutes, a, { profile: "a2a" })));
    try {
      const res = await fetch(`${aUrl}/message:send`, {
        method: "POST",
        headers,
        body: JSON.stringify({ message, configuration: { taskPushNotificationConfig: { url: `${hookUrl}/hook`, token: PUSH_TOKEN } } }),
      });
      expect(res.status).toBe(200);
      await pushSender.idle();
      const serverA = await spanNamed((s) => s.kind === 1 && s.name === "POST /message:send" && parentOf(s) === CALLER_SPAN, "A's span");
      const runA = await spanNamed((s) => s.name === "a2a.executor.run" && parentOf(s) === serverA.spanContext().spanId, "A's run");
      const clientCall = await spanNamed((s) => s.kind === 2 && s.attributes["rpc.method"] === "SendMessage", "A's client call");
      expect(parentOf(clientCall), "the client call is the run's child").toBe(runA.spanContext().spanId);
      const serverB = await spanNamed((s) => s.kind === 1 && parentOf(s) === clientCall.spanContext().spanId, "B's span");
      for (const s of [runA, clientCall, serverB]) expect(s.spanContext().traceId).toBe(CALLER_TRACE);
      // The webhook got the task's trace, one attempt span per delivery.
      expect(hooks.length).toBeGreaterThan(0);
      for (const h of hooks) expect(String(h["traceparent"])).toMatch(new RegExp(`^00-${CALLER_TRACE}-[0-9a-f]{16}-01$`));
      expect(hooks[0]!["baggage"], "baggage carried through").toContain("tier=gold");
      const push = await spanNamed((s) => s.name === "a2a.push.deliver", "push attempt");
      expect(push.spanContext().traceId).toBe(CALLER_TRACE);
      expect(push.attributes["a2a.push.outcome"]).toBe("ok");
      expectNothingSecret();
      const m = await metricsByName();
      for (const name of [
        "http.server.request.duration",
        "rpc.client.duration",
        "a2a.tasks.started",
        "a2a.tasks.ended",
        "a2a.executor.run.duration",
        "a2a.push.attempts",
        "a2a.push.attempt.duration",
      ]) {
        expect(m.get(name), name).toBeDefined();
      }
      const ended = m.get("a2a.tasks.ended")!.dataPoints.find((p) => p.attributes["a2a.task.state"] === "COMPLETED");
      expect(ended?.value).toBeGreaterThan(0);
    } finally {
      await a.close();
      await b.close();
    }
  });
});

test("the SQL store's operations: a span and a duration each, named by what they do, no values", async () => {
  const fake = {
    tasks: { get: async (_key: unknown) => ({ id: SECRET_TEXT }), broken: async () => Promise.reject(new Error("boom")) },
    pushConfigs: {},
  } as unknown as AgentStore;
  const store = withUnavailableFaults(fake) as unknown as { tasks: Record<string, (...a: unknown[]) => Promise<unknown>> };
  await store.tasks["get"]!({ tenant: "", owner: "", id: SECRET_TEXT });
  await expect(store.tasks["broken"]!()).rejects.toThrow("boom");
  const get = await spanNamed((s) => s.name === "store tasks.get", "store op");
  expect(get.attributes["db.operation.name"]).toBe("tasks.get");
  const broken = await spanNamed((s) => s.name === "store tasks.broken", "failed store op");
  expect(broken.status.code).toBe(2);
  expectNothingSecret();
  const m = await metricsByName();
  expect(m.get("db.client.operation.duration")).toBeDefined();
});

test("jsonLogger: trace_id and span_id of the active span on each line", () => {
  const lines: string[] = [];
  const log = jsonLogger({ write: (l) => lines.push(l) });
  const span = tracerProvider.getTracer("t").startSpan("work");
  context.with(trace.setSpan(context.active(), span), () => log.info({}, "inside"));
  log.info({}, "outside");
  span.end();
  const inside = JSON.parse(lines[0]!);
  expect(inside.trace_id).toBe(span.spanContext().traceId);
  expect(inside.span_id).toBe(span.spanContext().spanId);
  expect(JSON.parse(lines[1]!).trace_id).toBeUndefined();
});

test("enableOpenTelemetry's off switch: the hook is empty again, and nothing more is recorded", async () => {
  const { telemetry } = await import("../../../packages/runtime/src/telemetry.js");
  expect(telemetry.on).toBeDefined();
  disable();
  try {
    expect(telemetry.on).toBeUndefined();
    const agent = createA2AServiceAgent(echo, { card });
    const s = await startBoth("express", agent);
    await fetch(`${s.origin}/message:send`, { method: "POST", headers, body: JSON.stringify({ message }) });
    await s.close();
    await agent.close();
    expect(finished()).toEqual([]);
  } finally {
    enable();
  }
  // Propagation is the given propagator's, not the global one (none is registered here).
  expect(propagation.fields()).toEqual([]);
});

test("a tracer or propagator that throws fails no request: the spans are then non-recording, the trace headers left out", async () => {
  disable();
  const fail = () => {
    throw new Error("broken telemetry");
  };
  const off = enableOpenTelemetry({
    tracerProvider: { getTracer: () => ({ startSpan: fail, startActiveSpan: fail }) } as never,
    meterProvider,
    propagator: { extract: fail, inject: fail, fields: () => [] },
  });
  const agent = createA2AServiceAgent(echo, { card });
  const s = await startBoth("express", agent);
  try {
    const rest = await fetch(`${s.origin}/message:send`, { method: "POST", headers, body: JSON.stringify({ message }) });
    expect(rest.status).toBe(200);
    const rpc = await fetch(`${s.origin}/jsonrpc`, {
      method: "POST",
      headers,
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } }),
    });
    expect(((await rpc.json()) as { result?: unknown }).result).toBeDefined();
  } finally {
    await s.close();
    await agent.close();
    off();
    enable();
  }
});

test("enabled on the global providers with no SDK registered: dormant (nothing done, as off) until an SDK registers", async () => {
  disable();
  const { telemetry } = await import("../../../packages/runtime/src/telemetry.js");
  const off = enableOpenTelemetry();
  try {
    expect(telemetry.on, "the API's no-op providers: nothing to record").toBeUndefined();
    const agent = createA2AServiceAgent(echo, { card });
    const s = await startBoth("hono", agent);
    try {
      await fetch(`${s.origin}/message:send`, { method: "POST", headers, body: JSON.stringify({ message }) });
      expect(finished()).toEqual([]);
      trace.setGlobalTracerProvider(tracerProvider);
      propagation.setGlobalPropagator(propagator);
      expect(telemetry.on, "an SDK registered").toBeDefined();
      await fetch(`${s.origin}/message:send`, { method: "POST", headers, body: JSON.stringify({ message }) });
      await expectServed("SendMessage", "http");
    } finally {
      await s.close();
      await agent.close();
    }
  } finally {
    off();
    trace.disable();
    propagation.disable();
    enable();
  }
});

test("without enableOpenTelemetry, nothing imports @opentelemetry/api: only otel/ does, and it imports no node:", () => {
  const root = join(import.meta.dirname, "../../../packages/runtime/src");
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) walk(p);
      else if (p.endsWith(".ts")) files.push(p);
    }
  };
  walk(root);
  const importsOtel = files.filter((f) => /from "@opentelemetry\//.test(readFileSync(f, "utf8")));
  expect(importsOtel.length).toBeGreaterThan(0);
  for (const f of importsOtel) expect(f.startsWith(join(root, "otel")), f).toBe(true);
  for (const f of files.filter((x) => x.startsWith(join(root, "otel")))) {
    const text = readFileSync(f, "utf8");
    expect(text, f).not.toMatch(/from "node:/);
    for (const m of text.matchAll(/from "(@opentelemetry\/[^"]+)"/g)) expect(m[1], f).toBe("@opentelemetry/api");
  }
  // Nothing outside otel/ imports otel/.
  for (const f of files.filter((x) => !x.startsWith(join(root, "otel")))) expect(readFileSync(f, "utf8"), f).not.toMatch(/\/otel\//);
});

async function metricsByName() {
  const { resourceMetrics } = (await reader.collect()) as { resourceMetrics: ResourceMetrics };
  const out = new Map<string, (typeof resourceMetrics.scopeMetrics)[number]["metrics"][number]>();
  for (const sm of resourceMetrics.scopeMetrics) for (const m of sm.metrics) out.set(m.descriptor.name, m);
  return out;
}
