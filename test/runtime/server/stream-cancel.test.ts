// A stream handler's signal fires, and its iterator gets return(), when the
// response stream is cancelled: on Node through each adapter (Express,
// Fastify, Hono on @hono/node-server) for HTTP+JSON and JSON-RPC, and on the
// fetch handler alone (as Bun, Deno and Workers run it) when the body's reader
// is cancelled or the Request's own signal fires.
import { request as httpRequest } from "node:http";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import type { HandlerContext } from "a2a-http";
import { createFetchHandler, fetchHandlerOf } from "a2a-http/server";
import { createJsonRpcHandler } from "a2a-http/jsonrpc";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { EventHub } from "../../../packages/runtime/src/agent/event-hub.js";
import type { StoredEvent } from "../../../packages/runtime/src/agent/store.js";
import { TaskStream } from "../../../packages/runtime/src/agent/task-stream.js";
import { startBoth, type BothFramework } from "./serve-both.js";

const headers = { "a2a-version": "1.0", "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const restBody = JSON.stringify({ message });
const rpcBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendStreamingMessage", params: { message } });
const event = { payload: { case: "statusUpdate" as const, value: { taskId: "t", contextId: "c", status: { state: 2 } } } };

/** A stream handler that sends one event, then waits for its signal; it records when that fired and whether return() came. */
function waitingStream() {
  const seen = { started: 0, waiting: 0, aborted: 0, returned: 0, signals: [] as AbortSignal[] };
  const handlers: Partial<A2AServiceHandlers> = {
    sendStreamingMessage(_req, ctx: HandlerContext) {
      seen.started++;
      const signal = ctx.signal;
      seen.signals.push(signal);
      let sent = false;
      return {
        [Symbol.asyncIterator]: () => ({
          async next() {
            if (!sent) {
              sent = true;
              return { done: false, value: event };
            }
            seen.waiting++;
            await new Promise<void>((resolve) => {
              if (signal.aborted) return resolve();
              signal.addEventListener("abort", () => resolve(), { once: true });
            });
            seen.aborted++;
            return { done: true, value: undefined };
          },
          async return() {
            seen.returned++;
            return { done: true, value: undefined };
          },
        }),
      };
    },
  };
  return { seen, handlers };
}

/**
 * Reads the answer's first chunk, then drops the connection: the client goes
 * away mid-stream. node:http without an agent, so no pooled connection is
 * left for the server's close to wait on.
 */
function readOneThenDrop(url: string, body: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: "POST", headers, agent: false }, (res) => {
      if (res.statusCode !== 200) reject(new Error(`status ${res.statusCode}`));
      res.once("data", (chunk: Buffer) => {
        req.destroy();
        resolve(chunk.toString("utf8"));
      });
      res.on("error", () => {});
    });
    req.on("error", () => {});
    req.end(body);
  });
}

describe.each(["express", "fastify", "hono"] as BothFramework[])("a client that goes away on %s", (framework) => {
  const { seen, handlers } = waitingStream();
  let server: Awaited<ReturnType<typeof startBoth>>;
  beforeAll(async () => {
    server = await startBoth(framework, handlers);
  });
  afterAll(() => server.close());

  test.each([
    ["HTTP+JSON", "/message:stream", restBody],
    ["JSON-RPC", "/jsonrpc", rpcBody],
  ])("%s: the handler's signal fires within 1 s and return() is called", async (_binding, path, body) => {
    const before = { ...seen };
    const first = await readOneThenDrop(server.origin + path, body);
    expect(first).toContain("statusUpdate");
    const gone = Date.now();
    await vi.waitFor(
      () => {
        expect(seen.aborted).toBe(before.aborted + 1);
        expect(seen.returned).toBe(before.returned + 1);
      },
      { timeout: 1_000, interval: 5 },
    );
    expect(Date.now() - gone).toBeLessThan(1_000);
    expect(seen.signals.at(-1)!.aborted).toBe(true);
  });
});

describe("the fetch handler alone (Bun, Deno, Workers)", () => {
  const bindings = {
    "HTTP+JSON": (h: Partial<A2AServiceHandlers>) => ({
      handle: createFetchHandler(A2AServiceRoutes, h, { profile: "a2a" }),
      url: "http://agent.test/message:stream",
      body: restBody,
    }),
    "JSON-RPC": (h: Partial<A2AServiceHandlers>) => ({
      handle: fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, h, { profile: "a2a" })),
      url: "http://agent.test/",
      body: rpcBody,
    }),
  };

  test.each(Object.keys(bindings) as (keyof typeof bindings)[])(
    "%s: cancelling the body's reader aborts the handler's signal and returns its iterator",
    async (binding) => {
      const { seen, handlers } = waitingStream();
      const { handle, url, body } = bindings[binding](handlers);
      const res = await handle(new Request(url, { method: "POST", headers: { ...headers, host: "agent.test" }, body }));
      expect(res.status).toBe(200);
      const reader = res.body!.getReader();
      const first = await reader.read();
      expect(new TextDecoder().decode(first.value)).toContain("statusUpdate");
      expect(seen.signals[0]!.aborted).toBe(false);
      // A read waiting for the next event when the host cancels: it must settle, not throw.
      const waiting = reader.read();
      await vi.waitFor(() => expect(seen.waiting).toBe(1), { timeout: 1_000, interval: 1 });
      await reader.cancel();
      expect(seen.signals[0]!.aborted).toBe(true);
      expect(await waiting).toEqual({ done: true, value: undefined });
      await vi.waitFor(
        () => {
          expect(seen.returned).toBe(1);
          expect(seen.aborted).toBe(1);
        },
        { timeout: 1_000, interval: 5 },
      );
    },
  );

  test("the Request's signal while a task stream catches up from the store: the body ends once, nothing thrown when the catch-up comes", async () => {
    const hub = new EventHub(100);
    const sub = hub.subscribe("t");
    let release: (events: StoredEvent[]) => void = () => {};
    const stream = new TaskStream(
      async () => ({
        first: [event],
        sub,
        follow: { sub, afterSeq: 1, events: () => new Promise<StoredEvent[]>((r) => (release = r)) },
      }),
      () => false,
      () => new AbortController().signal,
    );
    const { handle, url, body } = bindings["HTTP+JSON"]({ sendStreamingMessage: () => stream as unknown as AsyncIterable<never> });
    const client = new AbortController();
    const res = await handle(
      new Request(url, { method: "POST", headers: { ...headers, host: "agent.test" }, body, signal: client.signal }),
    );
    const reader = res.body!.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toContain("statusUpdate");
    // Seq 3 after 1: a gap, read from the store (a poll that goes through next()).
    hub.publish("t", { seq: 3, event: event as unknown as StoredEvent["event"] });
    await new Promise((r) => setTimeout(r, 5));
    const thrown: unknown[] = [];
    const onRejection = (e: unknown) => thrown.push(e);
    process.on("unhandledRejection", onRejection);
    try {
      client.abort();
      // A read while the catch-up is out: the closed stream's body ends.
      expect(await reader.read()).toEqual({ done: true, value: undefined });
      release([]);
      await new Promise((r) => setTimeout(r, 20));
    } finally {
      process.off("unhandledRejection", onRejection);
    }
    expect(thrown).toEqual([]);
  });

  test("the Request's own signal (workerd's enable_request_signal) aborts a waiting stream before any cancel", async () => {
    const { seen, handlers } = waitingStream();
    const { handle, url, body } = bindings["HTTP+JSON"](handlers);
    const client = new AbortController();
    const res = await handle(
      new Request(url, { method: "POST", headers: { ...headers, host: "agent.test" }, body, signal: client.signal }),
    );
    const reader = res.body!.getReader();
    await reader.read();
    const waiting = reader.read();
    client.abort();
    expect(seen.signals[0]!.aborted).toBe(true);
    await vi.waitFor(() => expect(seen.returned).toBe(1), { timeout: 1_000, interval: 5 });
    // The stream ends rather than hanging: the handler ended, so the body closes.
    expect(await waiting).toEqual({ done: true, value: undefined });
  });
});
