/**
 * The example agent's zero-config OpenTelemetry (issue 40 items 6 and 7), end
 * to end: example/server.ts started as a child process with the standard
 * OTEL_* environment pointing at an OTLP/HTTP receiver in this test, in both
 * encodings (http/json, http/protobuf). Its server spans arrive with the
 * service name, a request with a `traceparent` is continued in that trace, and
 * its metrics arrive. Two example agents in a chain (a client → agent A, whose
 * executor asks agent B with the generated client → A's push webhook) make one
 * trace, and the webhook receives a `traceparent` of it. Without the
 * environment, the agent loads no OpenTelemetry SDK module.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { createServer, type IncomingHttpHeaders } from "node:http";
import type { AddressInfo } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startOtlpReceiver, type OtlpReceiver, type ReceivedSpan } from "./otlp-receiver.js";

const root = join(import.meta.dirname, "..", "..", "..");
const SERVER = 2;

interface Child {
  readonly url: string;
  readonly process: ChildProcess;
  /** Everything it wrote to stderr so far. */
  stderr(): string;
}

/** The environment without any OTEL_* of the machine running the tests. */
function baseEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("OTEL_")));
}

/** Starts example/server.ts (HTTP only, any free port); resolves once it listens. */
function startExample(env: NodeJS.ProcessEnv, args: string[] = [], preload: string[] = []): Promise<Child> {
  const child = spawn(
    process.execPath,
    [
      ...preload.flatMap((p) => ["--import", p]),
      "--conditions=a2a-http-source",
      "--import",
      "tsx",
      join(root, "example", "server.ts"),
      "--port",
      "0",
      "--grpc-port",
      "-1",
      ...args,
    ],
    { cwd: root, env: { ...baseEnv(), ...env }, stdio: ["ignore", "pipe", "pipe"] },
  );
  let out = "";
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  return new Promise((ok, fail) => {
    child.stdout.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /HTTP\+JSON on (http:\/\/[\d.:]+),/.exec(out);
      if (m) ok({ url: m[1]!, process: child, stderr: () => err });
    });
    child.once("close", (code) => fail(new Error(`the example exited (${code}) before listening:\n${out}\n${err}`)));
  });
}

/**
 * SIGTERM, as an orchestrator stops it; resolves with its exit code once it
 * has flushed and exited and all it wrote has been read ("close", not "exit",
 * which may come before the last of its stderr).
 */
function stop(child: Child | undefined): Promise<number | null> {
  if (!child || child.process.exitCode !== null) return Promise.resolve(child?.process.exitCode ?? null);
  return new Promise((ok) => {
    child.process.once("close", (code) => ok(code));
    child.process.kill("SIGTERM");
  });
}

const hex = (bytes: number) => randomBytes(bytes).toString("hex");

/** POST /message:send with the headers given; the JSON answer. */
async function send(url: string, text: string, headers: Record<string, string> = {}, configuration?: object): Promise<any> {
  const res = await fetch(`${url}/message:send`, {
    method: "POST",
    headers: { "content-type": "application/json", "a2a-version": "1.0", ...headers },
    body: JSON.stringify({
      message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] },
      ...(configuration ? { configuration } : {}),
    }),
  });
  expect(res.status).toBe(200);
  return res.json();
}

const otelEnv = (receiver: OtlpReceiver, protocol: string, service: string): NodeJS.ProcessEnv => ({
  OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
  OTEL_EXPORTER_OTLP_PROTOCOL: protocol,
  OTEL_SERVICE_NAME: service,
  // Short intervals, so that the test does not wait the defaults' 5 s and 60 s.
  OTEL_BSP_SCHEDULE_DELAY: "100",
  OTEL_METRIC_EXPORT_INTERVAL: "300",
});

const serverSpans = (r: OtlpReceiver, service: string) => r.spans.filter((s) => s.kind === SERVER && s.service === service);

describe.each(["http/json", "http/protobuf"])("the example agent exporting over OTLP/HTTP (%s)", (protocol) => {
  let receiver: OtlpReceiver;
  let agent: Child | undefined;
  const service = `example-${protocol.replace("/", "-")}`;
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    agent = await startExample(otelEnv(receiver, protocol, service));
  }, 60_000);
  afterAll(async () => {
    await stop(agent);
    await receiver?.close();
  });

  it("sends server spans with the service name, in the encoding asked for", async () => {
    await send(agent!.url, "hello");
    await receiver.until(() => serverSpans(receiver, service).some((s) => s.attributes["rpc.method"] === "SendMessage"));
    const span = serverSpans(receiver, service).find((s) => s.attributes["rpc.method"] === "SendMessage")!;
    expect(span.traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span.parentSpanId).toBe("");
    const type = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    expect(receiver.contentTypes.filter((t) => t.startsWith("/v1/traces")).every((t) => t.includes(type))).toBe(true);
  });

  it("continues the trace of a request's traceparent", async () => {
    const traceId = hex(16);
    const parent = hex(8);
    await send(agent!.url, "traced", { traceparent: `00-${traceId}-${parent}-01` });
    await receiver.until(() => serverSpans(receiver, service).some((s) => s.traceId === traceId));
    const span = serverSpans(receiver, service).find((s) => s.traceId === traceId)!;
    expect(span.parentSpanId).toBe(parent);
    // The executor's run is in the same trace.
    await receiver.until(() => receiver.spans.some((s) => s.traceId === traceId && s.spanId !== span.spanId));
  });

  it("sends metrics with the service name", async () => {
    await receiver.until(() => receiver.metrics.some((m) => m.service === service && m.name === "http.server.request.duration"));
    const type = protocol === "http/json" ? "application/json" : "application/x-protobuf";
    expect(receiver.contentTypes.filter((t) => t.startsWith("/v1/metrics")).every((t) => t.includes(type))).toBe(true);
  });

  it("flushes what it holds when stopped with SIGTERM, and exits 0", async () => {
    // A delay longer than the test: only the shutdown's flush can deliver this span.
    const slow = await startExample({ ...otelEnv(receiver, protocol, `${service}-slow`), OTEL_BSP_SCHEDULE_DELAY: "600000" });
    try {
      await send(slow.url, "last words");
    } finally {
      expect(await stop(slow)).toBe(0);
    }
    expect(serverSpans(receiver, `${service}-slow`).map((s) => s.attributes["rpc.method"])).toContain("SendMessage");
  });
});

describe("two example agents in a chain", () => {
  let receiver: OtlpReceiver;
  let a: Child | undefined;
  let b: Child | undefined;
  const hooks: IncomingHttpHeaders[] = [];
  const webhook = createServer((req, res) => {
    hooks.push(req.headers);
    req.resume();
    req.on("end", () => res.writeHead(200).end());
  });
  let webhookUrl = "";
  beforeAll(async () => {
    receiver = await startOtlpReceiver();
    await new Promise<void>((ok) => webhook.listen(0, "127.0.0.1", ok));
    webhookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/hook`;
    b = await startExample(otelEnv(receiver, "http/protobuf", "agent-b"));
    a = await startExample(otelEnv(receiver, "http/protobuf", "agent-a"), ["--peer", b.url]);
  }, 60_000);
  afterAll(async () => {
    await Promise.all([stop(a), stop(b)]);
    await receiver?.close();
    await new Promise<void>((ok) => webhook.close(() => ok()));
  });

  it("client → A → B → A's webhook is one trace, and the webhook receives its traceparent", async () => {
    const traceId = hex(16);
    const answer = await send(
      a!.url,
      "/ask hello",
      { traceparent: `00-${traceId}-${hex(8)}-01` },
      { taskPushNotificationConfig: { url: webhookUrl } },
    );
    expect(answer.task.artifacts[0].parts[0].text).toBe("peer: echo: hello");
    await receiver.until(() => serverSpans(receiver, "agent-b").some((s) => s.traceId === traceId));
    await receiver.until(() => receiver.spans.some((s: ReceivedSpan) => s.service === "agent-a" && s.kind === 3 && s.traceId === traceId));
    expect(serverSpans(receiver, "agent-a").some((s) => s.traceId === traceId)).toBe(true);
    await receiver.until(() => hooks.some((h) => typeof h["traceparent"] === "string"));
    const traceparents = hooks.map((h) => h["traceparent"]).filter((t): t is string => typeof t === "string");
    expect(traceparents.length).toBeGreaterThan(0);
    for (const t of traceparents) expect(t.split("-")[1]).toBe(traceId);
  });
});

describe("the example agent without OpenTelemetry's environment", () => {
  const preload = join(import.meta.dirname, "report-otel-imports.mjs");
  const otelModules = (stderr: string) => [...stderr.matchAll(/^otel-module: (.*)$/gm)].map((m) => m[1]!);

  it("loads no OpenTelemetry SDK module", async () => {
    const agent = await startExample({}, [], [preload]);
    try {
      await send(agent.url, "hello");
    } finally {
      await stop(agent);
    }
    expect(otelModules(agent.stderr()).filter((u) => !u.includes("/@opentelemetry/api/"))).toEqual([]);
  });

  it("loads the SDK once OTEL_EXPORTER_OTLP_ENDPOINT is set (the check above can see them)", async () => {
    const receiver = await startOtlpReceiver();
    const agent = await startExample(otelEnv(receiver, "http/json", "seen"), [], [preload]);
    await stop(agent);
    await receiver.close();
    expect(otelModules(agent.stderr()).some((u) => u.includes("/@opentelemetry/sdk-trace/"))).toBe(true);
  });

  it("OTEL_EXPORTER_OTLP_PROTOCOL=grpc stops it with a line saying to use http/protobuf", async () => {
    const child = spawn(
      process.execPath,
      ["--conditions=a2a-http-source", "--import", "tsx", join(root, "example", "server.ts"), "--port", "0"],
      {
        cwd: root,
        env: { ...baseEnv(), OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
        stdio: ["ignore", "pipe", "pipe"],
      },
    );
    let err = "";
    child.stderr.on("data", (c: Buffer) => (err += c.toString()));
    const code = await new Promise((ok) => child.once("close", ok));
    expect(code).toBe(2);
    expect(err).toContain("OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: set it to http/protobuf");
  });
});
