// The JSON-RPC server's time options, shared with HTTP+JSON: keep-alive
// comments on a stream that waits (`keepAliveMs`) and the unary deadline
// (`unaryTimeoutMs`) as a JSON-RPC error, which leaves streams alone.
import { describe, expect, it } from "vitest";
import { Code, RpcError, createJsonRpcHandler, fetchHandlerOf, type JsonRpcHandlerOptions } from "a2a-http";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { TaskState } from "../../../gen/a2a_pb.js";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const task = (state: TaskState) => ({ payload: { case: "task" as const, value: { id: "t1", status: { state } } } });

function post(handlers: Partial<A2AServiceHandlers>, options: JsonRpcHandlerOptions, method: string, params: object) {
  const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, handlers, { profile: "a2a", ...options }));
  const headers = { "content-type": "application/json", "a2a-version": "1.0" };
  const body = JSON.stringify({ jsonrpc: "2.0", id: 7, method, params });
  return handle(new Request("http://agent.test/", { method: "POST", headers, body }));
}

const message = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } };

describe("JSON-RPC keepAliveMs", () => {
  const waits: Partial<A2AServiceHandlers> = {
    async *sendStreamingMessage() {
      yield task(TaskState.WORKING);
      await sleep(300);
      yield task(TaskState.COMPLETED);
    },
  };

  it("a stream that waits gets SSE comments between its events", async () => {
    const text = await (await post(waits, { keepAliveMs: 50 }, "SendStreamingMessage", message)).text();
    const chunks = text.split("\n\n").filter((c) => c !== "");
    expect(chunks[0]).toContain('"TASK_STATE_WORKING"');
    expect(chunks.at(-1)).toContain('"TASK_STATE_COMPLETED"');
    const comments = chunks.filter((c) => c === ": keep-alive");
    expect(comments.length).toBeGreaterThanOrEqual(2);
    expect(comments.length).toBe(chunks.length - 2);
  });

  it("0 turns them off", async () => {
    const text = await (await post(waits, { keepAliveMs: 0 }, "SendStreamingMessage", message)).text();
    expect(text).not.toContain("keep-alive");
  });
});

describe("JSON-RPC unaryTimeoutMs", () => {
  it("a unary call past it answers DEADLINE_EXCEEDED with the request's id, and the handler's signal fires", async () => {
    let reason: unknown;
    const handlers: Partial<A2AServiceHandlers> = {
      getTask: (_req, ctx) =>
        new Promise((_resolve, reject) => {
          ctx.signal.addEventListener("abort", () => {
            reason = ctx.signal.reason;
            reject(new Error("gave up"));
          });
        }),
    };
    const t0 = Date.now();
    const res = await post(handlers, { unaryTimeoutMs: 50, onError: () => {} }, "GetTask", { id: "t1" });
    expect(Date.now() - t0).toBeLessThan(2_000);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: unknown; error: { code: number; message: string } };
    expect(body.id).toBe(7);
    expect(body.error.code).toBe(-32000);
    expect(body.error.message).toContain("took longer than 50 ms");
    expect(reason).toBeInstanceOf(RpcError);
    expect((reason as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
  }, 5_000);

  it("a unary call within it is answered as usual", async () => {
    const res = await post({ getTask: async (req) => (await sleep(5), { id: req.id }) }, { unaryTimeoutMs: 1_000 }, "GetTask", {
      id: "t1",
    });
    expect(await res.json()).toMatchObject({ id: 7, result: { id: "t1" } });
  });

  it("a stream is not held to it, however long it waits", async () => {
    let aborted = false;
    const handlers: Partial<A2AServiceHandlers> = {
      async *sendStreamingMessage(_req, ctx) {
        ctx.signal.addEventListener("abort", () => (aborted = true));
        await sleep(150);
        yield task(TaskState.WORKING);
        await sleep(150);
        yield task(TaskState.COMPLETED);
      },
    };
    const res = await post(handlers, { unaryTimeoutMs: 50, keepAliveMs: 0 }, "SendStreamingMessage", message);
    expect(res.headers.get("content-type")).toBe("text/event-stream");
    const text = await res.text();
    expect(text).toContain('"TASK_STATE_COMPLETED"');
    expect(text).not.toContain("error");
    expect(aborted).toBe(false);
  });
});
