// The JSON-RPC server on the A2A profile's rules shared with HTTP+JSON
// (a2a.ts): the version from the header or from the query, whose name is
// read case-insensitively as header names are.
import { describe, expect, it } from "vitest";
import { createJsonRpcHandler, fetchHandlerOf, type JsonRpcHandlerOptions } from "a2a-http";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { TaskState } from "../../../gen/a2a_pb.js";

const handlers: Partial<A2AServiceHandlers> = {
  getTask: (req) => ({ id: req.id, status: { state: TaskState.WORKING } }),
};

function post(query: string, headers: Record<string, string> = {}, options: JsonRpcHandlerOptions = { profile: "a2a" }) {
  const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, handlers, options));
  const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } });
  return handle(
    new Request("http://agent.test/" + query, { method: "POST", headers: { "content-type": "application/json", ...headers }, body }),
  );
}

describe("JSON-RPC: the A2A version", () => {
  it.each(["?A2A-Version=1.0", "?a2a-version=1.0", "?A2A-VERSION=1.0.2"])("is read from the query %s", async (query) => {
    const res = await post(query);
    expect(await res.json()).toMatchObject({ id: 1, result: { id: "t1" } });
  });

  it("without header or query it is 0.3, refused by a 1.0 server", async () => {
    const body = (await (await post("")).json()) as { error: { code: number; data: { reason: string }[] } };
    expect(body.error.code).toBe(-32009);
    expect(body.error.data[0]!.reason).toBe("VERSION_NOT_SUPPORTED");
  });

  it("the header wins over the query", async () => {
    const body = (await (await post("?a2a-version=1.0", { "a2a-version": "0.3" })).json()) as { error: { code: number } };
    expect(body.error.code).toBe(-32009);
  });
});
