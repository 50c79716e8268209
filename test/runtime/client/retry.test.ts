/**
 * The client's retries (client/retry.ts, issue 39 item 4): an idempotent
 * unary rpc that fails UNAVAILABLE is tried again, after Retry-After or a
 * backoff, up to maxAttempts and within its deadline; SendMessage and
 * CancelTask (POST, no idempotency_level) are never sent twice; other codes
 * are not retried; `retry: false` turns it off.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Code, RpcError } from "a2a-http";
import { toJsonRpcError } from "a2a-http/jsonrpc";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { json, startRecorder, type Recorder, type Responder } from "./recorder.js";

const TASK = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } };
const unavailable =
  (retryAfter?: string): Responder =>
  (_req, res) => {
    res.writeHead(503, { "content-type": "application/json", ...(retryAfter ? { "retry-after": retryAfter } : {}) });
    res.end(JSON.stringify({ error: { code: 503, status: "UNAVAILABLE", message: "the agent's task store cannot be reached now" } }));
  };
/** Fails `n` times with `fail`, then answers `then`. */
const failing = (n: number, fail: Responder, then: Responder): Responder => {
  let left = n;
  return (req, res, raw) => (left-- > 0 ? fail(req, res, raw) : then(req, res, raw));
};

describe("the client's retries of UNAVAILABLE", () => {
  let server: Recorder;
  beforeAll(async () => {
    server = await startRecorder();
  });
  afterAll(async () => {
    await server.close();
  });
  const client = (options: Parameters<typeof createA2AServiceClient>[0] extends infer O ? Partial<O> : never = {}) =>
    createA2AServiceClient({ baseUrl: server.url, retry: { firstDelayMs: 5, maxDelayMs: 50 }, ...options });

  it("tries GetTask again until it answers, up to maxAttempts", async () => {
    const before = server.requests.length;
    server.respond = failing(2, unavailable(), json(200, TASK));
    const task = await client().getTask({ id: "t1" });
    expect(task.id).toBe("t1");
    expect(server.requests.length - before).toBe(3);

    const again = server.requests.length;
    server.respond = unavailable();
    const error = await client()
      .getTask({ id: "t1" })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).code).toBe(Code.UNAVAILABLE);
    expect(server.requests.length - again).toBe(3);
  });

  it("waits what Retry-After asks, within maxDelayMs", async () => {
    server.respond = failing(1, unavailable("1"), json(200, TASK));
    const started = Date.now();
    await createA2AServiceClient({ baseUrl: server.url, retry: { maxDelayMs: 300 } }).getTask({ id: "t1" });
    const took = Date.now() - started;
    expect(took).toBeGreaterThanOrEqual(290);
    expect(took).toBeLessThan(1_000);
  });

  it("never sends SendMessage or CancelTask twice", async () => {
    server.respond = unavailable();
    const before = server.requests.length;
    const message = { messageId: "m1", role: 1, parts: [{ content: { case: "text" as const, value: "hi" } }] };
    await expect(client().sendMessage({ message })).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    await expect(client().cancelTask({ id: "t1" })).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    expect(server.requests.length - before).toBe(2);
  });

  it("does not retry other codes, nor with retry: false", async () => {
    server.respond = json(500, { error: { code: 500, status: "INTERNAL", message: "boom" } });
    let before = server.requests.length;
    await expect(client().getTask({ id: "t1" })).rejects.toMatchObject({ code: Code.INTERNAL });
    expect(server.requests.length - before).toBe(1);
    server.respond = unavailable();
    before = server.requests.length;
    await expect(client({ retry: false }).getTask({ id: "t1" })).rejects.toMatchObject({ code: Code.UNAVAILABLE });
    expect(server.requests.length - before).toBe(1);
  });

  it("ends at the call's deadline, not after every attempt", async () => {
    server.respond = unavailable("10");
    const started = Date.now();
    const error = await createA2AServiceClient({ baseUrl: server.url, retry: { maxDelayMs: 10_000 } })
      .getTask({ id: "t1" }, { timeoutMs: 200 })
      .catch((e: unknown) => e);
    expect((error as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it("retries a JSON-RPC call answered 503 too", async () => {
    let n = 0;
    server.respond = (req, res) => {
      const id = (JSON.parse(req.body) as { id: unknown }).id;
      const error = toJsonRpcError(new RpcError(Code.UNAVAILABLE, "the agent's task store cannot be reached now"), true);
      res.writeHead(n === 0 ? 503 : 200, { "content-type": "application/json" });
      res.end(JSON.stringify(n++ === 0 ? { jsonrpc: "2.0", id, error } : { jsonrpc: "2.0", id, result: TASK }));
    };
    const before = server.requests.length;
    const task = await client({ transport: "jsonrpc" }).getTask({ id: "t1" });
    expect(task.id).toBe("t1");
    expect(server.requests.length - before).toBe(2);
  });
});
