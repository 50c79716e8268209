import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
// Express 5 under vitest needs the is-promise work-around (see the file); import it before express.
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { getRequestListener } from "@hono/node-server";
import { a2aServiceExpress } from "../../../gen/a2a_http_express.js";
import { a2aServiceFastify } from "../../../gen/a2a_http_fastify.js";
import { a2aServiceHono } from "../../../gen/a2a_http_hono.js";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { libraryServiceExpress } from "../../../gen/acme/library/v1/library_http_express.js";
import { libraryServiceFastify } from "../../../gen/acme/library/v1/library_http_fastify.js";
import { libraryServiceHono } from "../../../gen/acme/library/v1/library_http_hono.js";
import type { LibraryServiceHandlers } from "../../../gen/acme/library/v1/library_http.js";

export const frameworks = ["express", "fastify", "hono"] as const;
export type Framework = (typeof frameworks)[number];

export interface Served {
  /** Base URL with the mount prefixes: `${url}/a2a` and `${url}/lib`. */
  readonly url: string;
  close(): Promise<void>;
}

/** Mounts both generated services on one app of `framework`, at /a2a and /lib, on 127.0.0.1. */
export async function serve(framework: Framework, a2a: A2AServiceHandlers, library: LibraryServiceHandlers): Promise<Served> {
  let server: Server;
  let closeApp: (() => Promise<void>) | undefined;
  if (framework === "express") {
    const app = express();
    app.use("/a2a", a2aServiceExpress(a2a));
    app.use("/lib", libraryServiceExpress(library));
    server = createServer(app);
  } else if (framework === "fastify") {
    const app = Fastify();
    await app.register(a2aServiceFastify, { prefix: "/a2a", handlers: a2a });
    await app.register(libraryServiceFastify, { prefix: "/lib", handlers: library });
    await app.ready();
    server = app.server;
    closeApp = () => app.close();
  } else {
    const app = new Hono();
    app.route("/a2a", a2aServiceHono(a2a));
    app.route("/lib", libraryServiceHono(library));
    server = createServer(getRequestListener(app.fetch));
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    async close() {
      server.closeAllConnections();
      if (closeApp) await closeApp();
      else await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
