/**
 * The engine's options and the card fields it follows, with their defaults
 * and checks: who a request acts for when no `owner` is given, and the
 * `pushSender` a card that offers push needs. Types the generated
 * `create<Service>Agent` and agents import, through `a2a-http/agent`.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { Logger } from "../logger.js";
import type { HandlerContext } from "../route-binding.js";
import type { AgentStore } from "./store.js";
import type { PushSender } from "./push-sender.js";
import type { AgentTypes } from "./types.js";

/** The card fields the engine reads (lf.a2a.v1.AgentCard). */
export interface AgentCardLike extends ProtoMessage {
  capabilities?:
    | {
        streaming?: boolean | undefined;
        pushNotifications?: boolean | undefined;
        extendedAgentCard?: boolean | undefined;
        extensions: { uri: string; required: boolean }[];
      }
    | undefined;
  defaultInputModes: string[];
  skills: { inputModes: string[] }[];
}

export interface AgentOptions<T extends AgentTypes = AgentTypes, Card extends AgentCardLike = AgentCardLike> {
  /**
   * The public agent card, or a function that gives it (read per request, so
   * it may name URLs known only once the servers listen). The engine follows
   * its capabilities (streaming, pushNotifications, extendedAgentCard), its
   * required extensions and its input modes.
   */
  readonly card: Card | (() => Card);
  /** What GetExtendedAgentCard answers authenticated callers, when the card declares `extendedAgentCard`. */
  readonly extendedCard?: Card | ((context: T["context"]) => Card | Promise<Card>);
  /** Where tasks, events and push configs live. Default: `createMemoryStore()` with its defaults. */
  readonly store?: AgentStore;
  /**
   * Who a request acts for: every task belongs to (tenant, owner), and another
   * owner's task answers like a missing one. Default {@link defaultOwner}.
   */
  readonly owner?: (context: T["context"]) => string;
  /** Whether the caller is authenticated (for GetExtendedAgentCard). Default: the owner is not "". */
  readonly authenticated?: (context: T["context"]) => boolean;
  /**
   * Delivers push notifications: on Node, `createPushSender()` of
   * `a2a-http/push` (with its SSRF guard). The engine closes it with itself.
   * Without one, push is unavailable: the push rpcs answer
   * PushNotificationNotSupported, and a card (not a card function) that says
   * `pushNotifications: true` is refused at creation.
   */
  readonly pushSender?: PushSender;
  /** Refuse input parts whose media type the card does not accept (ContentTypeNotSupported). Default true. */
  readonly checkInputModes?: boolean;
  /** Events a subscriber may fall behind before it is cut off. Default 1 000. */
  readonly subscriberLimit?: number;
  /**
   * Errors an executor threw that are not `RpcError`s, and other failures off
   * the request path. Default: `logger.error`.
   */
  readonly onError?: (error: unknown) => void;
  /** Where the engine's lines go (pino's or the console's shape). Default `consoleLogger` (a2a-http's logger.ts). */
  readonly logger?: Logger;
  /**
   * Serve A2A v0.3 clients too, on every adapter the handlers are mounted on
   * (the JSON-RPC methods and `/v1/...` routes of v0.3, translated at the
   * edge to these same handlers: docs/a2a.md, "v0.3 clients"). Default
   * true. With false, also pass `a2aV03: false` to the card handler, so
   * that the card does not offer v0.3.
   */
  readonly a2aV03?: boolean;
}

/** The generated service's handlers, plus a way to stop the engine. */
export interface AgentControl {
  /** Aborts running executors (their signal fires), ends subscriptions and push delivery, closes the store. */
  close(): Promise<void>;
  /**
   * Whether the agent should get requests: its store answers a ping within
   * 1 s (the memory store always does) and `close()` has not begun; never
   * rejects. What `/readyz` serves (`healthExpress({ ready: () =>
   * agent.ready() })` and the other health glue, docs/deployment.md).
   * Made by `storeReadiness` (agent/readiness.ts).
   */
  ready(): Promise<boolean>;
}

/**
 * Who a request acts for when no `owner` option is given: the context's
 * `owner` when it is a string (set it in the server's context factory), else
 * its `user` when that is a string or has a string `id`, else "" (every
 * unauthenticated caller is the same anonymous owner).
 */
export function defaultOwner(context: HandlerContext): string {
  const c = context as { owner?: unknown; user?: unknown };
  if (typeof c.owner === "string") return c.owner;
  if (typeof c.user === "string") return c.user;
  if (c.user !== null && typeof c.user === "object" && typeof (c.user as { id?: unknown }).id === "string") {
    return (c.user as { id: string }).id;
  }
  return "";
}

/**
 * The `pushSender` option, checked: a card that offers push needs a sender,
 * and the `push` options of earlier versions must not be dropped silently.
 */
export function pushSenderOf<Card extends AgentCardLike>(
  options: Pick<AgentOptions<AgentTypes, Card>, "card" | "pushSender">,
): PushSender | undefined {
  if ((options as { push?: unknown }).push !== undefined) {
    throw new TypeError('a2a-http agent: the push option is gone; pass pushSender: createPushSender(options) from "a2a-http/push"');
  }
  const card = options.card;
  if (!options.pushSender && typeof card !== "function" && card.capabilities?.pushNotifications) {
    throw new TypeError(
      'a2a-http agent: the card says pushNotifications: true but there is no pushSender; on Node pass pushSender: createPushSender() from "a2a-http/push", elsewhere say pushNotifications: false',
    );
  }
  return options.pushSender;
}
