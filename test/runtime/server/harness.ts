import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import express from "express";
import Fastify, { type FastifyInstance } from "fastify";
import { Hono } from "hono";
import { getRequestListener } from "@hono/node-server";
import type { HandlerContext } from "a2a-http";
import { createFetchHandler, type ServerOptions } from "a2a-http/server";
import { createNodeHandler, nodeMiddleware } from "a2a-http/node";
import { fastifyFrameworkErrors, registerFastifyService } from "a2a-http/fastify";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { a2aServiceExpress } from "../../../gen/a2a_http_express.js";
import { a2aServiceFastify } from "../../../gen/a2a_http_fastify.js";
import { a2aServiceHono } from "../../../gen/a2a_http_hono.js";
import { libraryServiceExpress } from "../../../gen/acme/library/v1/library_http_express.js";
import { libraryServiceFastify } from "../../../gen/acme/library/v1/library_http_fastify.js";
import { libraryServiceHono } from "../../../gen/acme/library/v1/library_http_hono.js";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";
import type { LibraryServiceHandlers } from "../../../gen/acme/library/v1/library_http.js";

export const frameworks = ["express", "fastify", "hono"] as const;
export type Framework = (typeof frameworks)[number];

export interface Running {
  readonly framework: Framework;
  /** Base URL including the mount prefix, no trailing slash. */
  readonly url: string;
  readonly origin: string;
  readonly server: Server;
  close(): Promise<void>;
}

type Service =
  | { kind: "a2a"; handlers: Partial<A2AServiceHandlers<HandlerContext>> }
  | { kind: "library"; handlers: Partial<LibraryServiceHandlers<HandlerContext>> }
  /** library.proto with the generic profile: the same glue as the generated adapters, on the runtime API. */
  | { kind: "library-none"; handlers: Partial<LibraryServiceHandlers<HandlerContext>> };

/**
 * Starts `service` on `framework` at 127.0.0.1 on a free port, mounted at
 * `prefix`. `extra` lets a test add the application's own routes.
 */
export async function start(
  framework: Framework,
  service: Service,
  options: ServerOptions<any, any> = {},
  prefix = "/api",
  extra?: { express?: (app: express.Express) => void; fastify?: (app: FastifyInstance) => void; hono?: (app: Hono) => void },
  fastifyOptions: { statusErrors?: boolean } = {},
): Promise<Running> {
  let server: Server;
  let closeApp: (() => Promise<void>) | undefined;
  switch (framework) {
    case "express": {
      const app = express();
      extra?.express?.(app);
      let router: express.Router;
      if (service.kind === "library-none") {
        router = express.Router();
        router.use(nodeMiddleware(createNodeHandler(LibraryServiceRoutes, service.handlers, options)));
      } else {
        router = service.kind === "a2a" ? a2aServiceExpress(service.handlers, options) : libraryServiceExpress(service.handlers, options);
      }
      app.use(prefix, router);
      server = createServer(app);
      break;
    }
    case "fastify": {
      const app = Fastify(
        fastifyOptions.statusErrors === false
          ? {}
          : { frameworkErrors: fastifyFrameworkErrors({ profile: service.kind === "library-none" ? "none" : "a2a" }) },
      );
      extra?.fastify?.(app);
      if (service.kind === "a2a") await app.register(a2aServiceFastify, { prefix, handlers: service.handlers, ...options });
      else if (service.kind === "library") await app.register(libraryServiceFastify, { prefix, handlers: service.handlers, ...options });
      else {
        const handlers = service.handlers;
        await app.register(
          (f, _o, done) => {
            registerFastifyService(f, LibraryServiceRoutes, handlers, options);
            done();
          },
          { prefix },
        );
      }
      await app.ready();
      server = app.server;
      closeApp = () => app.close();
      break;
    }
    case "hono": {
      const app = new Hono();
      extra?.hono?.(app);
      let sub: Hono;
      if (service.kind === "library-none") {
        const handle = createFetchHandler(LibraryServiceRoutes, service.handlers, options);
        sub = new Hono();
        sub.all("*", (c) => handle(c.req.raw, { routePattern: c.req.routePath, native: c }));
      } else {
        sub = service.kind === "a2a" ? a2aServiceHono(service.handlers, options) : libraryServiceHono(service.handlers, options);
      }
      app.route(prefix, sub);
      server = createServer(getRequestListener(app.fetch));
      break;
    }
  }
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  const origin = `http://127.0.0.1:${port}`;
  return {
    framework,
    url: origin + (prefix === "/" ? "" : prefix),
    origin,
    server,
    async close() {
      server.closeAllConnections?.();
      if (closeApp) await closeApp();
      else await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type { HandlerContext };

export { startBoth } from "./serve-both.js";
