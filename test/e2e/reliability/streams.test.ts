// Streams under a client that leaves at random points, and under one that
// stops reading: every handler's signal fires and its iterator is closed,
// the heap comes back after GC, and a stalled reader holds the handler back
// (backpressure) instead of growing the server's memory.
import { request as httpRequest } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, test, vi } from "vitest";
import fc from "fast-check";
import type { HandlerContext } from "a2a-http";
import { frameworks, start, type Running } from "../../runtime/server/harness.js";
import { reportFigure } from "./report.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

const STREAMS = Number(process.env["ABORT_STREAMS"] ?? 1000);
const SEED = Number(process.env["FUZZ_SEED"] ?? 14);
const v = { "a2a-version": "1.0" };
const ev = (n: number, pad = "") => ({
  payload: { case: "statusUpdate" as const, value: { taskId: "t1", contextId: "c1", status: { state: 2 }, metadata: { n, pad } } },
});

describe.each(frameworks)("streams on %s", (framework) => {
  let server: Running;
  const state = { started: 0, aborted: 0, cleaned: 0, produced: 0 };
  let pad = "";
  let paceMs = 1;
  beforeAll(async () => {
    server = await start(
      framework,
      {
        kind: "a2a",
        handlers: {
          async *subscribeToTask(_req: unknown, ctx: HandlerContext) {
            state.started++;
            ctx.signal.addEventListener("abort", () => state.aborted++, { once: true });
            try {
              for (let i = 0; ; i++) {
                if (ctx.signal.aborted) return;
                state.produced++;
                yield ev(i, pad);
                if (paceMs > 0) await new Promise((r) => setTimeout(r, paceMs));
              }
            } finally {
              state.cleaned++;
            }
          },
        },
      } as never,
      { onError: () => {} },
    );
  });
  afterAll(() => server.close());

  test(`${STREAMS} streams aborted at random points: every signal fires, every iterator closes, heap flat`, async () => {
    paceMs = 1;
    pad = "";
    // Where each client leaves: after some milliseconds, or after some events.
    const plans = fc.sample(
      fc.oneof(fc.record({ afterMs: fc.integer({ min: 0, max: 25 }) }), fc.record({ afterEvents: fc.integer({ min: 0, max: 20 }) })),
      { numRuns: STREAMS + 100, seed: SEED },
    );
    const runOne = async (plan: { afterMs?: number; afterEvents?: number }) => {
      const ctl = new AbortController();
      try {
        if (plan.afterMs !== undefined) setTimeout(() => ctl.abort(), plan.afterMs);
        const res = await fetch(server.url + "/tasks/t1:subscribe", { headers: v, signal: ctl.signal });
        const reader = res.body!.getReader();
        let seen = 0;
        while (plan.afterEvents === undefined || seen < plan.afterEvents) {
          const r = await reader.read();
          if (r.done) break;
          seen += (new TextDecoder().decode(r.value).match(/\n\n/g) ?? []).length;
        }
        ctl.abort();
      } catch {
        // aborted
      }
    };
    const run = async (list: typeof plans) => {
      for (let i = 0; i < list.length; i += 50) await Promise.all(list.slice(i, i + 50).map(runOne));
    };
    const settled = () => state.started === state.cleaned && state.started === state.aborted;
    await run(plans.slice(0, 100)); // warm-up
    await vi.waitFor(() => expect(settled()).toBe(true), { timeout: 20_000, interval: 10 });
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const before = { ...state };
    await run(plans.slice(100));
    await vi.waitFor(() => expect(settled()).toBe(true), { timeout: 30_000, interval: 10 });
    await new Promise((r) => setTimeout(r, 50));
    gc();
    const growthMB = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    const started = state.started - before.started;
    reportFigure(`abort-${framework}`, {
      streams: STREAMS,
      started,
      signals: state.aborted - before.aborted,
      closed: state.cleaned - before.cleaned,
      heapGrowthMB: Number(growthMB.toFixed(2)),
    });
    // A client that leaves before the answer's headers may leave before the handler starts; every one that started is cleaned up.
    expect(started).toBeGreaterThan(STREAMS * 0.8);
    expect(state.cleaned - before.cleaned).toBe(started);
    expect(state.aborted - before.aborted).toBe(started);
    expect(growthMB).toBeLessThan(5);
  });

  test("a reader that stops reading holds the handler back (backpressure)", async () => {
    paceMs = 0;
    pad = "x".repeat(1024);
    gc();
    const heapBefore = process.memoryUsage().heapUsed;
    const producedBefore = state.produced;
    const req = httpRequest(server.url + "/tasks/t1:subscribe", { headers: v, agent: false }, (res) => res.pause());
    req.on("error", () => {});
    req.end();
    // Let the socket buffers fill, then watch the handler stall.
    await new Promise((r) => setTimeout(r, 500));
    const atStall = state.produced - producedBefore;
    await new Promise((r) => setTimeout(r, 500));
    const later = state.produced - producedBefore;
    gc();
    const growthMB = (process.memoryUsage().heapUsed - heapBefore) / 1e6;
    req.destroy();
    await vi.waitFor(() => expect(state.started).toBe(state.cleaned), { timeout: 10_000, interval: 10 });
    reportFigure(`slow-reader-${framework}`, {
      eventsBeforeStall: atStall,
      eventsInNext500ms: later - atStall,
      heapGrowthMB: Number(growthMB.toFixed(2)),
    });
    // 1 KiB events: the socket and stream buffers hold a few MiB at most.
    expect(atStall).toBeLessThan(20_000);
    expect(later - atStall).toBeLessThan(100);
    expect(growthMB).toBeLessThan(32);
  });
});
