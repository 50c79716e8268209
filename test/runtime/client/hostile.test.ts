// The client against hostile or broken servers: every failure is an RpcError
// with a code, memory stays bounded (the event cap, the response cap), and
// AbortSignal and timeouts work in every state of a call.
import type { IncomingMessage, ServerResponse } from "node:http";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role } from "../../../gen/a2a_pb.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { Code, RpcError } from "a2a-http";
import { startRecorder, type Recorder } from "./recorder.js";
import { reportFigure } from "../../e2e/reliability/report.js";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

let server: Recorder;
beforeAll(async () => {
  server = await startRecorder();
});
/** Peak heap growth of the client per hostile server, for the README's figures. */
const peaks: Record<string, number> = {};
afterAll(async () => {
  const mb = (k: string) => (peaks[k] === undefined ? "–" : `${peaks[k]!.toFixed(0)} MB`);
  reportFigure("hostile", {
    summary:
      `an endless event: RESOURCE_EXHAUSTED, peak heap +${mb("endless")}; endless empty \`data:\` lines: RESOURCE_EXHAUSTED, +${mb("empty-lines")}; ` +
      `200,000 tiny events: all read, +${mb("tiny")}; a 200 MiB unary body: RESOURCE_EXHAUSTED, +${mb("body")}; ` +
      "stalled, reset, truncated, HTML and wrong-type answers: an RpcError with a code each; timeouts and AbortSignal in 7 states of a call",
  });
  await server.close();
});

const message = { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };
const client = (extra: Parameters<typeof createA2AServiceClient>[0] extends infer O ? Partial<O> : never = {}) =>
  createA2AServiceClient({ baseUrl: server.url, ...extra });

/** Writes `chunk()` until the client goes away (or `max` chunks). */
function flood(head: Record<string, string>, chunk: (i: number) => string, max = Infinity, status = 200) {
  return (_r: unknown, res: ServerResponse) => {
    res.writeHead(status, head);
    let i = 0;
    const pump = () => {
      while (!res.destroyed && i < max) {
        if (!res.write(chunk(i++))) return void res.once("drain", pump);
      }
      if (!res.destroyed) res.end();
    };
    res.on("close", () => (i = max));
    pump();
  };
}

const sseHead = { "content-type": "text/event-stream" };

/** Runs `f` and reports the largest heap growth seen while it ran (sampled), in MB. */
async function peakHeapGrowth<T>(f: () => Promise<T>): Promise<{ value: T; peakMB: number }> {
  gc();
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const timer = setInterval(() => {
    peak = Math.max(peak, process.memoryUsage().heapUsed);
  }, 2);
  try {
    const value = await f();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { value, peakMB: (peak - base) / 1e6 };
  } finally {
    clearInterval(timer);
  }
}

async function collect<T>(it: AsyncIterable<T>): Promise<{ items: number; error?: RpcError }> {
  let items = 0;
  try {
    for await (const _ of it) items++;
    return { items };
  } catch (e) {
    return { items, error: e as RpcError };
  }
}

describe("hostile streams", () => {
  it("an endless event: RESOURCE_EXHAUSTED at the cap, memory bounded", async () => {
    server.respond = flood(sseHead, (i) => (i === 0 ? "data: " : "x".repeat(64 * 1024)));
    const { value, peakMB } = await peakHeapGrowth(() => collect(client().sendStreamingMessage({ message })));
    peaks["endless"] = peakMB;
    expect(value.error).toBeInstanceOf(RpcError);
    expect(value.error?.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(peakMB).toBeLessThan(40);
  });

  it("endless empty data: lines are held to the cap too (D7)", async () => {
    server.respond = flood(sseHead, () => "data:\n".repeat(8192));
    const { value, peakMB } = await peakHeapGrowth(() => collect(client().sendStreamingMessage({ message })));
    peaks["empty-lines"] = peakMB;
    expect(value.error?.code).toBe(Code.RESOURCE_EXHAUSTED);
    // Before: the parser's data string grew line by line to ~130 MB before its bound stopped it.
    expect(peakMB).toBeLessThan(60);
  });

  it("the event cap is exact: max characters pass, max + 1 fail, even when the event ends in the same chunk (D7)", async () => {
    const max = 10_000;
    for (const [size, ok] of [
      [max, true],
      [max + 1, false],
    ] as const) {
      // One event of `size` characters of lines (`data: ` counted), then its blank line, in one write.
      const line = 'data: {"task":{"id":"' + "a".repeat(size - 'data: {"task":{"id":"'.length - 3) + '"}}';
      expect(line.length).toBe(size);
      server.respond = (_r, res) => {
        res.writeHead(200, sseHead);
        res.end(line + "\n\n" + 'data: {"task":{"id":"t2"}}\n\n');
      };
      const got = await collect(client({ maxEventSize: max }).sendStreamingMessage({ message }));
      if (ok) expect(got).toEqual({ items: 2 });
      else {
        expect(got.items).toBe(0);
        expect(got.error?.code).toBe(Code.RESOURCE_EXHAUSTED);
      }
    }
  });

  it("200,000 tiny events all arrive, memory bounded", async () => {
    server.respond = flood(sseHead, () => 'data: {"task":{}}\n\n'.repeat(1000), 200);
    const { value, peakMB } = await peakHeapGrowth(() => collect(client().sendStreamingMessage({ message })));
    peaks["tiny"] = peakMB;
    expect(value).toEqual({ items: 200_000 });
    expect(peakMB).toBeLessThan(40);
  });

  it("keep-alive comments are ignored", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200, sseHead);
      res.end(': keep-alive\n\n:\n\ndata: {"task":{"id":"t1"}}\n\n: keep-alive\r\n\r\n');
    };
    expect(await collect(client().sendStreamingMessage({ message }))).toEqual({ items: 1 });
  });

  it("a 200 that is not text/event-stream fails with INTERNAL naming what came (D3)", async () => {
    const answers: [Record<string, string>, string][] = [
      [{ "content-type": "application/json" }, '{"task":{"id":"t1"}}'],
      [{ "content-type": "text/html" }, "<html><body>Welcome to nginx</body></html>"],
      [{}, ""],
    ];
    for (const [head, body] of answers) {
      server.respond = (_r, res) => {
        res.writeHead(200, head);
        res.end(body);
      };
      const got = await collect(client().sendStreamingMessage({ message }));
      expect(got.items).toBe(0);
      expect(got.error).toBeInstanceOf(RpcError);
      expect(got.error?.code).toBe(Code.INTERNAL);
      expect(got.error?.httpStatus).toBe(200);
      expect(got.error?.message).toContain("text/event-stream");
    }
  });

  it("a reset mid-stream is UNAVAILABLE", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200, sseHead);
      res.write('data: {"task":{"id":"t1"}}\n\ndata: {"ta');
      setTimeout(() => res.socket?.destroy(), 20);
    };
    const got = await collect(client().sendStreamingMessage({ message }));
    expect(got.items).toBe(1);
    expect(got.error?.code).toBe(Code.UNAVAILABLE);
  });

  it("a truncated event at a clean end is dropped, not half-decoded", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200, sseHead);
      res.end('data: {"task":{"id":"t1"}}\n\ndata: {"ta');
    };
    expect(await collect(client().sendStreamingMessage({ message }))).toEqual({ items: 1 });
  });
});

describe("hostile unary answers", () => {
  it("a 200 MiB body: RESOURCE_EXHAUSTED at the cap, memory bounded (D6)", async () => {
    const chunk = "x".repeat(1024 * 1024);
    for (const head of [
      { "content-type": "application/json" },
      { "content-type": "application/json", "content-length": String(200 * 1024 * 1024) },
    ]) {
      server.respond = flood(head, () => chunk, 200);
      const { value, peakMB } = await peakHeapGrowth(() =>
        client()
          .getTask({ id: "t1" })
          .then(
            () => undefined,
            (e: unknown) => e,
          ),
      );
      expect(value).toBeInstanceOf(RpcError);
      expect((value as RpcError).code).toBe(Code.RESOURCE_EXHAUSTED);
      peaks["body"] = Math.max(peaks["body"] ?? 0, peakMB);
      expect(peakMB).toBeLessThan(60);
    }
  });

  it("maxResponseSize is configurable, and bounds error bodies too", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.end(JSON.stringify({ id: "t1", contextId: "c".repeat(2000) }));
    };
    await expect(client({ maxResponseSize: 1000 }).getTask({ id: "t1" })).rejects.toMatchObject({ code: Code.RESOURCE_EXHAUSTED });
    expect((await client({ maxResponseSize: 4000 }).getTask({ id: "t1" })).id).toBe("t1");
    // A 500 whose body never ends: still an RpcError with its status, read no further than the cap.
    server.respond = flood({ "content-type": "text/html" }, () => "<p>".repeat(100_000), Infinity, 500);
    const { value: e, peakMB } = await peakHeapGrowth(() =>
      client()
        .getTask({ id: "t1" })
        .catch((x: unknown) => x),
    );
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).httpStatus).toBe(500);
    expect(peakMB).toBeLessThan(60);
  });

  const broken: { name: string; respond: (r: unknown, res: ServerResponse) => void; code: Code; status?: number }[] = [
    {
      name: "truncated JSON",
      respond: (_r, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id":"t1","con');
      },
      code: Code.INTERNAL,
      status: 200,
    },
    {
      name: "an HTML 502 from a proxy",
      respond: (_r, res) => {
        res.writeHead(502, { "content-type": "text/html" });
        res.end("<html><h1>502 Bad Gateway</h1></html>");
      },
      code: Code.UNAVAILABLE,
      status: 502,
    },
    {
      name: "an HTML 500 page",
      respond: (_r, res) => {
        res.writeHead(500, { "content-type": "text/html" });
        res.end("<html>Internal Server Error</html>");
      },
      code: Code.UNKNOWN,
      status: 500,
    },
    {
      name: "a reset mid-body",
      respond: (_r, res) => {
        res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
        res.write('{"id":');
        setTimeout(() => res.socket?.destroy(), 20);
      },
      code: Code.UNAVAILABLE,
    },
    { name: "a reset before the headers", respond: (_r, res) => res.socket?.destroy(), code: Code.UNAVAILABLE },
    {
      name: "JSON of the wrong shape",
      respond: (_r, res) => {
        res.writeHead(200, { "content-type": "application/json" });
        res.end('{"id":5}');
      },
      code: Code.INTERNAL,
      status: 200,
    },
  ];
  it.each(broken)("$name: RpcError $code", async ({ respond, code, status }) => {
    server.respond = respond;
    const e = await client()
      .getTask({ id: "t1" })
      .catch((x: unknown) => x);
    expect(e).toBeInstanceOf(RpcError);
    expect((e as RpcError).code).toBe(code);
    if (status !== undefined) expect((e as RpcError).httpStatus).toBe(status);
  });

  it("a 200 with an empty body is an empty message (design: any 2xx, empty bodies)", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200);
      res.end();
    };
    expect((await client().getTask({ id: "t1" })).id).toBe("");
  });
});

describe("the JSON-RPC transport has the same bounds", () => {
  const rpc = () => client({ transport: "jsonrpc" });
  it("a 200 MiB answer: RESOURCE_EXHAUSTED, memory bounded", async () => {
    server.respond = flood({ "content-type": "application/json" }, () => "x".repeat(1024 * 1024), 200);
    const { value, peakMB } = await peakHeapGrowth(() =>
      rpc()
        .getTask({ id: "t1" })
        .then(
          () => undefined,
          (e: unknown) => e,
        ),
    );
    expect((value as RpcError).code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(peakMB).toBeLessThan(60);
  });

  it("endless empty data: lines: RESOURCE_EXHAUSTED at the event cap", async () => {
    server.respond = flood(sseHead, () => "data:\n".repeat(8192));
    const { value, peakMB } = await peakHeapGrowth(() => collect(rpc().sendStreamingMessage({ message })));
    expect(value.error?.code).toBe(Code.RESOURCE_EXHAUSTED);
    expect(peakMB).toBeLessThan(60);
  });
});

describe("AbortSignal and timeouts in every state", () => {
  /** Server behaviours that leave a call hanging at one point. */
  const stalls: Record<string, (r: unknown, res: ServerResponse, raw: IncomingMessage) => void> = {
    "before the headers": () => {},
    "after the headers": (_r, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.flushHeaders();
    },
    "mid-body": (_r, res) => {
      res.writeHead(200, { "content-type": "application/json", "content-length": "100" });
      res.write('{"id":');
    },
  };
  const sseStalls: Record<string, (r: unknown, res: ServerResponse) => void> = {
    "before the headers": () => {},
    "after the headers": (_r, res) => {
      res.writeHead(200, sseHead);
      res.flushHeaders();
    },
    "between events": (_r, res) => {
      res.writeHead(200, sseHead);
      res.write('data: {"task":{"id":"t1"}}\n\n');
    },
    "mid-event": (_r, res) => {
      res.writeHead(200, sseHead);
      res.write('data: {"task":{"id":"t1"}}\n\ndata: {"ta');
    },
  };
  for (const [state, respond] of Object.entries(stalls)) {
    it(`unary, stalled ${state}: timeoutMs is DEADLINE_EXCEEDED, abort is CANCELLED`, async () => {
      server.respond = respond;
      const t0 = Date.now();
      await expect(client().getTask({ id: "t1" }, { timeoutMs: 100 })).rejects.toMatchObject({ code: Code.DEADLINE_EXCEEDED });
      await expect(client({ timeoutMs: 100 }).getTask({ id: "t1" })).rejects.toMatchObject({ code: Code.DEADLINE_EXCEEDED });
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 100);
      await expect(client().getTask({ id: "t1" }, { signal: ctl.signal })).rejects.toMatchObject({ code: Code.CANCELLED });
      expect(Date.now() - t0).toBeLessThan(3_000);
    });
  }
  for (const [state, respond] of Object.entries(sseStalls)) {
    it(`stream, stalled ${state}: timeoutMs is DEADLINE_EXCEEDED, abort is CANCELLED`, async () => {
      server.respond = respond;
      const t0 = Date.now();
      const timed = await collect(client().sendStreamingMessage({ message }, { timeoutMs: 100 }));
      expect(timed.error?.code).toBe(Code.DEADLINE_EXCEEDED);
      const ctl = new AbortController();
      setTimeout(() => ctl.abort(), 100);
      const aborted = await collect(client().sendStreamingMessage({ message }, { signal: ctl.signal }));
      expect(aborted.error?.code).toBe(Code.CANCELLED);
      expect(aborted.items).toBe(state === "between events" || state === "mid-event" ? 1 : 0);
      expect(Date.now() - t0).toBeLessThan(3_000);
    });
  }
});
