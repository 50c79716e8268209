/**
 * The A2A service over HTTP+JSON at `/` and JSON-RPC at `/jsonrpc` on one
 * framework's server (as example/server.ts mounts them), at 127.0.0.1 on a
 * free port. Shared by the tests (harness.ts) and the security probes
 * (scripts/security/lib/auth-agent.ts), so it imports nothing from vitest.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { getRequestListener } from "@hono/node-server";
import type { ServerOptions } from "a2a-http/server";
import { fastifyOptions } from "a2a-http/fastify";
import { a2aServiceExpress, a2aServiceJsonRpcExpress } from "../../../gen/a2a_http_express.js";
import { a2aServiceFastify, a2aServiceJsonRpcFastify } from "../../../gen/a2a_http_fastify.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a_http_hono.js";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";

export type BothFramework = "express" | "fastify" | "hono";

/** Starts the two bindings on `framework`; `options` go to both. */
export async function startBoth(
  framework: BothFramework,
  handlers: Partial<A2AServiceHandlers<any>>,
  options: ServerOptions<any, any> = {},
): Promise<{ origin: string; close(): Promise<void> }> {
  let server: Server;
  let close: () => Promise<void>;
  switch (framework) {
    case "express": {
      const app = express();
      app.use("/jsonrpc", a2aServiceJsonRpcExpress(handlers, options));
      app.use("/", a2aServiceExpress(handlers, options));
      server = createServer(app);
      close = () => new Promise((r) => (server.closeAllConnections(), server.close(() => r())));
      break;
    }
    case "fastify": {
      const app = Fastify(fastifyOptions({ profile: "a2a" }));
      await app.register(a2aServiceJsonRpcFastify, { handlers, prefix: "/jsonrpc", ...options });
      await app.register(a2aServiceFastify, { handlers, ...options });
      await app.ready();
      server = app.server;
      close = () => app.close();
      break;
    }
    case "hono": {
      const app = new Hono();
      app.route("/jsonrpc", a2aServiceJsonRpcHono(handlers, options));
      app.route("/", a2aServiceHono(handlers, options));
      server = createServer(getRequestListener(app.fetch));
      close = () => new Promise((r) => (server.closeAllConnections(), server.close(() => r())));
      break;
    }
  }
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, close };
}
