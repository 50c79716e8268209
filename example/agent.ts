/**
 * The example agent: an executor on the A2A task engine (a2a-http/agent),
 * served by every generated adapter and transport. The engine does tasks,
 * history, cancel, subscribers, push and ownership; this file only says
 * what the agent does with a message, by its first text:
 *
 * - `/message <text>`: answers with a Message, no task;
 * - `/wait`: the task stays WORKING until it is canceled (for subscribe and cancel;
 *   send it with `returnImmediately`, since a blocking SendMessage waits for the end);
 * - `/input`: the task stops in INPUT_REQUIRED;
 * - `/fail`: the task ends FAILED;
 * - `/work <n>`: n progress steps of `stepMs` each, logged, then COMPLETED;
 * - `/ask <text>`: sends `<text>` to the peer agent (`peer`, `--peer` of
 *   example/server.ts) with the generated client and COMPLETES with its answer
 *   (one trace across both agents when OpenTelemetry is on);
 * - anything else: the task COMPLETES with an artifact that echoes the text.
 */
import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import type { AgentStore, PushSender } from "a2a-http/agent";
import { AgentCardSchema, type AgentInterfaceSchema, AgentSkillSchema, Role, type AgentCard } from "../gen/a2a_pb.js";
import { createA2AServiceAgent, type A2AServiceExecutor } from "../gen/a2a_http_agent.js";
import type { A2AServiceClient } from "../gen/a2a_http_client.js";

export interface ExampleAgentOptions {
  /** The public card, or a function that gives it; GetExtendedAgentCard answers it with one more skill. */
  readonly card?: AgentCard | (() => AgentCard);
  /** Delay of one `/work` step. Default 1000 ms. */
  readonly stepMs?: number;
  /** Where progress goes. Default: nowhere. */
  readonly log?: (line: string) => void;
  /** Where tasks live. Default: in memory. */
  readonly store?: AgentStore;
  /** Delivers push notifications (on Node: `createPushSender()` of a2a-http/push). Default: none, push unavailable. */
  readonly pushSender?: PushSender;
  /** Another agent that `/ask` sends to (a client of the generated code). Default: none, `/ask` fails. */
  readonly peer?: A2AServiceClient;
}

const sleep = (ms: number, signal: AbortSignal) =>
  new Promise<void>((resolve) => {
    const t = setTimeout(done, ms);
    signal.addEventListener("abort", done, { once: true });
    function done() {
      clearTimeout(t);
      resolve();
    }
  });

/** What the example agent does with one message. */
export function exampleExecutor(stepMs = 1000, log: (line: string) => void = () => {}, peer?: A2AServiceClient): A2AServiceExecutor {
  return async ({ text, signal, taskId }, task) => {
    if (text.startsWith("/message")) return task.reply(text.replace(/^\/message\s*/, "") || "hello");
    await task.working();
    if (text.startsWith("/ask")) return ask(peer, text.replace(/^\/ask\s*/, ""), taskId, signal, task);
    if (text.startsWith("/wait")) return sleep(2 ** 31 - 1, signal);
    if (text.startsWith("/input")) return task.askForInput("What else do you need?");
    if (text.startsWith("/fail")) return task.fail("failed on purpose");
    const work = /^\/work\s+(\d+)/.exec(text);
    const steps = work ? Math.min(Number(work[1]), 1000) : 0;
    for (let i = 1; i <= steps && !signal.aborted; i++) {
      await sleep(stepMs, signal);
      if (signal.aborted) return;
      log(`task ${taskId}: step ${i}/${steps}`);
      void task.working(`step ${i} of ${steps}`);
    }
    log(`task ${taskId}: completed`);
    return task.complete({ artifactId: `${taskId}-echo`, name: "echo", parts: [{ content: { case: "text", value: `echo: ${text}` } }] });
  };
}

/** `/ask`: the peer's answer (its reply, or its task's first artifact) becomes this task's artifact. */
async function ask(
  peer: A2AServiceClient | undefined,
  text: string,
  taskId: string,
  signal: AbortSignal,
  task: Parameters<A2AServiceExecutor>[1],
): Promise<void> {
  if (!peer) return task.fail("no peer agent to ask (start the agent with --peer <url>)");
  const sent = await peer.sendMessage(
    { message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: text } }] } },
    { signal },
  );
  const parts = sent.payload.case === "task" ? (sent.payload.value.artifacts[0]?.parts ?? []) : (sent.payload.value?.parts ?? []);
  const answer = parts.map((p) => (p.content.case === "text" ? p.content.value : "")).join("");
  return task.complete({ artifactId: `${taskId}-peer`, name: "peer", parts: [{ content: { case: "text", value: `peer: ${answer}` } }] });
}

/** Creates the example agent's handlers over a fresh store. */
export function createExampleAgent(options: ExampleAgentOptions = {}) {
  const card = options.card ?? exampleAgentCard("http://127.0.0.1");
  const currentCard = typeof card === "function" ? card : () => card;
  return createA2AServiceAgent(exampleExecutor(options.stepMs, options.log, options.peer), {
    card: currentCard,
    // The example has no authentication: every caller counts as authenticated.
    authenticated: () => true,
    extendedCard: () => {
      const extended = clone(AgentCardSchema, currentCard());
      extended.skills.push(
        create(AgentSkillSchema, {
          id: "extended-echo",
          name: "Extended echo",
          description: "Only on the extended card.",
          tags: ["echo"],
        }),
      );
      return extended;
    },
    ...(options.store ? { store: options.store } : {}),
    ...(options.pushSender ? { pushSender: options.pushSender } : {}),
  });
}

/** Where the example agent serves its other bindings (see example/server.ts). */
export interface ExampleInterfaces {
  /** The JSON-RPC endpoint's URL. */
  readonly jsonRpcUrl?: string;
  /** The gRPC server's `host:port`. */
  readonly grpcTarget?: string;
  /**
   * Whether the card offers push notifications (default true): false where
   * the agent has no push sender, e.g. on Workers (docs/deployment.md).
   */
  readonly pushNotifications?: boolean;
}

/** The card's interfaces: HTTP+JSON at `url`, then JSON-RPC and gRPC when given, all with the same tenant. */
export function agentInterfaces(url: string, tenant = "", more: ExampleInterfaces = {}): MessageInitShape<typeof AgentInterfaceSchema>[] {
  return [
    { url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant },
    ...(more.jsonRpcUrl ? [{ url: more.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant }] : []),
    ...(more.grpcTarget ? [{ url: more.grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0", tenant }] : []),
  ];
}

/** The example agent's card. */
export function exampleAgentCard(url: string, tenant = "", more: ExampleInterfaces = {}): AgentCard {
  return create(AgentCardSchema, {
    name: "Echo agent",
    description: "An A2A agent on the task engine of protoc-gen-a2a-http: it echoes what you send.",
    version: "1.0.0",
    supportedInterfaces: agentInterfaces(url, tenant, more),
    capabilities: { streaming: true, pushNotifications: more.pushNotifications ?? true, extendedAgentCard: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes the text of a message.", tags: ["echo"] }],
  });
}
