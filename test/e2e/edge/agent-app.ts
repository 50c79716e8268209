/**
 * The example agent (example/agent.ts: its executor on the task engine with
 * the memory store) as one fetch handler, the way an app on Bun, Deno or a
 * Worker serves it: the card at /.well-known/agent-card.json, HTTP+JSON at `/`
 * and JSON-RPC at `/jsonrpc`, through the generated Hono adapters; /healthz
 * and /readyz through healthHono.
 *
 * One route is the tests' own: GET /__edge/aborted lists the `x-edge-probe`
 * header of every streaming call whose handler saw its signal fire, so a
 * test can tell when the handler noticed that its client went away.
 */
import { toJson } from "@bufbuild/protobuf";
import { Hono } from "hono";
import type { HandlerContext } from "a2a-http";
import { agentCardHono, healthHono } from "a2a-http/server";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a_http_hono.js";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { AgentCardSchema } from "../../../gen/a2a_pb.js";
import { createExampleAgent, exampleAgentCard } from "../../../example/agent.js";

export const probeHeader = "x-edge-probe";

/** Records when a streaming handler's signal fires, by the call's probe header. */
function watchAborts(handlers: A2AServiceHandlers, aborted: string[]): A2AServiceHandlers {
  const watch = (ctx: HandlerContext) => {
    const probe = ctx.headers.get(probeHeader);
    if (probe) ctx.signal.addEventListener("abort", () => aborted.push(probe), { once: true });
  };
  return Object.assign(Object.create(handlers) as A2AServiceHandlers, {
    sendStreamingMessage: (req: Parameters<A2AServiceHandlers["sendStreamingMessage"]>[0], ctx: HandlerContext) => {
      watch(ctx);
      return handlers.sendStreamingMessage(req, ctx);
    },
    subscribeToTask: (req: Parameters<A2AServiceHandlers["subscribeToTask"]>[0], ctx: HandlerContext) => {
      watch(ctx);
      return handlers.subscribeToTask(req, ctx);
    },
  });
}

/** A fetch handler as Bun, Deno and Workers call it. */
export type EdgeFetch = (request: Request, env?: unknown, ctx?: unknown) => Response | Promise<Response>;

/** The agent's fetch handler. Nothing is created before the first request: a Worker may not use timers or randomness at start. */
export function createEdgeAgent(): EdgeFetch {
  // The card names the server's own URL, known from the requests it receives;
  // it offers no push: push delivery needs Node (a2a-http/push).
  let origin = "http://127.0.0.1";
  const card = () => exampleAgentCard(origin, "", { jsonRpcUrl: `${origin}/jsonrpc`, pushNotifications: false });
  const aborted: string[] = [];
  let app: Hono | undefined;
  const appOnce = () => {
    if (app) return app;
    const agent = createExampleAgent({ card, stepMs: 50 });
    const handlers = watchAborts(agent, aborted);
    app = new Hono();
    // /healthz and /readyz, before everything (the memory store always answers; the engine's ready() once it has one).
    app.use(healthHono({ ready: () => agent.ready?.() ?? true }));
    app.get(
      "/.well-known/agent-card.json",
      agentCardHono(() => toJson(AgentCardSchema, card())),
    );
    app.get("/__edge/aborted", (c) => c.json(aborted));
    app.route("/jsonrpc", a2aServiceJsonRpcHono(handlers));
    app.route("/", a2aServiceHono(handlers));
    return app;
  };
  return (request, env, ctx) => {
    origin = new URL(request.url).origin;
    return appOnce().fetch(request, env, ctx as never);
  };
}
