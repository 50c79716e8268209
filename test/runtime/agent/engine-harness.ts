/**
 * Helpers of test/runtime/agent/engine.test.ts: an agent on the task engine
 * (gen/a2a_http_agent.ts) served over all three A2A bindings on 127.0.0.1,
 * HTTP+JSON at `/` and JSON-RPC at `/jsonrpc` on Express, gRPC on its own
 * HTTP/2 server through connect-es; and one client shape for the three
 * transports, so each test case runs the same calls on each.
 *
 * The agent's executor is scripted: a test registers a function with
 * `agent.script(fn)` and gets back a text key; a message whose first word is
 * that key runs the function. Anything else completes with an echo.
 */
import http2 from "node:http2";
import type { Server } from "node:http";
import type { AddressInfo } from "node:net";
import { create, toJson, type MessageInitShape } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import express from "express";
import { a2aErrorReason, agentCardExpress, isRpcError, type ContextInput, type HandlerContext } from "a2a-http";
import { ErrorInfoSchema } from "a2a-http/connect";
import type { AgentStore } from "a2a-http/agent";
import { createPushSender, type PushOptions } from "a2a-http/push";
import {
  A2AService,
  AgentCardSchema,
  Role,
  type AgentCard,
  type MessageSchema,
  type PartSchema,
  type StreamResponse,
} from "../../../gen/a2a_pb.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { a2aServiceExpress, a2aServiceJsonRpcExpress } from "../../../gen/a2a_http_express.js";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { createA2AServiceAgent, type A2AServiceAgentOptions, type A2AServiceExecutor } from "../../../gen/a2a_http_agent.js";

export const transports = ["http+json", "jsonrpc", "grpc"] as const;
export type Transport = (typeof transports)[number];

/** The handler context of the test agents: the context factory sets `owner` from `Authorization: Bearer <owner>`. */
export interface TestContext extends HandlerContext {
  readonly owner: string;
}

export type TestExecutor = A2AServiceExecutor<TestContext>;
export type TestAgentOptions = Omit<A2AServiceAgentOptions<TestContext>, "card">;

/** The owner a request acts for: the bearer token, else "" (anonymous). */
export function ownerFromHeaders(input: Pick<ContextInput<unknown>, "headers">): { owner: string } {
  const auth = input.headers.get("authorization") ?? "";
  const m = /^Bearer\s+(.+)$/i.exec(auth);
  return { owner: m ? m[1]!.trim() : "" };
}

export interface TestAgent {
  /** `http://127.0.0.1:<port>`: HTTP+JSON at the root, the card at /.well-known/agent-card.json. */
  readonly url: string;
  readonly jsonRpcUrl: string;
  /** `http://127.0.0.1:<port>` of the HTTP/2 server (gRPC, gRPC-Web, Connect). */
  readonly grpcBaseUrl: string;
  /** The engine's handlers, to call directly. */
  readonly handlers: ReturnType<typeof createA2AServiceAgent<TestContext>>;
  /** The card the engine reads (mutable; read per request). */
  readonly card: AgentCard;
  /** Errors the engine reported through onError. */
  readonly errors: unknown[];
  /** Errors the servers reported (a handler threw something other than an RpcError). */
  readonly serverErrors: unknown[];
  /** Registers what the executor does for messages starting with the returned key. */
  script(fn: TestExecutor): string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Changes to the default card (streaming and push on, text/plain in). */
  readonly card?: (card: AgentCard) => void;
  readonly store?: AgentStore;
  /** Options of the agent's push sender (createPushSender of a2a-http/push); its errors go to `errors`. */
  readonly push?: PushOptions;
  readonly extendedCard?: A2AServiceAgentOptions<TestContext>["extendedCard"];
  readonly subscriberLimit?: number;
  readonly checkInputModes?: boolean;
}

/** Starts an agent on the engine, served over HTTP+JSON, JSON-RPC and gRPC on 127.0.0.1. */
export async function startAgent(options: StartOptions = {}): Promise<TestAgent> {
  const card = create(AgentCardSchema, {
    name: "Engine test agent",
    description: "test/runtime/agent/engine.test.ts",
    version: "1.0.0",
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: false },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "s", name: "s", description: "s", tags: ["t"] }],
  });
  options.card?.(card);
  const scripts = new Map<string, TestExecutor>();
  const errors: unknown[] = [];
  const executor: TestExecutor = (input, task) => {
    const key = input.text.split(/\s/)[0] ?? "";
    const fn = scripts.get(key);
    if (fn) return fn(input, task);
    return task.complete(`echo: ${input.text}`);
  };
  const handlers = createA2AServiceAgent<TestContext>(executor, {
    card: () => card,
    onError: (e) => errors.push(e),
    ...(options.store ? { store: options.store } : {}),
    pushSender: createPushSender({ onError: (e) => errors.push(e), ...options.push }),
    ...(options.extendedCard !== undefined ? { extendedCard: options.extendedCard } : {}),
    ...(options.subscriberLimit !== undefined ? { subscriberLimit: options.subscriberLimit } : {}),
    ...(options.checkInputModes !== undefined ? { checkInputModes: options.checkInputModes } : {}),
  });

  const context = (input: Pick<ContextInput<unknown>, "headers">) => ownerFromHeaders(input);
  const serverErrors: unknown[] = [];
  const onError = (e: unknown) => void serverErrors.push(e);
  const app = express();
  app.get(
    "/.well-known/agent-card.json",
    agentCardExpress(() => toJson(AgentCardSchema, card)),
  );
  app.use("/jsonrpc", a2aServiceJsonRpcExpress<TestContext>(handlers, { context, onError }));
  app.use("/", a2aServiceExpress<TestContext>(handlers, { context, onError }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;

  const h2 = http2.createServer(connectNodeAdapter({ routes: a2aServiceConnect<TestContext>(handlers, { context, onError }) }));
  const sessions = new Set<http2.ServerHttp2Session>();
  h2.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  await new Promise<void>((resolve) => h2.listen(0, "127.0.0.1", resolve));
  const grpcBaseUrl = `http://127.0.0.1:${(h2.address() as AddressInfo).port}`;
  card.supportedInterfaces.push(
    { $typeName: "lf.a2a.v1.AgentInterface", url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "" },
    { $typeName: "lf.a2a.v1.AgentInterface", url: `${url}/jsonrpc`, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
  );

  let n = 0;
  return {
    url,
    jsonRpcUrl: `${url}/jsonrpc`,
    grpcBaseUrl,
    handlers,
    card,
    errors,
    serverErrors,
    script(fn) {
      const key = `script-${++n}-${crypto.randomUUID().slice(0, 8)}`;
      scripts.set(key, fn);
      return key;
    },
    async close() {
      await Promise.all([
        new Promise<void>((resolve) => {
          server.closeAllConnections();
          server.close(() => resolve());
        }),
        new Promise<void>((resolve) => {
          for (const s of sessions) s.destroy();
          h2.close(() => resolve());
        }),
      ]);
      await handlers.close();
    },
  };
}

export interface ClientOptions {
  /** Sent as `Authorization: Bearer <owner>`; none when undefined. */
  readonly owner?: string | undefined;
  /** More headers on every call. */
  readonly headers?: Record<string, string>;
}

const grpcTransports = new Map<string, ReturnType<typeof createGrpcTransport>>();

/**
 * One client shape for the three transports: our generated client over
 * HTTP+JSON and over JSON-RPC, and connect-es's over gRPC (with
 * `A2A-Version: 1.0`, which our client sends by itself).
 */
export function clientFor(transport: Transport, agent: TestAgent, options: ClientOptions = {}): A2AServiceClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.owner !== undefined) headers["authorization"] = `Bearer ${options.owner}`;
  if (transport === "http+json") return createA2AServiceClient({ baseUrl: agent.url, headers });
  if (transport === "jsonrpc") return createA2AServiceClient({ baseUrl: agent.jsonRpcUrl, transport: "jsonrpc", headers });
  let t = grpcTransports.get(agent.grpcBaseUrl);
  if (!t) grpcTransports.set(agent.grpcBaseUrl, (t = createGrpcTransport({ baseUrl: agent.grpcBaseUrl })));
  const raw = createClient(A2AService, t) as unknown as Record<string, (req: unknown, o?: object) => unknown>;
  const wrapped: Record<string, unknown> = {};
  for (const m of A2AService.methods) {
    wrapped[m.localName] = (req: unknown, o: { headers?: HeadersInit; signal?: AbortSignal; timeoutMs?: number } = {}) => {
      const h = new Headers({ "a2a-version": "1.0", ...headers });
      new Headers(o.headers).forEach((v, k) => {
        h.set(k, v);
      });
      return raw[m.localName]!(req, { ...o, headers: h });
    };
  }
  return wrapped as unknown as A2AServiceClient;
}

/** Stops using the gRPC transports of an agent (its sessions are closed by the server). */
export function forgetGrpc(agent: TestAgent): void {
  grpcTransports.delete(agent.grpcBaseUrl);
}

/** The A2A reason of an error from any of the three clients (google.rpc.ErrorInfo), else undefined. */
export function reasonOf(e: unknown): string | undefined {
  if (e instanceof ConnectError) return e.findDetails(ErrorInfoSchema)[0]?.reason;
  return a2aErrorReason(e);
}

/** The gRPC status code of an error from any of the three clients. */
export function codeOf(e: unknown): number | undefined {
  if (e instanceof ConnectError) return e.code;
  if (isRpcError(e)) return e.code;
  return undefined;
}

/** The message of an error, without the "[code] " prefix connect-es adds. */
export function messageOf(e: unknown): string {
  if (e instanceof ConnectError) return e.rawMessage;
  return (e as Error).message;
}

export { rejection, streamFailure } from "../../e2e/interop/harness/util.js";

export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** A user message whose only part is `text`. */
export function userMessage(text: string, extra: { contextId?: string; taskId?: string } = {}): MessageInitShape<typeof MessageSchema> {
  return userParts([{ content: { case: "text", value: text } }], extra);
}

/** A user message of these parts. */
export function userParts(
  parts: MessageInitShape<typeof PartSchema>[],
  extra: { contextId?: string; taskId?: string } = {},
): MessageInitShape<typeof MessageSchema> {
  return { messageId: crypto.randomUUID(), role: Role.USER, parts, ...extra };
}

/** A promise a test resolves: executors wait on it to let the test control timing. */
export interface Gate {
  readonly promise: Promise<void>;
  open(): void;
}

const allGates = new Set<Gate>();

export function gate(): Gate {
  let open!: () => void;
  const promise = new Promise<void>((resolve) => (open = resolve));
  const g = { promise, open };
  allGates.add(g);
  return g;
}

/** Opens every gate ever made (so that no executor is left waiting at shutdown). */
export function openAllGates(): void {
  for (const g of allGates) g.open();
  allGates.clear();
}

/** Waits for the gate, or until the signal fires. */
export function until(g: Gate, signal: AbortSignal): Promise<void> {
  return new Promise<void>((resolve) => {
    if (signal.aborted) return resolve();
    signal.addEventListener("abort", () => resolve(), { once: true });
    void g.promise.then(resolve);
  });
}

/** Polls `check` until it holds. */
export async function eventually(check: () => boolean | Promise<boolean>, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error("timed out waiting for a condition");
    await new Promise((r) => setTimeout(r, 5));
  }
}

export const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

/** A short description of each stream event: its case, and the state or artifact id. */
export function describeEvents(events: readonly StreamResponse[]): string[] {
  return events.map((e) => {
    switch (e.payload.case) {
      case "task":
        return `task:${e.payload.value.status?.state}`;
      case "statusUpdate": {
        const m = e.payload.value.status?.message?.parts[0]?.content;
        return `status:${e.payload.value.status?.state}${m?.case === "text" ? `:${m.value}` : ""}`;
      }
      case "artifactUpdate":
        return `artifact:${e.payload.value.artifact?.artifactId}${e.payload.value.append ? ":append" : ""}${e.payload.value.lastChunk ? ":last" : ""}`;
      case "message":
        return "message";
      default:
        return "?";
    }
  });
}

/** The text of the first text part of a message or artifact. */
export function textOf(x: { parts: { content: { case: string | undefined; value?: unknown } }[] } | undefined): string | undefined {
  const c = x?.parts.find((p) => p.content.case === "text")?.content;
  return c ? String(c.value) : undefined;
}
