/**
 * What workerd runs (bundled by harness.ts, configured by workerd.capnp): one
 * module, two Workers. `agent` serves the example agent; `client` runs the
 * generated client against the agent whose URL its request names
 * (`GET /?agent=<url>`) and answers its results as JSON.
 */
import { createEdgeAgent } from "./agent-app.js";
import { runClient } from "./client-run.js";

const agent = createEdgeAgent();

export default {
  fetch(request: Request, env: { role?: string }, ctx: unknown): Response | Promise<Response> {
    if (env.role !== "client") return agent(request, env, ctx);
    const url = new URL(request.url).searchParams.get("agent");
    if (!url) return new Response("?agent=<url> is missing", { status: 400 });
    return runClient(url).then(
      (results) => Response.json(results),
      (e: unknown) => new Response(e instanceof Error ? (e.stack ?? e.message) : String(e), { status: 500 }),
    );
  },
};
