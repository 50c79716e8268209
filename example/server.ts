/**
 * Serves the example agent over A2A's HTTP+JSON binding, with the generated
 * adapter of one framework, and its agent card at /.well-known/agent-card.json.
 *
 *     tsx example/server.ts [--framework express|fastify|hono] [--port 41241] [--host 127.0.0.1] [--tenant name]
 *
 * With --tenant, the card's interface carries that tenant, so A2A clients put
 * it in the path (`/name/tasks/...`); the routes without a tenant still work.
 */
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { toJson } from "@bufbuild/protobuf";
import { serve } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { fastifyFrameworkErrors } from "a2a-http";
import { AgentCardSchema } from "../gen/a2a_pb.js";
import { a2aServiceExpress } from "../gen/a2a_http_express.js";
import { a2aServiceFastify } from "../gen/a2a_http_fastify.js";
import { a2aServiceHono } from "../gen/a2a_http_hono.js";
import { createExampleAgent, exampleAgentCard } from "./agent.js";

export type Framework = "express" | "fastify" | "hono";

export interface RunningAgent {
  readonly url: string;
  close(): Promise<void>;
}

const cardPath = "/.well-known/agent-card.json";

/** Starts the example agent; `port: 0` picks a free port. */
export async function startExampleAgent(options: {
  framework: Framework;
  port: number;
  host?: string;
  tenant?: string;
  log?: (line: string) => void;
}): Promise<RunningAgent> {
  const host = options.host ?? "127.0.0.1";
  const log = options.log ?? (() => {});
  let url = "";
  // The card names the server's own URL, which is known only once it listens.
  const agentCard = () => exampleAgentCard(url, options.tenant ?? "");
  const card = () => toJson(AgentCardSchema, agentCard());
  const handlers = createExampleAgent({ log, card: agentCard });

  switch (options.framework) {
    case "express": {
      const app = express();
      app.get(cardPath, (_req, res) => void res.json(card()));
      app.use("/", a2aServiceExpress(handlers));
      const server = await new Promise<import("node:http").Server>((ok) => {
        const s = app.listen(options.port, host, () => ok(s));
      });
      url = `http://${host}:${(server.address() as AddressInfo).port}`;
      return {
        url,
        close: () =>
          new Promise<void>((ok) => {
            server.close(() => ok());
            server.closeAllConnections();
          }),
      };
    }
    case "fastify": {
      // Without frameworkErrors, Fastify answers a malformed URL with its own body.
      const app = Fastify({ frameworkErrors: fastifyFrameworkErrors({ profile: "a2a" }) });
      app.get(cardPath, async () => card());
      await app.register(a2aServiceFastify, { handlers });
      await app.listen({ port: options.port, host });
      url = `http://${host}:${(app.server.address() as AddressInfo).port}`;
      return { url, close: () => app.close() };
    }
    case "hono": {
      const app = new Hono();
      app.get(cardPath, (c) => c.json(card()));
      app.route("/", a2aServiceHono(handlers));
      const server = await new Promise<ReturnType<typeof serve>>((ok) => {
        const s = serve({ fetch: app.fetch, port: options.port, hostname: host }, () => ok(s));
      });
      url = `http://${host}:${(server.address() as AddressInfo).port}`;
      return {
        url,
        close: () =>
          new Promise<void>((ok) => {
            server.close(() => ok());
            if ("closeAllConnections" in server) server.closeAllConnections();
          }),
      };
    }
  }
}

const usage = `usage: tsx example/server.ts [--framework express|fastify|hono] [--port 41241] [--host 127.0.0.1] [--tenant name]

Serves the example agent over A2A's HTTP+JSON binding, and its card at ${cardPath}.

  --framework  the server framework (default express)
  --port       the port (default 41241; 0 picks a free one)
  --host       the address to listen on (default 127.0.0.1)
  --tenant     the tenant the card's interface carries: A2A clients then call
               /<tenant>/tasks/...; the routes without a tenant still work`;

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      options: {
        framework: { type: "string", default: "express" },
        port: { type: "string", default: "41241" },
        host: { type: "string", default: "127.0.0.1" },
        tenant: { type: "string" },
        help: { type: "boolean", short: "h", default: false },
      },
    }));
  } catch (e) {
    console.error(`${(e as Error).message}\n${usage}`);
    process.exit(2);
  }
  if (values.help) {
    console.log(usage);
    return;
  }
  const framework = values.framework as Framework;
  if (!["express", "fastify", "hono"].includes(framework)) {
    console.error(`unknown --framework "${values.framework}"; choose express, fastify or hono`);
    process.exit(2);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not "${values.port}"`);
    process.exit(2);
  }
  const agent = await startExampleAgent({
    framework,
    port,
    host: values.host,
    ...(values.tenant ? { tenant: values.tenant } : {}),
    log: (line) => console.log(`[agent] ${line}`),
  });
  console.log(`generated code: ${new URL("../gen/", import.meta.url).pathname}`);
  console.log(`example agent (${framework}) listening on ${agent.url}`);
  console.log(`agent card: ${agent.url}${cardPath}`);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: stopping`);
    void agent.close().then(() => process.exit(0));
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
