/**
 * HTTP+JSON and JSON-RPC share one call (client/wire-client.ts): the same
 * header rules with each binding's media types, interceptors, deadline and
 * cancellation, checked on both against a recording server on 127.0.0.1.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { Code, type RpcError, type ClientInterceptor, type ClientOptions } from "a2a-http";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { createA2AServiceClient as createV03Client } from "../../../gen/a2a-v0_3_http_client.js";
import type { Responder } from "./recorder.js";
import { startRecorder, type Recorder } from "./recorder.js";

const TASK = { id: "t1", contextId: "c1" };

/** Answers as the binding does: the task, or a JSON-RPC envelope around it with the request's id; a stream as one event. */
const answer: Responder = (req, res) => {
  const rpc = req.body.startsWith('{"jsonrpc"') ? (JSON.parse(req.body) as { id: number }) : undefined;
  const body = JSON.stringify(rpc ? { jsonrpc: "2.0", id: rpc.id, result: TASK } : TASK);
  if ((req.headers.accept ?? "").startsWith("text/event-stream")) {
    res.writeHead(200, { "content-type": "text/event-stream" });
    res.end(`data: ${JSON.stringify(rpc ? { jsonrpc: "2.0", id: rpc.id, result: { task: TASK } } : { task: TASK })}\n\n`);
    return;
  }
  res.writeHead(200, { "content-type": "application/json" });
  res.end(body);
};

let server: Recorder;
beforeAll(async () => {
  server = await startRecorder(answer);
});
afterAll(() => server.close());
beforeEach(() => {
  server.respond = answer;
});

const bindings = [
  {
    transport: "http+json",
    unary: { accept: "application/a2a+json, application/json", contentType: "application/a2a+json" },
    stream: { accept: "text/event-stream" },
  },
  {
    transport: "jsonrpc",
    unary: { accept: "application/json", contentType: "application/json" },
    stream: { accept: "text/event-stream, application/json" },
  },
] as const;

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as RpcError,
  );

describe.each(bindings)("the shared call over $transport", ({ transport, unary, stream }) => {
  const client = (options: Partial<ClientOptions> = {}) => createA2AServiceClient({ baseUrl: server.url, transport, ...options });

  it("defaults: A2A-Version, the binding's Accept and Content-Type (only with a body)", async () => {
    await client().cancelTask({ id: "t1" });
    expect(server.last().headers).toMatchObject({ "a2a-version": "1.0", accept: unary.accept, "content-type": unary.contentType });
    for await (const _ of client().subscribeToTask({ id: "t1" })) void _;
    expect(server.last().headers).toMatchObject({ "a2a-version": "1.0", accept: stream.accept });
    await createV03Client({ baseUrl: server.url, transport }).getTask({ name: "tasks/t1" });
    expect(server.last().headers["a2a-version"]).toBe("0.3");
  });

  it("the client's headers (a value or a function called per call) over the defaults, the call's over both", async () => {
    let n = 0;
    const own = { "a2a-version": "0.9", accept: "application/x-mine", "x-static": "s" };
    await client({ headers: own }).getTask({ id: "t1" }, { headers: { "x-static": "call", "x-call": "c" } });
    expect(server.last().headers).toMatchObject({ ...own, "x-static": "call", "x-call": "c" });
    const byFunction = client({ headers: async () => ({ "x-n": String(++n) }) });
    await byFunction.getTask({ id: "t1" });
    await byFunction.getTask({ id: "t1" }, { headers: { accept: "application/x-call" } });
    expect(server.last().headers).toMatchObject({ "x-n": "2", accept: "application/x-call", "a2a-version": "1.0" });
  });

  it("interceptors run in order around the request, and may change its headers", async () => {
    const log: string[] = [];
    const mk =
      (name: string): ClientInterceptor =>
      (next) =>
      async (req) => {
        log.push(`${name}>${req.rpc} ${req.method} ${req.streaming}`);
        req.headers.set(`x-${name}`, "1");
        const res = await next(req);
        log.push(`${name}<${res.status}`);
        return res;
      };
    await client({ interceptors: [mk("a"), mk("b")] }).getTask({ id: "t1" });
    const method = transport === "jsonrpc" ? "POST" : "GET";
    expect(log).toEqual([`a>getTask ${method} false`, `b>getTask ${method} false`, "b<200", "a<200"]);
    expect(server.last().headers).toMatchObject({ "x-a": "1", "x-b": "1", accept: unary.accept });
  });

  it("a deadline is DEADLINE_EXCEEDED, the caller's abort CANCELLED, on a unary call and a stream", async () => {
    server.respond = () => {}; // never answers
    const late = await errorOf(client({ timeoutMs: 50 }).getTask({ id: "t1" }));
    expect([late?.code, late?.httpStatus]).toEqual([Code.DEADLINE_EXCEEDED, 0]);
    const ctl = new AbortController();
    setTimeout(() => ctl.abort(new Error("stop")), 20);
    const drained = async () => {
      for await (const _ of client().subscribeToTask({ id: "t1" }, { signal: ctl.signal })) void _;
    };
    const cancelled = await errorOf(drained());
    expect([cancelled?.code, (cancelled?.cause as Error | undefined)?.message]).toEqual([Code.CANCELLED, "stop"]);
  });

  it("a stream's event comes back as the output message", async () => {
    const events: unknown[] = [];
    for await (const e of client().subscribeToTask({ id: "t1" })) events.push(e.payload.case === "task" ? e.payload.value.id : e);
    expect(events).toEqual(["t1"]);
  });
});
