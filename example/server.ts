/**
 * Serves the example agent over all three A2A bindings from one handler
 * object: HTTP+JSON at `/` and JSON-RPC at `/jsonrpc` on the framework's port,
 * gRPC (with gRPC-Web and Connect) on its own HTTP/2 port through connect-es,
 * since Express, Fastify and Hono here speak HTTP/1.1 and plain-text HTTP/2
 * cannot share a port with it. The gRPC port serves A2A v1.0's
 * `lf.a2a.v1.A2AService` and, for v0.3 clients, v0.3's `a2a.v1.A2AService` on
 * the same handlers. The card at /.well-known/agent-card.json lists
 * the three interfaces, HTTP+JSON first.
 *
 *     tsx example/server.ts [--framework express|fastify|hono] [--port 41241] [--grpc-port 41242] [--host 127.0.0.1] [--tenant name] [--agent example] [--store memory|<dir>|postgres://…] [--migrate] [--peer url]
 *
 * --store keeps tasks in memory (the default), in a directory (embedded
 * PostgreSQL, PGlite) or on a PostgreSQL server, which several instances of
 * the agent may share (see docs/agent.md, Stores). With --tenant, every interface carries that tenant, so A2A clients put it
 * in the path (`/name/tasks/...`) or the request's `tenant` field; the routes
 * without a tenant still work. `--grpc-port -1` (or `off`) turns gRPC off.
 * GET /healthz (the process serves) and /readyz (the store answers; 503 once
 * stopping) are for probes and load balancers (docs/deployment.md, Health).
 * `LOG_FORMAT=json` writes one JSON object per line instead of text. With
 * OTEL_EXPORTER_OTLP_ENDPOINT set, traces and metrics go there over OTLP/HTTP
 * (example/telemetry.ts, docs/observability.md).
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { parseArgs } from "node:util";
import { toJson } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { a2aV03GrpcHandlers, grpcServerOptions, withAllowedHosts, withRequestBounds, type GrpcServerLimits } from "a2a-http/connect";
import { serve } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import {
  A2A_AGENT_CARD_PATHS,
  agentCardHono,
  allowedHostsCheck,
  consoleLogger,
  healthHono,
  loggerFromEnv,
  type AllowedHosts,
  type Logger,
} from "a2a-http/server";
import { agentCardExpress, healthExpress } from "a2a-http/node";
import { agentCardFastify, fastifyOptions, healthFastify } from "a2a-http/fastify";
import { storeReadiness } from "a2a-http/agent";
import { createPushSender } from "a2a-http/push";
import { StoreError, openStore } from "a2a-http/stores";
import { A2AService, AgentCardSchema } from "../gen/a2a_pb.js";
import { a2aServiceConnect } from "../gen/a2a_http_connect.js";
import { A2AService as A2AServiceV03 } from "../gen/a2a-v0_3_pb.js";
import { a2aServiceConnect as a2aServiceV03Connect } from "../gen/a2a-v0_3_http_connect.js";
import { a2aServiceExpress, a2aServiceJsonRpcExpress } from "../gen/a2a_http_express.js";
import { a2aServiceFastify, a2aServiceJsonRpcFastify } from "../gen/a2a_http_fastify.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../gen/a2a_http_hono.js";
import { createA2AServiceAgent } from "../gen/a2a_http_agent.js";
import { createA2AServiceClient } from "../gen/a2a_http_client.js";
import { createExampleAgent, exampleAgentCard, type ExampleInterfaces } from "./agent.js";
import { conformanceCard, conformanceExecutor } from "./conformance.js";
import { docsAnswer } from "./docs.js";
import { startTelemetry, TelemetryConfigError, type Telemetry } from "./telemetry.js";

export type Framework = "express" | "fastify" | "hono";

/**
 * Which agent to serve: the example (echo, /wait, /input, ...), or the A2A
 * TCK's system under test with its full card or its restricted one.
 */
export type AgentKind = "example" | "conformance" | "conformance-restricted";
export const agentKinds: readonly AgentKind[] = ["example", "conformance", "conformance-restricted"];

export interface RunningAgent {
  /** The HTTP+JSON interface (the server's root). */
  readonly url: string;
  /** The JSON-RPC interface: `url` + `/jsonrpc`. */
  readonly jsonRpcUrl?: string;
  /** The gRPC server's `host:port`, unless gRPC is off. */
  readonly grpcTarget?: string;
  /** Where tasks live, as a log line says it (a URL without its password). */
  readonly store: string;
  close(): Promise<void>;
}

/** A port that another process holds: main() says which one and the flag that moves it. */
export class PortInUseError extends Error {
  override name = "PortInUseError";
  constructor(
    readonly server: "http" | "grpc",
    readonly host: string,
    readonly port: number,
    options?: ErrorOptions,
  ) {
    super(`port ${port} is already in use on ${host}`, options);
  }
}

/** For a listen that rejects: EADDRINUSE becomes a PortInUseError naming the server; other errors pass. */
const portInUse =
  (server: "http" | "grpc", host: string, port: number) =>
  (e: unknown): never => {
    throw (e as { code?: unknown } | null)?.code === "EADDRINUSE" ? new PortInUseError(server, host, port, { cause: e }) : e;
  };

const cardPath = A2A_AGENT_CARD_PATHS[0]!;
const jsonRpcPath = "/jsonrpc";

/** Serves gRPC, gRPC-Web and Connect over plain-text HTTP/2 (h2c). */
function isLoopback(host: string): boolean {
  return host === "localhost" || host === "::1" || host.startsWith("127.");
}

async function startGrpc(
  handlers: ReturnType<typeof createExampleAgent>,
  port: number,
  host: string,
  limits: GrpcServerLimits = {},
  allowedHosts?: AllowedHosts,
) {
  // connect-es's defaults read 4 GiB messages and allow 2^32-1 streams: bounded here (docs/security.md).
  const o = grpcServerOptions(limits);
  // v0.3's service beside v1.0's, on the same handlers (undefined for an agent with v0.3 off).
  const v03 = a2aV03GrpcHandlers(handlers, { v1: A2AService, v03: A2AServiceV03 });
  const routes = (router: ConnectRouter) => {
    a2aServiceConnect(handlers)(router);
    if (v03) a2aServiceV03Connect(v03)(router);
  };
  // The element cap counted on the wire, before connect-es decodes (it has no hook of its own there).
  const bounded = withRequestBounds(connectNodeAdapter({ routes, ...o.adapter }), {
    services: v03 ? [A2AService, A2AServiceV03] : [A2AService],
    readMaxBytes: o.adapter.readMaxBytes,
  });
  // The Host check of the HTTP port, here too (connect-es answers any Host).
  const adapter = withAllowedHosts(bounded, { allowedHosts });
  const server = http2.createServer(o.http2, adapter);
  server.setTimeout(o.idleTimeoutMs);
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  await new Promise<void>((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, () => ok());
  });
  return {
    target: `${host}:${(server.address() as AddressInfo).port}`,
    /** Whether v0.3 clients are served too: the card then lists the port for them. */
    servesV03: v03 !== undefined,
    close: () =>
      new Promise<void>((ok) => {
        for (const s of sessions) s.destroy();
        server.close(() => ok());
      }),
  };
}

/** Starts the example agent; `port: 0` picks a free port. */
export async function startExampleAgent(options: {
  framework: Framework;
  port: number;
  host?: string;
  tenant?: string;
  /** The gRPC port; default 0 (any free one); -1 turns gRPC off. */
  grpcPort?: number;
  /** Fastify: time to receive a whole request, in ms (default 300 000, as Node gives Express and Hono). */
  requestTimeoutMs?: number;
  /** The gRPC port's bounds; default DEFAULT_GRPC_LIMITS of a2a-http/connect. */
  grpcLimits?: GrpcServerLimits;
  /** Default "example". */
  agent?: AgentKind;
  /** The Host values served on every route and port (DNS rebinding); default "auto": on loopback only the loopback names. */
  allowedHosts?: AllowedHosts;
  /** Where tasks live: "memory" (default), a directory (PGlite) or a postgres:// URL. */
  store?: string;
  /** A PostgreSQL server: apply missing migrations at start (default: only check the schema). */
  migrate?: boolean;
  log?: (line: string) => void;
  /** Where the runtime's errors and warnings go (servers, push sender, store). Default: the console. */
  logger?: Logger;
  /** The HTTP+JSON URL of another agent that the example's `/ask` sends to. */
  peer?: string;
}): Promise<RunningAgent> {
  const host = options.host ?? "127.0.0.1";
  const logger = options.logger ?? consoleLogger;
  const serverOptions = { ...(options.allowedHosts ? { allowedHosts: options.allowedHosts } : {}), logger };
  // The card and the docs pages answer the same Host values as the services; the
  // card lists the gRPC port to v0.3 clients when it serves them (known once it listens).
  const cardOptions = () => ({ ...serverOptions, ...(grpc?.servesV03 ? { a2aV03Grpc: true } : {}) });
  const wrongHost = allowedHostsCheck(options.allowedHosts);
  const log = options.log ?? (() => {});
  let url = "";
  let grpc: Awaited<ReturnType<typeof startGrpc>> | undefined;
  // The card names the servers' own URLs, which are known only once they listen.
  const kind = options.agent ?? "example";
  const interfaces = (): ExampleInterfaces => ({ jsonRpcUrl: url + jsonRpcPath, ...(grpc ? { grpcTarget: grpc.target } : {}) });
  const agentCard = () =>
    kind === "example"
      ? exampleAgentCard(url, options.tenant ?? "", interfaces())
      : conformanceCard(url, options.tenant ?? "", interfaces(), kind === "conformance-restricted");
  const card = () => toJson(AgentCardSchema, agentCard());
  // An agent on loopback is a local one: its webhooks may be local and plain http too.
  const pushSender = createPushSender({
    logger,
    ...(isLoopback(host) ? { allow: { http: true, addresses: ["127.0.0.0/8", "::1/128"] } } : {}),
  });
  // Opened before the servers listen: a store that cannot open stops the agent before it takes requests.
  let storeLine = "";
  const store = await openStore(options.store, { migrate: options.migrate ?? false, logger, log: (line) => (storeLine = line) });
  // /readyz: the store answers, and the agent is not stopping (503 from the start of close(), before the servers stop).
  let closing = false;
  const health = { ready: storeReadiness(store, () => closing) };
  const handlers =
    kind === "example"
      ? createExampleAgent({
          log,
          card: agentCard,
          pushSender,
          store,
          ...(options.peer ? { peer: createA2AServiceClient({ baseUrl: options.peer }) } : {}),
        })
      : createA2AServiceAgent(conformanceExecutor, {
          card: agentCard,
          pushSender,
          store,
          authenticated: () => true,
          extendedCard: agentCard,
        });
  const grpcPort = options.grpcPort ?? 0;
  let http: Awaited<ReturnType<typeof startHttp>>;
  try {
    if (grpcPort >= 0) {
      grpc = await startGrpc(handlers, grpcPort, host, options.grpcLimits, options.allowedHosts).catch(portInUse("grpc", host, grpcPort));
    }
    http = await startHttp().catch(portInUse("http", host, options.port));
  } catch (e) {
    await grpc?.close();
    // Closes the store too (a directory's lock is released).
    await handlers.close();
    throw e;
  }
  url = http.url;
  return {
    url,
    jsonRpcUrl: url + jsonRpcPath,
    ...(grpc ? { grpcTarget: grpc.target } : {}),
    store: storeLine.replace(/^store: /, ""),
    close: async () => {
      closing = true;
      await Promise.all([http.close(), grpc?.close()]);
      await handlers.close();
    },
  };

  /** HTTP+JSON at `/` and JSON-RPC at `/jsonrpc`, on the framework's HTTP/1.1 server. */
  async function startHttp(): Promise<{ url: string; close(): Promise<void> }> {
    switch (options.framework) {
      case "express": {
        const app = express();
        // Health first: no Host check, no A2A-Version, never under a tenant.
        app.use(healthExpress(health));
        const serveCard = agentCardExpress(card, cardOptions());
        for (const path of A2A_AGENT_CARD_PATHS) app.get(path, serveCard);
        app.use((req, res, next) => {
          const a = req.method === "GET" ? docsAnswer(req.path, url) : undefined;
          if (a === undefined) return next();
          const refused = wrongHost(req.headers.host, req.socket);
          if (refused) return void res.status(refused.httpStatus).json(refused.toStatusBody());
          res.status(a.status).type(a.type).send(a.body);
        });
        app.use(jsonRpcPath, a2aServiceJsonRpcExpress(handlers, serverOptions));
        app.use("/", a2aServiceExpress(handlers, serverOptions));
        // Express 5 hands a listen error to the callback.
        const server = await new Promise<import("node:http").Server>((ok, fail) => {
          const s = app.listen(options.port, host, (error?: Error) => (error ? fail(error) : ok(s)));
        });
        return {
          url: `http://${host}:${(server.address() as AddressInfo).port}`,
          close: () =>
            new Promise<void>((ok) => {
              server.close(() => ok());
              server.closeAllConnections();
            }),
        };
      }
      case "fastify": {
        // fastifyOptions: Fastify's own answer to a malformed URL replaced, and the request
        // timeouts Fastify leaves off (a trickled body would hold its connection for good).
        const app = Fastify(
          fastifyOptions({ profile: "a2a", ...(options.requestTimeoutMs ? { requestTimeoutMs: options.requestTimeoutMs } : {}) }),
        );
        await app.register(healthFastify(health));
        const serveCard = agentCardFastify(card, cardOptions());
        for (const path of A2A_AGENT_CARD_PATHS) app.get(path, serveCard);
        for (const path of ["/openapi.json", "/docs", "/docs/*"]) {
          app.get(path, async (req, reply) => {
            const refused = wrongHost(req.headers.host, req.raw.socket);
            if (refused) return reply.code(refused.httpStatus).send(refused.toStatusBody());
            const a = docsAnswer(req.url.split("?")[0]!, url)!;
            return reply.code(a.status).type(a.type).send(a.body);
          });
        }
        await app.register(a2aServiceJsonRpcFastify, { handlers, prefix: jsonRpcPath, ...serverOptions });
        await app.register(a2aServiceFastify, { handlers, ...serverOptions });
        await app.listen({ port: options.port, host });
        return { url: `http://${host}:${(app.server.address() as AddressInfo).port}`, close: () => app.close() };
      }
      case "hono": {
        const app = new Hono();
        app.use(healthHono(health));
        const serveCard = agentCardHono(card, cardOptions());
        for (const path of A2A_AGENT_CARD_PATHS) app.get(path, serveCard);
        for (const path of ["/openapi.json", "/docs", "/docs/*"]) {
          app.get(path, (c) => {
            const refused = wrongHost(c.req.header("host"), (c.env as { incoming?: { socket?: unknown } } | undefined)?.incoming?.socket);
            if (refused) return c.json(refused.toStatusBody(), refused.httpStatus as 421);
            const a = docsAnswer(c.req.path, url)!;
            return c.body(typeof a.body === "string" ? a.body : new Uint8Array(a.body), a.status as 200, { "content-type": a.type });
          });
        }
        app.route(jsonRpcPath, a2aServiceJsonRpcHono(handlers, serverOptions));
        app.route("/", a2aServiceHono(handlers, serverOptions));
        const server = await new Promise<ReturnType<typeof serve>>((ok, fail) => {
          const s = serve({ fetch: app.fetch, port: options.port, hostname: host }, () => ok(s));
          s.once("error", fail);
        });
        return {
          url: `http://${host}:${(server.address() as AddressInfo).port}`,
          close: () =>
            new Promise<void>((ok) => {
              server.close(() => ok());
              if ("closeAllConnections" in server) server.closeAllConnections();
            }),
        };
      }
    }
  }
}

const usage = `usage: tsx example/server.ts [--framework express|fastify|hono] [--port 41241] [--grpc-port 41242] [--host 127.0.0.1] [--tenant name] [--agent example] [--store memory|<dir>|postgres://…] [--migrate] [--peer url]

Serves the example agent over A2A's three bindings from one handler object:
HTTP+JSON at /, JSON-RPC at /jsonrpc, gRPC (and gRPC-Web, Connect) on its own
HTTP/2 port; its card, listing all three, at ${cardPath}.

  --framework  the server framework (default express)
  --port       the HTTP port (default 41241; 0 picks a free one)
  --grpc-port  the gRPC port (default 41242; 0 picks a free one; -1 or off turns gRPC off)
  --grpc-max-streams     concurrent streams per HTTP/2 session (default 100)
  --grpc-idle-ms         close a gRPC session idle this long (default 300000; 0: never)
  --grpc-session-memory  megabytes one HTTP/2 session may buffer (default 10)
               (the largest gRPC message is the HTTP body limit, 4 MiB)
  --host       the address to listen on (default 127.0.0.1)
  --allowed-hosts  the Host header values served, comma-separated (name,
               name:port, .domain), or "any"; default: on a loopback --host
               only localhost, 127.0.0.1 and [::1] with the port (against DNS
               rebinding), elsewhere any
  --tenant     the tenant the card's interfaces carry: A2A clients then call
               /<tenant>/tasks/... or set the request's tenant; the routes
               without a tenant still work
  --agent      example (default): the echo agent (/message, /wait, /input,
               /fail, /work n); conformance: the A2A TCK's system under test;
               conformance-restricted: the same with streaming, push and the
               extended card off and a required extension (the TCK's gated tests)
  --store      where tasks live (default: $A2A_STORE, else memory): memory
               (lost when the agent stops), a directory (embedded
               PostgreSQL, PGlite; created when missing;
               one agent at a time), or postgres://user:password@host/db
               (a PostgreSQL server that several instances may share)
  --migrate    with a postgres:// store, apply missing schema migrations at
               start (otherwise run npx a2a-http migrate --url ... first)
  --peer       the HTTP+JSON URL of another A2A agent, which a message
               "/ask <text>" is sent to (the task completes with its answer)

On a loopback host the agent delivers push notifications to local and plain
http:// webhooks too; on any other host only to public https:// ones.

GET /healthz answers 200 while the process serves, GET /readyz 200 while the
store answers (503 once stopping): for probes and load balancers. With the
environment variable LOG_FORMAT=json the agent logs one JSON object per line.
With OTEL_EXPORTER_OTLP_ENDPOINT (and OpenTelemetry's other OTEL_* variables)
it exports traces and metrics over OTLP/HTTP (docs/observability.md).`;

/** --allowed-hosts: "any", or a comma-separated list. */
function allowedHostsFlag(text: string): AllowedHosts {
  return text.trim() === "any"
    ? "any"
    : text
        .split(",")
        .map((h) => h.trim())
        .filter((h) => h !== "");
}

/**
 * `--grpc-port -1` as `--grpc-port=-1`: node's parseArgs takes a value that
 * starts with "-" for an option, and refuses it, unless joined with "=".
 */
export function negativeValuesJoined(args: readonly string[]): string[] {
  const out: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    const next = args[i + 1];
    if (a.startsWith("--") && !a.includes("=") && next !== undefined && /^-\d+$/.test(next)) {
      out.push(`${a}=${next}`);
      i++;
    } else out.push(a);
  }
  return out;
}

async function main(): Promise<void> {
  let values;
  try {
    ({ values } = parseArgs({
      args: negativeValuesJoined(process.argv.slice(2)),
      options: {
        framework: { type: "string", default: "express" },
        port: { type: "string", default: "41241" },
        "grpc-port": { type: "string", default: "41242" },
        "grpc-max-streams": { type: "string" },
        "grpc-idle-ms": { type: "string" },
        "grpc-session-memory": { type: "string" },
        host: { type: "string", default: "127.0.0.1" },
        "allowed-hosts": { type: "string" },
        tenant: { type: "string" },
        agent: { type: "string", default: "example" },
        store: { type: "string" },
        migrate: { type: "boolean", default: false },
        peer: { type: "string" },
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
  const kind = values.agent as AgentKind;
  if (!agentKinds.includes(kind)) {
    console.error(`unknown --agent "${values.agent}"; choose ${agentKinds.join(", ")}`);
    process.exit(2);
  }
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    console.error(`--port must be a port number, not "${values.port}"`);
    process.exit(2);
  }
  // "off" as in a scaffolded agent's GRPC_PORT.
  const grpcPort = values["grpc-port"] === "off" ? -1 : Number(values["grpc-port"]);
  if (!Number.isInteger(grpcPort) || grpcPort < -1 || grpcPort > 65535) {
    console.error(`--grpc-port must be a port number or -1, not "${values["grpc-port"]}"`);
    process.exit(2);
  }
  const grpcLimits: GrpcServerLimits = {};
  for (const [flag, key, min] of [
    ["grpc-max-streams", "maxConcurrentStreams", 1],
    ["grpc-idle-ms", "idleTimeoutMs", 0],
    ["grpc-session-memory", "maxSessionMemory", 1],
  ] as const) {
    const text = values[flag];
    if (text === undefined) continue;
    const n = Number(text);
    if (!Number.isInteger(n) || n < min) {
      console.error(`--${flag} must be an integer of at least ${min}, not "${text}"`);
      process.exit(2);
    }
    (grpcLimits as Record<string, number>)[key] = n;
  }
  // LOG_FORMAT=json: one JSON object per line (the runtime's errors and warnings too); else text as always.
  const logger = loggerFromEnv(process.env);
  // OTEL_EXPORTER_OTLP_ENDPOINT and the rest of OpenTelemetry's environment; nothing loaded without it.
  let telemetry: Telemetry | undefined;
  try {
    telemetry = await startTelemetry({ serviceName: "a2a-example-agent", warn: (line) => logger.warn({}, line) });
  } catch (e) {
    if (!(e instanceof TelemetryConfigError)) throw e;
    console.error(e.message);
    process.exit(2);
  }
  let agent: RunningAgent;
  try {
    agent = await startExampleAgent({
      framework,
      port,
      grpcPort,
      grpcLimits,
      host: values.host,
      ...(values["allowed-hosts"] ? { allowedHosts: allowedHostsFlag(values["allowed-hosts"]) } : {}),
      ...(values.tenant ? { tenant: values.tenant } : {}),
      agent: kind,
      // The flag, else A2A_STORE (as the scaffold reads it), else memory.
      store: values.store ?? (process.env["A2A_STORE"]?.trim() || "memory"),
      migrate: values.migrate,
      ...(values.peer ? { peer: values.peer } : {}),
      log: (line) => logger.info({ source: "executor" }, `[agent] ${line}`),
      logger,
    });
  } catch (e) {
    // A store that cannot open: one line that says what to do.
    if (e instanceof StoreError) {
      const hint = e.reason === "schema-outdated" ? ", or start with --migrate" : "";
      console.error(`--store: ${e.message}${hint}`);
      process.exit(1);
    }
    // A port another process holds: one line naming it and the flag that moves it.
    if (e instanceof PortInUseError) {
      const flag = e.server === "http" ? "--port" : "--grpc-port";
      console.error(`${e.message}: set ${flag} to another port, 0 for any free one${e.server === "grpc" ? ", or -1 for no gRPC" : ""}`);
      process.exit(1);
    }
    // A malformed --allowed-hosts entry: one line, not a stack.
    if (e instanceof TypeError && e.message.startsWith("allowedHosts:")) {
      console.error(`--allowed-hosts: ${e.message.slice("allowedHosts: ".length)}`);
      process.exit(2);
    }
    throw e;
  }
  const say = (line: string) => logger.info({}, line);
  say(`generated code: ${new URL("../gen/", import.meta.url).pathname}`);
  say(`${kind} agent (${framework}): HTTP+JSON on ${agent.url}, JSON-RPC on ${agent.jsonRpcUrl}`);
  if (agent.grpcTarget) say(`gRPC, gRPC-Web and Connect (HTTP/2; A2A v1.0 and v0.3) on ${agent.grpcTarget}`);
  say(`agent card: ${agent.url}${cardPath}`);
  say(`store: ${agent.store}`);
  say(`API reference: ${agent.url}/docs (OpenAPI document: ${agent.url}/openapi.json)`);
  say(`health: ${agent.url}/healthz (live), ${agent.url}/readyz (ready)`);
  if (telemetry) say(telemetry.description);
  let stopping = false;
  const stop = (signal: string) => {
    if (stopping) return;
    stopping = true;
    say(`${signal}: stopping`);
    // The spans and metrics of the last requests are exported before the process ends.
    void agent
      .close()
      .then(() => telemetry?.shutdown())
      .then(() => process.exit(0));
  };
  process.once("SIGINT", () => stop("SIGINT"));
  process.once("SIGTERM", () => stop("SIGTERM"));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
