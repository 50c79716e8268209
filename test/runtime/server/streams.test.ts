// SSE: the first message is awaited before the 200; later errors are a
// final `event: error`; a client that goes away aborts the handler's signal
// and closes the iterator, without listener or memory growth.
import { request as httpRequest } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import { A2AErrors, type HandlerContext } from "a2a-http";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { EventHub } from "../../../packages/runtime/src/agent/event-hub.js";
import type { StoredEvent } from "../../../packages/runtime/src/agent/store.js";
import { TaskStream } from "../../../packages/runtime/src/agent/task-stream.js";
import { frameworks, start, type Running } from "./harness.js";
import { parseSse, send } from "./recording.js";

const v = { "a2a-version": "1.0", "content-type": "application/json" };
const body = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } });
const ev = (n: number) => ({
  payload: { case: "statusUpdate" as const, value: { taskId: "t", contextId: "c", status: { state: 2 }, metadata: { n } } },
});

/** An event of about 64 KB. */
const bigEvent = (n: number) => ({
  payload: {
    case: "statusUpdate" as const,
    value: { taskId: "t", contextId: "c", status: { state: 2 }, metadata: { n, pad: "x".repeat(64 * 1024) } },
  },
});

/** Opens an SSE request and reads nothing after its first chunk; the request, to destroy. */
function openAndStall(url: string): Promise<{ destroy(): void }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + "/message:stream", { method: "POST", headers: v, agent: false }, (res) => {
      res.once("data", () => {
        res.pause();
        resolve(req);
      });
      res.once("error", () => {});
    });
    req.on("error", reject);
    req.end(body);
  });
}

/** Opens an SSE request, waits for the first chunk, then destroys the socket. */
function openAndDrop(url: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url + "/message:stream", { method: "POST", headers: v, agent: false }, (res) => {
      res.once("data", () => {
        req.destroy();
        resolve();
      });
      res.once("error", () => {});
    });
    req.on("error", () => {});
    req.on("close", () => resolve());
    req.end(body);
    void reject;
  });
}

describe.each(frameworks)("SSE on %s", (framework) => {
  let server: Running;
  const state = { aborted: 0, returned: 0, started: 0, signalListeners: 0 };
  let mode: "wait" | "fail-first" | "fail-later" | "empty" | "crash-later" | "flood" = "wait";
  /** Events the "flood" handler gave: it has one for every next(), at once. */
  let flooded = 0;
  const errors: unknown[] = [];
  const handlers: Partial<A2AServiceHandlers> = {
    sendStreamingMessage(_req, ctx: HandlerContext) {
      state.started++;
      ctx.responseHeaders.set("a2a-extensions", "urn:x");
      const signal = ctx.signal;
      return {
        [Symbol.asyncIterator]() {
          let i = 0;
          return {
            async next() {
              if (mode === "fail-first") throw A2AErrors.taskNotFound("t9");
              if (mode === "empty") return { done: true, value: undefined };
              if (i === 0) return { done: false, value: ev(i++) };
              if (mode === "flood") {
                flooded++;
                return { done: false, value: bigEvent(i++) };
              }
              if (mode === "fail-later") throw A2AErrors.unsupportedOperation("task is done");
              if (mode === "crash-later") throw new Error("secret crash detail");
              // wait: park until the client goes away
              await new Promise<void>((resolve) => {
                if (signal.aborted) return resolve();
                state.signalListeners++;
                signal.addEventListener(
                  "abort",
                  () => {
                    state.signalListeners--;
                    state.aborted++;
                    resolve();
                  },
                  { once: true },
                );
              });
              return { done: true, value: undefined };
            },
            async return() {
              state.returned++;
              return { done: true, value: undefined };
            },
          };
        },
      };
    },
  };
  beforeAll(async () => {
    server = await start(framework, { kind: "a2a", handlers }, { onError: (e) => errors.push(e) });
  });
  afterAll(() => server.close());

  test("an error before the first message is a plain HTTP error", async () => {
    mode = "fail-first";
    const res = await send(server.url + "/message:stream", { method: "POST", headers: v, body });
    expect(res.status).toBe(404);
    expect(res.headers.get("content-type")).toBe("application/a2a+json");
    expect(res.json).toMatchObject({ error: { code: 404, status: "NOT_FOUND", details: [{ reason: "TASK_NOT_FOUND" }] } });
  });

  test("an error after the first message is a final event: error", async () => {
    mode = "fail-later";
    const res = await send(server.url + "/message:stream", { method: "POST", headers: v, body });
    expect(res.status).toBe(200);
    expect(res.headers.get("a2a-extensions")).toBe("urn:x");
    const events = parseSse(res.text);
    expect(events).toHaveLength(2);
    expect(events[0]!.event).toBe("message");
    expect(events[1]).toMatchObject({
      event: "error",
      data: {
        error: { code: 400, status: "FAILED_PRECONDITION", details: [{ reason: "UNSUPPORTED_OPERATION", domain: "a2a-protocol.org" }] },
      },
    });
  });

  test("a crash mid-stream is event: error INTERNAL without the message", async () => {
    mode = "crash-later";
    errors.length = 0;
    const res = await send(server.url + "/message:stream", { method: "POST", headers: v, body });
    const events = parseSse(res.text);
    expect(events[1]).toMatchObject({ event: "error", data: { error: { code: 500, status: "INTERNAL" } } });
    expect(res.text).not.toContain("secret");
    expect(errors).toHaveLength(1);
  });

  test("an empty stream is 200 with no events", async () => {
    mode = "empty";
    const res = await send(server.url + "/message:stream", { method: "POST", headers: v, body });
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    expect(res.text).toBe("");
  });

  test("a client that goes away: the signal fires and return() is called", async () => {
    mode = "wait";
    const before = { ...state };
    await openAndDrop(server.url);
    await vi.waitFor(
      () => {
        expect(state.aborted).toBe(before.aborted + 1);
        expect(state.returned).toBe(before.returned + 1);
      },
      { timeout: 10_000, interval: 5 },
    );
  });

  test("a client that reads nothing more: the writer stops taking events from the handler (backpressure), and return() when it leaves", async () => {
    mode = "flood";
    flooded = 0;
    const returned = state.returned;
    const req = await openAndStall(server.url);
    // The socket's and the response's buffers fill, then the writer waits for a drain: no more next() calls.
    let last = -1;
    for (const end = Date.now() + 10_000; Date.now() < end; ) {
      await new Promise((r) => setTimeout(r, 200));
      if (flooded === last) break;
      last = flooded;
    }
    expect(flooded).toBe(last);
    // Each event is 64 KB: a few MB of socket buffers on loopback, not the handler's every event.
    expect(flooded).toBeLessThan(500);
    req.destroy();
    await vi.waitFor(() => expect(state.returned).toBe(returned + 1), { timeout: 10_000, interval: 5 });
    mode = "wait";
  });

  test("1,000 aborted streams: no listener or memory growth", async () => {
    mode = "wait";
    setFlagsFromString("--expose-gc");
    const gc = runInNewContext("gc") as () => void;
    const listeners = () =>
      server.server.eventNames().reduce((n, e) => n + server.server.listenerCount(e), 0) +
      process.eventNames().reduce((n, e) => n + process.listenerCount(e), 0);
    const run = async (n: number) => {
      for (let i = 0; i < n; i += 50) await Promise.all(Array.from({ length: Math.min(50, n - i) }, () => openAndDrop(server.url)));
    };
    const warm = state.aborted;
    await run(100);
    await vi.waitFor(() => expect(state.aborted - warm).toBe(100), { timeout: 20_000, interval: 10 });
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const listenersBefore = listeners();
    const startedBefore = state.started;
    const returnedBefore = state.returned;
    const abortedBefore = state.aborted;
    await run(1000);
    await vi.waitFor(
      () => {
        expect(state.returned - returnedBefore).toBe(1000);
        expect(state.aborted - abortedBefore).toBe(1000);
      },
      { timeout: 30_000, interval: 10 },
    );
    expect(state.started - startedBefore).toBe(1000);
    expect(state.signalListeners).toBe(0);
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const growth = process.memoryUsage().heapUsed - heapBefore;
    expect(listeners()).toBe(listenersBefore);
    // Rough: 1,000 leaked streams (iterator, context, controller, buffers) would be well over this.
    expect(growth).toBeLessThan(8 * 1024 * 1024);
  });
});

/** A task event of about `pad` bytes, numbered `n` (in its metadata). */
const taskEvent = (n: number, pad: number) =>
  ({
    payload: { case: "statusUpdate", value: { taskId: "t", contextId: "c", status: { state: 2 }, metadata: { n, pad: "x".repeat(pad) } } },
  }) as unknown as StoredEvent["event"];

describe.each(frameworks)("a task's stream (TaskStream, polled by the writer) on %s", (framework) => {
  const LAST = 300;
  let server: Running;
  let hub = new EventHub(100_000);
  beforeAll(async () => {
    server = await start(framework, {
      kind: "a2a",
      handlers: {
        sendStreamingMessage() {
          const sub = hub.subscribe("t");
          const stream = new TaskStream(
            async () => ({ first: [taskEvent(0, 0)], sub, follow: { sub, afterSeq: 1, events: async () => [] } }),
            (e) => (e as unknown as ReturnType<typeof ev>).payload.value.metadata.n === LAST,
            () => new AbortController().signal,
          );
          return stream as unknown as AsyncIterable<never>;
        },
      },
    });
  });
  afterAll(() => server.close());

  test("a client that pauses through a burst, then reads: every event once and in order, then the end; the subscription closed", async () => {
    hub = new EventHub(100_000);
    let text = "";
    await new Promise<void>((resolve, reject) => {
      const req = httpRequest(`${server.url}/message:stream`, { method: "POST", headers: v, agent: false }, (res) => {
        res.setEncoding("utf8");
        res.once("data", () => {
          res.pause();
          // 16 KB events, 50 a turn: the response waits for drains while more are published.
          let seq = 1;
          const publish = () => {
            for (let i = 0; i < 50 && seq <= LAST; i++, seq++) hub.publish("t", { seq: seq + 1, event: taskEvent(seq, 16 * 1024) });
            if (seq <= LAST) setTimeout(publish, 1);
            else setTimeout(() => res.resume(), 50);
          };
          publish();
        });
        res.on("data", (chunk: string) => (text += chunk));
        res.on("end", resolve);
        res.on("error", reject);
      });
      req.on("error", reject);
      req.end(body);
    });
    const numbers = parseSse(text).map((e) => (e.data as { statusUpdate: { metadata: { n: number } } }).statusUpdate.metadata.n);
    expect(numbers).toEqual(Array.from({ length: LAST + 1 }, (_, i) => i));
    await vi.waitFor(() => expect(hub.has("t")).toBe(false), { timeout: 1_000, interval: 5 });
  });

  test("a client that leaves while the writer waits for a drain: the subscription closed", async () => {
    hub = new EventHub(100_000);
    const req = await openAndStall(server.url);
    for (let seq = 2; seq < 200; seq++) hub.publish("t", { seq, event: taskEvent(seq - 1, 64 * 1024) });
    await new Promise((r) => setTimeout(r, 50));
    expect(hub.has("t")).toBe(true);
    req.destroy();
    await vi.waitFor(() => expect(hub.has("t")).toBe(false), { timeout: 2_000, interval: 5 });
  });
});
