/**
 * What peers.test.ts runs in a project that installed the packed runtime
 * with each optional peer at one end of its range (bundled by esbuild with
 * every package external, so `a2a-http`, the peers and @bufbuild/protobuf
 * are the project's own): the generated adapters on Express, Fastify and Hono
 * (through @hono/node-server), the gRPC binding through @connectrpc/connect's
 * router transport, and the SQL store on PGlite (argv[2], a directory) and,
 * when argv[3] names one, on PostgreSQL through pg; and a2a-http/otel enabled
 * on the installed @opentelemetry/api (no SDK: it loads, and a call served
 * while it is on answers as without it). Every binding answers one
 * SendMessage from the echo executor; it prints what each answered, as JSON.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import { create, fromJson } from "@bufbuild/protobuf";
import { createClient, createRouterTransport } from "@connectrpc/connect";
import { serve } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import type { AgentStore } from "a2a-http/agent";
import { fastifyOptions } from "a2a-http/fastify";
import { enableOpenTelemetry } from "a2a-http/otel";
import { openStore } from "a2a-http/stores";
import { A2AService, AgentCardSchema, SendMessageRequestSchema, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { createA2AServiceAgent } from "../../../gen/a2a_http_agent.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { a2aServiceExpress } from "../../../gen/a2a_http_express.js";
import { a2aServiceFastify, a2aServiceJsonRpcFastify } from "../../../gen/a2a_http_fastify.js";
import { a2aServiceHono } from "../../../gen/a2a_http_hono.js";

const [pgliteDir, postgresUrl] = process.argv.slice(2);
const sendMessage = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] } };
const headers = { "A2A-Version": "1.0", "Content-Type": "application/a2a+json" };

function agent(store?: AgentStore) {
  const card = create(AgentCardSchema, { name: "peers", version: "1.0.0", capabilities: { streaming: true } });
  return createA2AServiceAgent(
    async ({ text, taskId }, task) => {
      await task.working();
      return task.complete({ artifactId: `${taskId}-echo`, parts: [{ content: { case: "text", value: `echo: ${text}` } }] });
    },
    { card, authenticated: () => true, ...(store ? { store } : {}) },
  );
}

type TaskJson = { task?: { status: { state: string }; artifacts: { parts: { text: string }[] }[] } };
const answerOf = (t: TaskJson) => `${t.task?.status.state} ${t.task?.artifacts[0]?.parts[0]?.text}`;

async function post(url: string): Promise<string> {
  const res = await fetch(`${url}/message:send`, { method: "POST", headers, body: JSON.stringify(sendMessage) });
  if (res.status !== 200) return `HTTP ${res.status}: ${await res.text()}`;
  return answerOf((await res.json()) as TaskJson);
}

async function listen(server: Server): Promise<string> {
  if (!server.listening) await new Promise<void>((ok) => server.once("listening", () => ok()));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

async function close(server: Server) {
  await new Promise<void>((ok) => {
    server.close(() => ok());
    server.closeAllConnections();
  });
}

/** SendMessage through gRPC's binding, in process (connect-es's router transport). */
async function viaConnect(handlers: ReturnType<typeof agent>): Promise<string> {
  const client = createClient(A2AService, createRouterTransport(a2aServiceConnect(handlers)));
  const r = await client.sendMessage(fromJson(SendMessageRequestSchema, sendMessage), { headers: { "A2A-Version": "1.0" } });
  return r.payload.case === "task" ? taskAnswer(r.payload.value) : `no task: ${r.payload.case}`;
}

/** A task as `answerOf` says a JSON one. */
function taskAnswer(t: Task): string {
  const part = t.artifacts[0]?.parts[0]?.content;
  return `TASK_STATE_${TaskState[t.status?.state ?? 0]} ${part?.case === "text" ? part.value : part?.case}`;
}

/** SendMessage then GetTask on an agent over a store, through the gRPC binding. */
async function onStore(spec: string, options: { migrate?: boolean } = {}): Promise<string> {
  const store = await openStore(spec, { log: () => {}, ...options });
  const handlers = agent(store);
  try {
    const client = createClient(A2AService, createRouterTransport(a2aServiceConnect(handlers)));
    const h = { headers: { "A2A-Version": "1.0" } };
    const sent = await client.sendMessage(fromJson(SendMessageRequestSchema, sendMessage), h);
    if (sent.payload.case !== "task") return `no task: ${sent.payload.case}`;
    return taskAnswer(await client.getTask({ id: sent.payload.value.id }, h));
  } finally {
    await handlers.close();
  }
}

const handlers = agent();
const out: Record<string, string> = {};

{
  const app = express();
  app.use("/", a2aServiceExpress(handlers));
  const server = app.listen(0, "127.0.0.1");
  const url = await listen(server);
  out["express"] = await post(url);
  const off = enableOpenTelemetry();
  out["otel"] = await post(url);
  off();
  await close(server);
}
{
  const app = Fastify(fastifyOptions({ profile: "a2a" }));
  await app.register(a2aServiceJsonRpcFastify, { handlers, prefix: "/jsonrpc" });
  await app.register(a2aServiceFastify, { handlers });
  await app.listen({ port: 0, host: "127.0.0.1" });
  out["fastify"] = await post(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`);
  await app.close();
}
{
  const app = new Hono();
  app.route("/", a2aServiceHono(handlers));
  const server = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }) as Server;
  out["hono"] = await post(await listen(server));
  await close(server);
}
out["connect"] = await viaConnect(handlers);
await handlers.close();
if (pgliteDir) out["pglite"] = await onStore(pgliteDir);
if (postgresUrl) out["pg"] = await onStore(postgresUrl, { migrate: true });
console.log(JSON.stringify(out));
