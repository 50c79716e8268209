/**
 * The JSON-RPC binding end to end in one process: our client (`transport:
 * "jsonrpc"`) calling `createJsonRpcHandler` through `fetchHandlerOf`, no
 * network; and the error mapping both ways.
 */
import { describe, expect, it, vi } from "vitest";
import {
  A2AErrors,
  Code,
  ERROR_INFO_TYPE,
  RpcError,
  createJsonRpcHandler,
  fetchHandlerOf,
  fromJsonRpcError,
  toJsonRpcError,
  type JsonRpcHandlerOptions,
} from "a2a-http";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { TaskState } from "../../../gen/a2a_pb.js";
import { rejection, streamFailure, userMessage } from "../../e2e/interop/harness/util.js";

// Served unmounted, so the endpoint is the root.
const URL_ = "http://agent.test/";

function serve(handlers: Partial<A2AServiceHandlers>, options: JsonRpcHandlerOptions = { profile: "a2a" }) {
  const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, handlers, options));
  const fetch = (input: RequestInfo | URL, init?: RequestInit) => handle(new Request(input, init));
  return {
    fetch: fetch as typeof globalThis.fetch,
    client: createA2AServiceClient({ baseUrl: URL_, transport: "jsonrpc", fetch: fetch as typeof globalThis.fetch }),
  };
}

const asRpc = (e: unknown) => {
  expect(e).toBeInstanceOf(RpcError);
  return e as RpcError;
};

describe("our JSON-RPC client and server", () => {
  it("a unary call; the tenant of params is the context's", async () => {
    const seen: unknown[] = [];
    const { client } = serve({
      getTask(req, ctx) {
        seen.push([ctx.rpc, ctx.tenant, ctx.extensions]);
        return { id: req.id, status: { state: TaskState.WORKING } };
      },
    });
    const task = await client.getTask({ id: "t1", tenant: "acme" }, { headers: { "A2A-Extensions": "a, b,a" } });
    expect(task.id).toBe("t1");
    expect(seen).toEqual([["getTask", "acme", ["a", "b"]]]);
  });

  it("errors before and after the stream started reach the caller as RpcErrors with their reason", async () => {
    const { client } = serve({
      async *sendStreamingMessage(req) {
        const text = req.message?.parts[0]?.content.value;
        if (text === "early") throw A2AErrors.taskNotFound("x");
        yield { payload: { case: "task", value: { id: "t", status: { state: TaskState.WORKING } } } };
        throw A2AErrors.unsupportedOperation("late");
      },
    });
    const early = await streamFailure(client.sendStreamingMessage({ message: userMessage("early") }));
    expect(early.before).toEqual([]);
    expect(asRpc(early.error).reason).toBe("TASK_NOT_FOUND");
    expect(asRpc(early.error).code).toBe(Code.NOT_FOUND);
    const late = await streamFailure(client.sendStreamingMessage({ message: userMessage("late") }));
    expect(late.before).toHaveLength(1);
    expect(asRpc(late.error).reason).toBe("UNSUPPORTED_OPERATION");
    expect(asRpc(late.error).message).toBe("late");
  });

  it("leaving a stream early closes the handler's iterator", async () => {
    let closed = false;
    const { client } = serve({
      async *subscribeToTask() {
        try {
          for (;;) {
            yield { payload: { case: "statusUpdate", value: { taskId: "t", status: { state: TaskState.WORKING } } } };
            await new Promise((r) => setTimeout(r, 1));
          }
        } finally {
          closed = true;
        }
      },
    });
    for await (const _ of client.subscribeToTask({ id: "t" })) break;
    await vi.waitFor(() => expect(closed).toBe(true));
  });

  it("a handler's own exception is -32603 'internal error', reported to onError, its message kept back", async () => {
    const onError = vi.fn();
    const { client, fetch } = serve(
      {
        getTask: () => {
          throw new Error("secret detail");
        },
      },
      { profile: "a2a", onError },
    );
    const e = asRpc(await rejection(client.getTask({ id: "x" })));
    expect(e.code).toBe(Code.INTERNAL);
    expect(e.message).toBe("internal error");
    expect(onError).toHaveBeenCalledTimes(1);
    const raw = await (
      await fetch(URL_, {
        method: "POST",
        headers: { "a2a-version": "1.0", "content-type": "application/json" },
        body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
      })
    ).text();
    expect(raw).not.toContain("secret");
    expect(JSON.parse(raw).error.code).toBe(-32603);
  });

  it("a context factory's UNAUTHENTICATED is an HTTP 401 with the JSON-RPC error (id null: the factory refused on the headers, before the body was read); the handler is not called", async () => {
    const getTask = vi.fn();
    const handle = fetchHandlerOf(
      createJsonRpcHandler(
        A2AServiceRoutes,
        { getTask },
        {
          profile: "a2a",
          context: () => {
            throw new RpcError(Code.UNAUTHENTICATED, "who are you");
          },
        },
      ),
    );
    const fetch = ((i: RequestInfo | URL, init?: RequestInit) => handle(new Request(i, init))) as typeof globalThis.fetch;
    const res = await fetch(URL_, {
      method: "POST",
      headers: { "a2a-version": "1.0", "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":9,"method":"GetTask","params":{"id":"x"}}',
    });
    expect(res.status).toBe(401);
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32000, message: "who are you" } });
    const e = asRpc(await rejection(createA2AServiceClient({ baseUrl: URL_, transport: "jsonrpc", fetch }).getTask({ id: "x" })));
    expect(e.code).toBe(Code.UNAUTHENTICATED);
    expect(e.httpStatus).toBe(401);
    expect(getTask).not.toHaveBeenCalled();
  });

  it("a response to another id, or one that is not JSON-RPC, is INTERNAL", async () => {
    const fake = (body: unknown) =>
      createA2AServiceClient({
        baseUrl: URL_,
        transport: "jsonrpc",
        fetch: async () => new Response(JSON.stringify(body), { headers: { "content-type": "application/json" } }),
      });
    expect(asRpc(await rejection(fake({ jsonrpc: "2.0", id: 99, result: {} }).getTask({ id: "x" }))).message).toContain("answers id 99");
    expect(asRpc(await rejection(fake({ id: 1, result: {} }).getTask({ id: "x" }))).code).toBe(Code.INTERNAL);
  });

  it("batches: refused whole past maxBatchSize, or always with 0", async () => {
    const call = (i: number) => ({ jsonrpc: "2.0", id: i, method: "GetTask", params: { id: "x" } });
    for (const [max, size] of [
      [2, 3],
      [0, 1],
    ] as const) {
      const { fetch } = serve({ getTask: (r) => ({ id: r.id }) }, { profile: "a2a", maxBatchSize: max });
      const res = await fetch(URL_, {
        method: "POST",
        headers: { "a2a-version": "1.0", "content-type": "application/json" },
        body: JSON.stringify(Array.from({ length: size }, (_, i) => call(i))),
      });
      expect(await res.json()).toMatchObject({ id: null, error: { code: -32600 } });
    }
  });

  it("a body over bodyLimit is a 413 with -32600", async () => {
    const { fetch } = serve({ getTask: (r) => ({ id: r.id }) }, { profile: "a2a", bodyLimit: 64 });
    const res = await fetch(URL_, {
      method: "POST",
      headers: { "a2a-version": "1.0", "content-type": "application/json" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "x".repeat(100) } }),
    });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe(-32600);
  });

  it("without the A2A profile: no version check, and no ErrorInfo added", async () => {
    const { fetch } = serve(
      {
        getTask: () => {
          throw new RpcError(Code.NOT_FOUND, "gone");
        },
      },
      {},
    );
    const res = await fetch(URL_, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: '{"jsonrpc":"2.0","id":1,"method":"GetTask","params":{"id":"x"}}',
    });
    expect(await res.json()).toEqual({ jsonrpc: "2.0", id: 1, error: { code: -32000, message: "gone" } });
    const plain = await fetch(URL_, { method: "POST", headers: { "content-type": "text/plain" }, body: "{}" });
    expect((await plain.json()).error.code).toBe(-32600);
  });
});

describe("the error mapping", () => {
  const reasons = [
    ["TASK_NOT_FOUND", -32001, Code.NOT_FOUND],
    ["TASK_NOT_CANCELABLE", -32002, Code.FAILED_PRECONDITION],
    ["PUSH_NOTIFICATION_NOT_SUPPORTED", -32003, Code.FAILED_PRECONDITION],
    ["UNSUPPORTED_OPERATION", -32004, Code.FAILED_PRECONDITION],
    ["CONTENT_TYPE_NOT_SUPPORTED", -32005, Code.INVALID_ARGUMENT],
    ["INVALID_AGENT_RESPONSE", -32006, Code.INTERNAL],
    ["EXTENDED_AGENT_CARD_NOT_CONFIGURED", -32007, Code.FAILED_PRECONDITION],
    ["EXTENSION_SUPPORT_REQUIRED", -32008, Code.FAILED_PRECONDITION],
    ["VERSION_NOT_SUPPORTED", -32009, Code.FAILED_PRECONDITION],
    ["INVALID_REQUEST", -32600, Code.INVALID_ARGUMENT],
    ["INVALID_PARAMS", -32602, Code.INVALID_ARGUMENT],
    ["INTERNAL_ERROR", -32603, Code.INTERNAL],
  ] as const;

  it.each(reasons)("%s is %i both ways", (reason, rpcCode, code) => {
    const err = new RpcError(code, "m", [{ "@type": ERROR_INFO_TYPE, reason, domain: "a2a-protocol.org", metadata: { k: "v" } }]);
    const obj = toJsonRpcError(err, true);
    expect(obj.code).toBe(rpcCode);
    const back = fromJsonRpcError(obj, 200);
    expect([back.code, back.reason, back.details]).toEqual([code, reason, err.details]);
  });

  it("an error without a reason: by its code; a JSON-RPC error without data gets the ErrorInfo of its code", () => {
    expect(toJsonRpcError(new RpcError(Code.UNIMPLEMENTED, "no"), true).code).toBe(-32601);
    expect(toJsonRpcError(new RpcError(Code.INVALID_ARGUMENT, "bad"), true)).toMatchObject({
      code: -32602,
      data: [{ reason: "INVALID_PARAMS" }],
    });
    const back = fromJsonRpcError({ code: -32001, message: "Task not found", data: { taskId: "t1", when: 3 } }, 200);
    expect([back.code, back.reason, back.details[0]?.["metadata"]]).toEqual([Code.NOT_FOUND, "TASK_NOT_FOUND", { taskId: "t1" }]);
    expect(fromJsonRpcError({ code: -32601, message: "Method not found" }, 200).code).toBe(Code.UNIMPLEMENTED);
    expect(fromJsonRpcError({ code: -32700, message: "parse" }, 200).code).toBe(Code.INVALID_ARGUMENT);
    expect(fromJsonRpcError({ code: -31999, message: "?" }, 503).code).toBe(Code.UNAVAILABLE);
    expect(fromJsonRpcError("junk", 200).code).toBe(Code.UNKNOWN);
  });
});
