import type { ServerResponse } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role } from "../../../gen/a2a_pb.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { createLibraryServiceClient } from "../../../gen/acme/library/v1/library_http_client.js";
import { A2AErrorReason, Code, RpcError, a2aErrorReason } from "a2a-http";
import { startRecorder, until, type Recorder } from "./recorder.js";

let server: Recorder;
beforeAll(async () => {
  server = await startRecorder();
});
afterAll(() => server.close());

const message = { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };
const tick = () => new Promise((r) => setImmediate(r));

/** Answers with text/event-stream and writes each chunk separately, flushing between them. */
function sse(chunks: (string | Buffer)[], end = true) {
  return async (_r: unknown, res: ServerResponse) => {
    res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
    res.flushHeaders();
    for (const c of chunks) {
      res.write(c);
      await tick();
    }
    if (end) res.end();
  };
}

async function collect<T>(it: AsyncIterable<T>): Promise<{ items: T[]; error?: RpcError }> {
  const items: T[] = [];
  try {
    for await (const m of it) items.push(m);
    return { items };
  } catch (e) {
    return { items, error: e as RpcError };
  }
}

const a2a = () => createA2AServiceClient({ baseUrl: server.url });
const ids = (items: { payload: { case?: string | undefined; value?: unknown } }[]) =>
  items.map(
    (m) =>
      `${m.payload.case}:${(m.payload.value as { id?: string; taskId?: string }).id ?? (m.payload.value as { taskId?: string }).taskId}`,
  );

describe("SSE framing", () => {
  it("LF framing, one message per data:", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n', 'data: {"statusUpdate":{"taskId":"t1"}}\n\n']);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error).toBeUndefined();
    expect(ids(items)).toEqual(["task:t1", "statusUpdate:t1"]);
  });

  it("CRLF framing (sse-starlette)", async () => {
    server.respond = sse([
      'data: {"task":{"id":"t1"}}\r\n\r\n',
      ": ping - 2026-01-01 00:00:00\r\n\r\n",
      'data: {"task":{"id":"t2"}}\r\n\r\n',
    ]);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error).toBeUndefined();
    expect(ids(items)).toEqual(["task:t1", "task:t2"]);
  });

  it("id: lines before and after data, and comments (Go, Java)", async () => {
    server.respond = sse([
      ": SSE stream started\n\n",
      'id: 5d1c\ndata: {"task":{"id":"t1"}}\n\n',
      'data: {"task":{"id":"t2"}}\nid: 1\n\n',
      ": keep-alive\n\n",
      "retry: 1000\n\n",
    ]);
    const { items, error } = await collect(a2a().subscribeToTask({ id: "t1" }));
    expect(error).toBeUndefined();
    expect(ids(items)).toEqual(["task:t1", "task:t2"]);
  });

  it("an event split over many reads, a UTF-8 character split between two", async () => {
    const event = Buffer.from('data: {"task":{"id":"tü€"}}\n\n', "utf8");
    const chunks: Buffer[] = [];
    for (let i = 0; i < event.length; i++) chunks.push(event.subarray(i, i + 1));
    server.respond = sse(chunks);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error).toBeUndefined();
    expect(ids(items)).toEqual(["task:tü€"]);
  });

  it("several events in one read, and JSON over several data: lines", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\ndata: {"task":\ndata: {"id":"t2"}}\n\n']);
    const { items } = await collect(a2a().sendStreamingMessage({ message }));
    expect(ids(items)).toEqual(["task:t1", "task:t2"]);
  });

  it("an empty stream, and an unterminated last event, yield nothing", async () => {
    server.respond = sse([]);
    expect((await collect(a2a().sendStreamingMessage({ message }))).items).toEqual([]);
    server.respond = sse(['data: {"task":{"id":"t1"}}']);
    expect((await collect(a2a().sendStreamingMessage({ message }))).items).toEqual([]);
  });

  it("ignores unknown fields and accepts nanosecond timestamps", async () => {
    server.respond = sse([
      'data: {"statusUpdate":{"taskId":"t1","status":{"state":"TASK_STATE_WORKING","timestamp":"2026-01-01T00:00:00.123456789Z"},"x":1},"y":2}\n\n',
    ]);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error).toBeUndefined();
    expect(ids(items)).toEqual(["statusUpdate:t1"]);
  });

  it("response_body applies to each event (library WatchShelf)", async () => {
    server.respond = sse(['data: {"shelf":"s1","sequence":1}\n\n', 'data: {"shelf":"s1","sequence":2}\n\n']);
    const lib = createLibraryServiceClient({ baseUrl: server.url });
    const { items } = await collect(lib.watchShelf({ shelf: "s1" }));
    expect(items.map((e) => e.sequence)).toEqual([1, 2]);
  });
});

const statusBody = {
  error: {
    code: 404,
    status: "NOT_FOUND",
    message: "Task not found: t1",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "TASK_NOT_FOUND",
        domain: "a2a-protocol.org",
        metadata: { taskId: "t1" },
      },
    ],
  },
};

describe("SSE errors", () => {
  it("event: error after a message (JS, Python)", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n', `event: error\ndata: ${JSON.stringify(statusBody)}\n\n`]);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(ids(items)).toEqual(["task:t1"]);
    expect(error).toBeInstanceOf(RpcError);
    expect(error?.code).toBe(Code.NOT_FOUND);
    expect(error?.message).toBe("Task not found: t1");
    expect(error?.httpStatus).toBe(404);
    expect(a2aErrorReason(error)).toBe(A2AErrorReason.TASK_NOT_FOUND);
  });

  it("event: error with CRLF framing", async () => {
    server.respond = sse([`event: error\r\ndata: ${JSON.stringify(statusBody)}\r\n\r\n`]);
    const { error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error?.code).toBe(Code.NOT_FOUND);
  });

  it("a data: whose JSON has a top-level error (Go, Java)", async () => {
    server.respond = sse([
      'data: {"task":{"id":"t1"}}\n\n',
      `id: 2\ndata: ${JSON.stringify(statusBody)}\n\n`,
      'data: {"task":{"id":"never"}}\n\n',
    ]);
    const { items, error } = await collect(a2a().subscribeToTask({ id: "t1" }));
    expect(ids(items)).toEqual(["task:t1"]);
    expect(error?.code).toBe(Code.NOT_FOUND);
    expect(error?.reason).toBe("TASK_NOT_FOUND");
  });

  it("an error event that is not a Status still fails the stream", async () => {
    server.respond = sse(["event: error\ndata: boom\n\n"]);
    const { error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error).toBeInstanceOf(RpcError);
    expect(error?.code).toBe(Code.UNKNOWN);
    expect(error?.message).toContain("boom");
  });

  it("a data: that is not JSON", async () => {
    server.respond = sse(["data: <html>\n\n"]);
    const { error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(error?.code).toBe(Code.INTERNAL);
  });

  it("an HTTP error before the stream starts", async () => {
    server.respond = (_r, res) => {
      res.writeHead(400, { "content-type": "application/json" });
      res.end(
        JSON.stringify({
          error: {
            code: 400,
            status: "FAILED_PRECONDITION",
            message: "terminal",
            details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "UNSUPPORTED_OPERATION", domain: "a2a-protocol.org" }],
          },
        }),
      );
    };
    const { error } = await collect(a2a().subscribeToTask({ id: "t1" }));
    expect(error?.code).toBe(Code.FAILED_PRECONDITION);
    expect(error?.httpStatus).toBe(400);
    expect(a2aErrorReason(error)).toBe("UNSUPPORTED_OPERATION");
  });

  it("an oversize event fails with RESOURCE_EXHAUSTED (custom cap)", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n', "data: " + "x".repeat(64 * 1024), "x".repeat(64 * 1024)], false);
    const client = createA2AServiceClient({ baseUrl: server.url, maxEventSize: 16 * 1024 });
    const before = server.closed.length;
    const { items, error } = await collect(client.sendStreamingMessage({ message }));
    expect(ids(items)).toEqual(["task:t1"]);
    expect(error?.code).toBe(Code.RESOURCE_EXHAUSTED);
    await until(() => server.closed.length > before, "the server to see the connection close");
  });

  it("an oversize event fails with RESOURCE_EXHAUSTED (default 4 MiB cap), while a 3 MiB one passes", async () => {
    const big = "a".repeat(3 * 1024 * 1024);
    server.respond = sse([`data: {"task":{"id":"${big}"}}\n\n`, "data: " + "x".repeat(5 * 1024 * 1024)], false);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }));
    expect(items).toHaveLength(1);
    expect(error?.code).toBe(Code.RESOURCE_EXHAUSTED);
  });
});

describe("leaving a stream", () => {
  it("breaking out of for-await closes the connection", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n'], false);
    const before = server.closed.length;
    for await (const m of a2a().sendStreamingMessage({ message })) {
      expect(m.payload.case).toBe("task");
      break;
    }
    await until(() => server.closed.length > before, "the server to see the connection close");
  });

  it("aborting the caller's signal mid-stream throws CANCELLED and closes the connection", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n'], false);
    const before = server.closed.length;
    const ctl = new AbortController();
    const items: unknown[] = [];
    let error: RpcError | undefined;
    try {
      for await (const m of a2a().sendStreamingMessage({ message }, { signal: ctl.signal })) {
        items.push(m);
        ctl.abort(new Error("user gave up"));
      }
    } catch (e) {
      error = e as RpcError;
    }
    expect(items).toHaveLength(1);
    expect(error).toBeInstanceOf(RpcError);
    expect(error?.code).toBe(Code.CANCELLED);
    expect(error?.httpStatus).toBe(0);
    await until(() => server.closed.length > before, "the server to see the connection close");
  });

  it("aborting while waiting for the next event", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n'], false);
    const ctl = new AbortController();
    const it = a2a().sendStreamingMessage({ message }, { signal: ctl.signal })[Symbol.asyncIterator]();
    expect((await it.next()).done).toBe(false);
    const pending = it.next();
    ctl.abort();
    await expect(pending).rejects.toMatchObject({ code: Code.CANCELLED });
  });

  it("a timeout during the stream is DEADLINE_EXCEEDED", async () => {
    server.respond = sse(['data: {"task":{"id":"t1"}}\n\n'], false);
    const { items, error } = await collect(a2a().sendStreamingMessage({ message }, { timeoutMs: 200 }));
    expect(items).toHaveLength(1);
    expect(error?.code).toBe(Code.DEADLINE_EXCEEDED);
  });
});
