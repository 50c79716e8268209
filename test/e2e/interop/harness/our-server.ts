/**
 * Our example agent (example/agent.ts) served by one of the generated
 * adapters (Express 5, Fastify 5, Hono 4 on @hono/node-server), mounted at
 * `/a2a`, with its agent card as ProtoJSON at `/.well-known/agent-card.json`.
 * The card's interface URL is `<origin>/a2a` and carries the tenant, if any.
 * Listens on 127.0.0.1, port 0.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { toJson } from "@bufbuild/protobuf";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { serve } from "@hono/node-server";
import { AgentCardSchema, type AgentCard } from "../../../../gen/a2a_pb.js";
import type { A2AServiceHandlers } from "../../../../gen/a2a_http.js";
import { a2aServiceExpress, a2aServiceJsonRpcExpress } from "../../../../gen/a2a_http_express.js";
import { a2aServiceFastify, a2aServiceJsonRpcFastify } from "../../../../gen/a2a_http_fastify.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../../gen/a2a_http_hono.js";
import { createPushSender } from "a2a-http/push";
import { createExampleAgent, exampleAgentCard } from "../../../../example/agent.js";

export type Framework = "express" | "fastify" | "hono";
export const frameworks: readonly Framework[] = ["express", "fastify", "hono"];

export const CARD_PATH = "/.well-known/agent-card.json";
export const MOUNT = "/a2a";
/** Where the JSON-RPC binding of the same handlers is mounted. */
export const JSONRPC_MOUNT = "/jsonrpc";

export interface OurServer {
  readonly framework: Framework;
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The interface URL the card declares: origin + `/a2a`. */
  readonly url: string;
  /** The JSON-RPC interface URL the card declares (second): origin + `/jsonrpc`. */
  readonly jsonRpcUrl: string;
  readonly tenant: string;
  readonly card: AgentCard;
  /** Every request the server saw: method, URL path, headers. */
  readonly requests: SeenRequest[];
  close(): Promise<void>;
}

export interface SeenRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

export interface OurServerOptions {
  readonly tenant?: string;
  /** Step delay of `/work n`; default 1 ms. */
  readonly stepMs?: number;
  /** Changes the example agent's handlers before they are served (e.g. to add a failing stream). */
  readonly wrap?: (agent: A2AServiceHandlers) => A2AServiceHandlers;
}

/** Records method, path and headers (not the body: reading it here could race the adapter). */
function recorder(requests: SeenRequest[]) {
  return (req: import("node:http").IncomingMessage): void => {
    requests.push({ method: req.method ?? "", path: req.url ?? "", headers: { ...req.headers } });
  };
}

/** Starts the example agent on `framework`. */
export async function startOurServer(framework: Framework, options: OurServerOptions = {}): Promise<OurServer> {
  const tenant = options.tenant ?? "";
  const requests: SeenRequest[] = [];
  const record = recorder(requests);
  // The interface URL is known once the server listens; the agent keeps this
  // object and copies it on every GetExtendedAgentCard, so it is filled in below.
  const card: AgentCard = exampleAgentCard("http://127.0.0.1", tenant);
  // Loopback test webhooks (http://127.0.0.1:9/hook) are allowed: the harness is a local agent.
  const example = createExampleAgent({
    card,
    stepMs: options.stepMs ?? 1,
    pushSender: createPushSender({ allow: { http: true, addresses: ["127.0.0.0/8"] } }),
  });
  const agent: A2AServiceHandlers = options.wrap ? options.wrap(example) : example;
  const cardJson = () => toJson(AgentCardSchema, card);

  let origin: string;
  let close: () => Promise<void>;
  switch (framework) {
    case "express": {
      const app = express();
      app.use((req, _res, next) => {
        record(req);
        next();
      });
      app.get(CARD_PATH, (_req, res) => {
        res.json(cardJson());
      });
      app.use(MOUNT, a2aServiceExpress(agent));
      app.use(JSONRPC_MOUNT, a2aServiceJsonRpcExpress(agent));
      const server: Server = await new Promise((resolve) => {
        const s = app.listen(0, "127.0.0.1", () => resolve(s));
      });
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () =>
        new Promise<void>((resolve, reject) => {
          server.closeAllConnections();
          server.close((err) => (err ? reject(err) : resolve()));
        });
      break;
    }
    case "fastify": {
      const app = Fastify();
      app.addHook("onRequest", async (request) => {
        record(request.raw);
      });
      app.get(CARD_PATH, async () => cardJson());
      await app.register(a2aServiceFastify, { handlers: agent, prefix: MOUNT });
      await app.register(a2aServiceJsonRpcFastify, { handlers: agent, prefix: JSONRPC_MOUNT });
      await app.listen({ port: 0, host: "127.0.0.1" });
      origin = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
      close = async () => {
        app.server.closeAllConnections();
        await app.close();
      };
      break;
    }
    case "hono": {
      const app = new Hono();
      app.get(CARD_PATH, (c) => c.json(cardJson()));
      app.route(MOUNT, a2aServiceHono(agent));
      app.route(JSONRPC_MOUNT, a2aServiceJsonRpcHono(agent));
      const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
        const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, () => resolve(s));
      });
      server.on("request", (req: import("node:http").IncomingMessage) => record(req));
      origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      close = () =>
        new Promise<void>((resolve, reject) => {
          const s = server as Server;
          s.closeAllConnections();
          s.close((err) => (err ? reject(err) : resolve()));
        });
      break;
    }
  }
  const url = origin + MOUNT;
  card.supportedInterfaces[0]!.url = url;
  const jsonRpcUrl = origin + JSONRPC_MOUNT;
  card.supportedInterfaces.push({ ...card.supportedInterfaces[0]!, url: jsonRpcUrl, protocolBinding: "JSONRPC" });
  return { framework, origin, url, jsonRpcUrl, tenant, card, requests, close };
}
