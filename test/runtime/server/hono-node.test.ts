// The fetch adapter reads node's own request only under @hono/node-server,
// recognised by class (hono-node.ts): a Worker binding named `incoming`,
// however node-like its shape, is not taken for it.
import { createServer, IncomingMessage, request as httpRequest, ServerResponse, type Server } from "node:http";
import { Socket, type AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { honoNodePair } from "../../../packages/runtime/src/server/hono-node.js";
import { a2aServiceHono } from "../../../gen/a2a_http_hono.js";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";

const asked: string[] = [];
const handlers: Partial<A2AServiceHandlers> = {
  getTask(req) {
    asked.push(req.id);
    return { id: req.id, contextId: "c" };
  },
};
const app = a2aServiceHono(handlers);

/** A binding that has every member the adapter would read from node's request, with values that would show if it were read. */
function lookalike() {
  const noop = () => undefined;
  return {
    incoming: {
      url: "/tasks/from-the-binding",
      headers: { "a2a-version": "0.0", host: "binding.example" },
      socket: { localAddress: "10.0.0.1", localPort: 1 },
      readableEnded: false,
      destroyed: false,
      on: noop,
      off: noop,
      resume: noop,
    },
    outgoing: { shouldKeepAlive: false },
  };
}

describe("a Worker binding named incoming", () => {
  test("is not node's request: the Request's own path and headers are served", async () => {
    asked.length = 0;
    const res = await app.fetch(new Request("http://agent.test/tasks/t1", { headers: { "a2a-version": "1.0" } }), lookalike());
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: "t1" });
    expect(asked).toEqual(["t1"]);
  });

  test("honoNodePair refuses look-alikes and anything not Hono", () => {
    expect(honoNodePair({ env: lookalike() })).toBeUndefined();
    expect(honoNodePair({ env: { incoming: null } })).toBeUndefined();
    expect(honoNodePair({ env: "x" })).toBeUndefined();
    expect(honoNodePair(new Request("http://agent.test/"))).toBeUndefined();
    expect(honoNodePair(undefined)).toBeUndefined();
    // Node's request without node's response (or with a look-alike one) is not the pair either.
    const incoming = new IncomingMessage(new Socket());
    expect(honoNodePair({ env: { incoming, outgoing: { shouldKeepAlive: false } } })).toBeUndefined();
  });

  test("honoNodePair takes node:http's own request and response", () => {
    const incoming = new IncomingMessage(new Socket());
    const outgoing = new ServerResponse(incoming);
    expect(honoNodePair({ env: { incoming, outgoing } })).toEqual({ incoming, outgoing });
  });
});

describe("on @hono/node-server", () => {
  let server: Server;
  let port: number;
  beforeAll(async () => {
    server = createServer(getRequestListener(app.fetch));
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(() => new Promise<void>((resolve) => (server.closeAllConnections(), server.close(() => resolve()))));

  /** GET with the target exactly as given (node's client does not resolve dot segments). */
  function get(path: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const req = httpRequest({ host: "127.0.0.1", port, path, headers: { "a2a-version": "1.0" }, agent: false }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on("error", reject);
      req.end();
    });
  }

  test("node's request is recognised: the target is read as sent", async () => {
    expect(await get("/tasks/t1")).toBe(200);
    // The Request's URL has the dot segment resolved (/tasks/t1); node's raw target keeps it, and dot segments are refused.
    expect(await get("/tasks/x/../t1")).toBe(400);
  });
});
