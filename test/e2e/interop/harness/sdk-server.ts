/**
 * The A2A JS SDK (1.3.0) as a peer: its own Express REST server
 * (`restHandler` + `agentCardHandler` over a `DefaultRequestHandler` and an
 * `InMemoryTaskStore`), driven by a small executor written for these tests.
 *
 * The executor looks at the first text part of the user's message:
 * - `message <text>`: answers with a Message (no task);
 * - `wait`: the task stays WORKING until it is canceled;
 * - `input`: the task stops in INPUT_REQUIRED;
 * - `fail`: the task ends FAILED;
 * - anything else: an artifact echoing the text, then COMPLETED.
 *
 * Everything listens on 127.0.0.1, port 0.
 */
import type { AddressInfo } from "node:net";
import type { Server } from "node:http";
import express from "express";
import { AGENT_CARD_PATH, Role, TaskState } from "@a2a-js/sdk";
import type { AgentCard } from "@a2a-js/sdk";
import {
  AgentEvent,
  DefaultRequestHandler,
  InMemoryPushNotificationStore,
  InMemoryTaskStore,
  type AgentExecutor,
  type ExecutionEventBus,
  type PushNotificationSender,
} from "@a2a-js/sdk/server";
import { agentCardHandler, jsonRpcHandler, restHandler, UserBuilder } from "@a2a-js/sdk/server/express";

export interface SdkServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  /** The REST interface URL the card declares (origin + `/rest`). */
  readonly url: string;
  /** The JSON-RPC interface URL the card declares second (origin + `/jsonrpc`, the SDK's `jsonRpcHandler`). */
  readonly jsonRpcUrl: string;
  /** The tenant the card declares ("" for none). */
  readonly tenant: string;
  /** The card as the SDK holds it. */
  readonly card: AgentCard;
  /** Every request that reached the server: method, path (with query), headers. */
  readonly requests: RecordedRequest[];
  close(): Promise<void>;
}

export interface RecordedRequest {
  readonly method: string;
  readonly path: string;
  readonly headers: Record<string, string | string[] | undefined>;
}

export interface SdkServerOptions {
  /** Tenant declared in the card's interface; default none. */
  readonly tenant?: string;
  /** Whether to configure an extended card; default true. */
  readonly extendedCard?: boolean;
}

const now = () => new Date().toISOString();

function textOf(parts: readonly { content?: { $case: string; value: unknown } | undefined }[] | undefined): string {
  for (const p of parts ?? []) if (p.content?.$case === "text") return String(p.content.value);
  return "";
}

/** The test executor: see the file comment. */
function createExecutor(): AgentExecutor {
  /** Tasks kept WORKING by `wait`, released by cancel. */
  const waiting = new Map<string, () => void>();

  const status = (bus: ExecutionEventBus, taskId: string, contextId: string, state: TaskState) =>
    bus.publish(
      AgentEvent.statusUpdate({
        taskId,
        contextId,
        status: { state, timestamp: now(), message: undefined },
        metadata: undefined,
      }),
    );

  return {
    async execute(ctx, bus) {
      const text = textOf(ctx.userMessage.parts);
      if (text.startsWith("message")) {
        bus.publish(
          AgentEvent.message({
            messageId: crypto.randomUUID(),
            contextId: ctx.contextId,
            taskId: "",
            role: Role.ROLE_AGENT,
            parts: [
              {
                content: { $case: "text", value: `reply: ${text.slice("message".length).trim()}` },
                metadata: undefined,
                filename: "",
                mediaType: "",
              },
            ],
            metadata: undefined,
            extensions: [],
            referenceTaskIds: [],
          } as never),
        );
        bus.finished();
        return;
      }
      if (!ctx.task) {
        bus.publish(
          AgentEvent.task({
            id: ctx.taskId,
            contextId: ctx.contextId,
            history: [ctx.userMessage],
            artifacts: [],
            metadata: undefined,
            status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
          }),
        );
      } else {
        bus.publish(AgentEvent.task(ctx.task));
      }
      status(bus, ctx.taskId, ctx.contextId, TaskState.TASK_STATE_WORKING);
      if (text.startsWith("wait")) {
        await new Promise<void>((resolve) => waiting.set(ctx.taskId, resolve));
        return;
      }
      if (text.startsWith("input")) {
        status(bus, ctx.taskId, ctx.contextId, TaskState.TASK_STATE_INPUT_REQUIRED);
        bus.finished();
        return;
      }
      if (text.startsWith("fail")) {
        status(bus, ctx.taskId, ctx.contextId, TaskState.TASK_STATE_FAILED);
        bus.finished();
        return;
      }
      bus.publish(
        AgentEvent.artifactUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          artifact: {
            artifactId: `${ctx.taskId}-echo`,
            name: "echo",
            description: "",
            parts: [{ content: { $case: "text", value: `echo: ${text}` } }],
            metadata: undefined,
            extensions: [],
          },
          append: false,
          lastChunk: true,
          metadata: undefined,
        } as never),
      );
      status(bus, ctx.taskId, ctx.contextId, TaskState.TASK_STATE_COMPLETED);
      bus.finished();
    },
    async cancelTask(taskId, bus) {
      const release = waiting.get(taskId);
      waiting.delete(taskId);
      bus.publish(
        AgentEvent.statusUpdate({
          taskId,
          contextId: "",
          status: { state: TaskState.TASK_STATE_CANCELED, timestamp: now(), message: undefined },
          metadata: undefined,
        }),
      );
      bus.finished();
      release?.();
    },
  };
}

/** A push sender that sends nothing: the tests only exercise the config CRUD. */
const quietSender: PushNotificationSender = { send: async () => {} };

/** The card of the SDK peer, in the SDK's own (ts-proto) shape. */
export function sdkPeerCard(url: string, tenant: string): AgentCard {
  return {
    name: "SDK peer",
    description: "The A2A JS SDK's REST server with a test executor.",
    version: "1.0.0",
    supportedInterfaces: [{ url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant }],
    provider: undefined,
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  } as unknown as AgentCard;
}

/** Starts the SDK's REST server on 127.0.0.1, port 0. */
export async function startSdkServer(options: SdkServerOptions = {}): Promise<SdkServer> {
  const tenant = options.tenant ?? "";
  const app = express();
  const requests: RecordedRequest[] = [];
  // Record method, path and headers (not the body, which the SDK's parser reads).
  app.use((req, _res, next) => {
    requests.push({ method: req.method, path: req.originalUrl, headers: { ...req.headers } });
    next();
  });

  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, "127.0.0.1", () => resolve(s));
  });
  const origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const url = `${origin}/rest`;
  const jsonRpcUrl = `${origin}/jsonrpc`;
  const card = sdkPeerCard(url, tenant);
  card.supportedInterfaces.push({ ...card.supportedInterfaces[0]!, url: jsonRpcUrl, protocolBinding: "JSONRPC" });
  const extended = { ...card, name: "SDK peer (extended)" } as AgentCard;
  const handler = new DefaultRequestHandler(
    card,
    new InMemoryTaskStore(),
    createExecutor(),
    undefined,
    new InMemoryPushNotificationStore(),
    quietSender,
    options.extendedCard === false ? undefined : async () => extended,
  );
  app.use(`/${AGENT_CARD_PATH}`, agentCardHandler({ agentCardProvider: handler }));
  app.use("/rest", restHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));
  app.use("/jsonrpc", jsonRpcHandler({ requestHandler: handler, userBuilder: UserBuilder.noAuthentication }));

  return {
    origin,
    url,
    jsonRpcUrl,
    tenant,
    card,
    requests,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((err) => (err ? reject(err) : resolve()));
      }),
  };
}
