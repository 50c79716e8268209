import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { A2AErrorReason, Code, RpcError, a2aErrorReason, isA2AError, type ClientInterceptor } from "a2a-http";
import { json, startRecorder, type Recorder } from "./recorder.js";

let server: Recorder;
beforeAll(async () => {
  server = await startRecorder();
});
afterAll(() => server.close());
beforeEach(() => {
  server.respond = json(200, {});
});

const a2a = () => createA2AServiceClient({ baseUrl: server.url });
const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as RpcError,
  );
const errorInfo = (reason: string) => ({
  "@type": "type.googleapis.com/google.rpc.ErrorInfo",
  reason,
  domain: "a2a-protocol.org",
  metadata: { taskId: "t1" },
});

describe("error answers", () => {
  it("AIP-193 Status with ErrorInfo (JS, a2a+json)", async () => {
    server.respond = json(
      404,
      { error: { code: 404, status: "NOT_FOUND", message: "Task not found: t1", details: [errorInfo("TASK_NOT_FOUND")] } },
      "application/a2a+json; charset=utf-8",
    );
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err).toBeInstanceOf(RpcError);
    expect(err?.code).toBe(Code.NOT_FOUND);
    expect(err?.status).toBe("NOT_FOUND");
    expect(err?.httpStatus).toBe(404);
    expect(err?.message).toBe("Task not found: t1");
    expect(err?.details).toEqual([errorInfo("TASK_NOT_FOUND")]);
    expect(a2aErrorReason(err)).toBe(A2AErrorReason.TASK_NOT_FOUND);
    expect(isA2AError(err, "TASK_NOT_FOUND")).toBe(true);
  });

  it("ErrorInfo last among details (Go) is still found", async () => {
    const details = [{ "@type": "type.googleapis.com/google.rpc.BadRequest", fieldViolations: [] }, errorInfo("TASK_NOT_CANCELABLE")];
    server.respond = json(400, { error: { code: 400, status: "FAILED_PRECONDITION", message: "no", details } });
    const err = await errorOf(a2a().cancelTask({ id: "t1" }));
    expect(err?.code).toBe(Code.FAILED_PRECONDITION);
    expect(a2aErrorReason(err)).toBe("TASK_NOT_CANCELABLE");
    expect(err?.reason).toBe("TASK_NOT_CANCELABLE");
  });

  it("the code comes from the status name, even when the HTTP status says otherwise (Java 409)", async () => {
    server.respond = json(409, {
      error: { code: 409, status: "UNIMPLEMENTED", message: "x", details: [errorInfo("TASK_NOT_CANCELABLE")] },
    });
    const err = await errorOf(a2a().cancelTask({ id: "t1" }));
    expect(err?.code).toBe(Code.UNIMPLEMENTED);
    expect(err?.httpStatus).toBe(409);
  });

  it("without a status name the HTTP status gives the code; no ErrorInfo falls back to it", async () => {
    server.respond = json(401, { error: { code: 401, message: "who are you" } });
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.UNAUTHENTICATED);
    expect(a2aErrorReason(err)).toBeUndefined();
    expect(err?.details).toEqual([]);
  });

  it("a bare google.rpc.Status (grpc-gateway)", async () => {
    server.respond = json(404, { code: 5, message: "not found", details: [] });
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.NOT_FOUND);
    expect(err?.message).toBe("not found");
  });

  it("an HTML 502 from a proxy gives the status and a snippet", async () => {
    server.respond = json(502, "<html>\n<head><title>502 Bad Gateway</title></head>\n<body>nginx</body></html>", "text/html");
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err).toBeInstanceOf(RpcError);
    expect(err?.httpStatus).toBe(502);
    expect(err?.code).toBe(Code.UNAVAILABLE);
    expect(err?.message).toContain("HTTP 502");
    expect(err?.message).toContain("<title>502 Bad Gateway</title>");
  });

  it("a long plain-text error is cut to a snippet", async () => {
    server.respond = json(500, "e".repeat(10_000), "text/plain");
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.UNKNOWN);
    expect(err?.message.length).toBeLessThan(300);
  });

  it("an empty 404 (Express default without a body)", async () => {
    server.respond = (_r, res) => {
      res.writeHead(404);
      res.end();
    };
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.NOT_FOUND);
    expect(err?.message).toBe("HTTP 404 Not Found");
  });

  it("a 200 whose body is not JSON is INTERNAL", async () => {
    server.respond = json(200, "<html>", "text/html");
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.INTERNAL);
    expect(err?.httpStatus).toBe(200);
  });

  it("a 200 with the wrong JSON shape is INTERNAL", async () => {
    server.respond = json(200, { id: 5 });
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.INTERNAL);
  });
});

describe("failures without an answer", () => {
  it("connection refused is UNAVAILABLE with the cause", async () => {
    const gone = await startRecorder();
    const url = gone.url;
    await gone.close();
    const err = await errorOf(createA2AServiceClient({ baseUrl: url }).getTask({ id: "t1" }));
    expect(err).toBeInstanceOf(RpcError);
    expect(err?.code).toBe(Code.UNAVAILABLE);
    expect(err?.httpStatus).toBe(0);
    expect(err?.cause).toBeInstanceOf(Error);
    expect(err?.message).toMatch(/^network error/);
  });

  it("a connection reset before the answer is UNAVAILABLE", async () => {
    server.respond = (_r, res) => void res.socket?.destroy();
    const err = await errorOf(a2a().getTask({ id: "t1" }));
    expect(err?.code).toBe(Code.UNAVAILABLE);
  });

  it("a timeout is DEADLINE_EXCEEDED (per call and client default)", async () => {
    server.respond = () => {}; // never answers
    const err = await errorOf(a2a().getTask({ id: "t1" }, { timeoutMs: 100 }));
    expect(err?.code).toBe(Code.DEADLINE_EXCEEDED);
    expect(err?.httpStatus).toBe(0);
    const err2 = await errorOf(createA2AServiceClient({ baseUrl: server.url, timeoutMs: 100 }).getTask({ id: "t1" }));
    expect(err2?.code).toBe(Code.DEADLINE_EXCEEDED);
  });

  it("the caller's abort is CANCELLED with the signal's reason", async () => {
    server.respond = () => {};
    const ctl = new AbortController();
    const p = errorOf(a2a().getTask({ id: "t1" }, { signal: ctl.signal, timeoutMs: 60_000 }));
    const reason = new Error("stop");
    setTimeout(() => ctl.abort(reason), 20);
    const err = await p;
    expect(err?.code).toBe(Code.CANCELLED);
    expect(err?.cause).toBe(reason);
  });

  it("an already aborted signal is CANCELLED", async () => {
    const err = await errorOf(a2a().getTask({ id: "t1" }, { signal: AbortSignal.abort() }));
    expect(err?.code).toBe(Code.CANCELLED);
  });
});

describe("client options", () => {
  it("static headers, as an object and as Headers; per-call headers win", async () => {
    const c1 = createA2AServiceClient({ baseUrl: server.url, headers: { authorization: "Bearer a", "x-one": "1" } });
    await c1.getTask({ id: "t" }, { headers: { "x-one": "2", "x-call": "y" } });
    expect(server.last().headers).toMatchObject({ authorization: "Bearer a", "x-one": "2", "x-call": "y", "a2a-version": "1.0" });
    const c2 = createA2AServiceClient({ baseUrl: server.url, headers: new Headers({ "A2A-Extensions": "https://ext/1" }) });
    await c2.getTask({ id: "t" });
    expect(server.last().headers["a2a-extensions"]).toBe("https://ext/1");
  });

  it("function headers, sync and async, called on every call", async () => {
    let n = 0;
    const c1 = createA2AServiceClient({ baseUrl: server.url, headers: () => ({ "x-n": String(++n) }) });
    await c1.getTask({ id: "t" });
    await c1.getTask({ id: "t" });
    expect(server.last().headers["x-n"]).toBe("2");
    const c2 = createA2AServiceClient({ baseUrl: server.url, headers: async () => [["authorization", "Bearer z"]] });
    await c2.getTask({ id: "t" });
    expect(server.last().headers["authorization"]).toBe("Bearer z");
  });

  it("interceptors run in order, see the request and the response", async () => {
    const log: string[] = [];
    const mk =
      (name: string): ClientInterceptor =>
      (next) =>
      async (req) => {
        log.push(`${name}>${req.rpc} ${req.method} ${new URL(req.url).pathname}`);
        req.headers.set(`x-${name}`, "1");
        const res = await next(req);
        log.push(`${name}<${res.status}`);
        return res;
      };
    const client = createA2AServiceClient({ baseUrl: server.url, interceptors: [mk("a"), mk("b")] });
    await client.getTask({ id: "t" });
    expect(log).toEqual(["a>getTask GET /tasks/t", "b>getTask GET /tasks/t", "b<200", "a<200"]);
    expect(server.last().headers).toMatchObject({ "x-a": "1", "x-b": "1" });
  });

  it("a custom fetch", async () => {
    const seen: string[] = [];
    const client = createA2AServiceClient({
      baseUrl: "http://agent.invalid/a2a",
      tenant: "t",
      fetch: async (input, init) => {
        seen.push(`${init?.method} ${String(input)}`);
        return new Response(JSON.stringify({ id: "x" }), { status: 200, headers: { "content-type": "application/json" } });
      },
    });
    expect((await client.getTask({ id: "x" })).id).toBe("x");
    expect(seen).toEqual(["GET http://agent.invalid/a2a/t/tasks/x"]);
  });
});
