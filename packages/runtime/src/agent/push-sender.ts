/**
 * What the engine needs of push delivery, with no transport in it: the engine
 * runs on any host, but only a sender that can pin the address it connects to
 * can keep a client-chosen webhook off private networks. The Node sender,
 * with that guard, is `a2a-http/push` (push.ts).
 */
import type { PushConfigLike } from "./store.js";

/** The AuthenticationInfo of a push config: sent as `Authorization: <scheme> <credentials>`. */
export interface PushAuthentication {
  readonly scheme: string;
  readonly credentials: string;
}

/** Where one push config sends its notifications. */
export interface PushTarget {
  /** The config's id, unique per task; deliveries to one (taskKey, configId) go out in order. */
  readonly configId: string;
  readonly url: string;
  /** Sent as `X-A2A-Notification-Token` and `A2A-Notification-Token`; "" sends neither. */
  readonly token: string;
  readonly authentication?: PushAuthentication | undefined;
}

/** Where a stored push config sends: its id, URL, token and authentication (the engine's and the outbox's deliveries alike). */
export function pushTargetOf(config: PushConfigLike): PushTarget {
  return { configId: config.id, url: config.url, token: config.token, authentication: config.authentication };
}

/** How one delivery attempt went. */
export type PushAttempt =
  | { readonly ok: true }
  | { readonly ok: false; readonly retry: boolean; readonly reason: string; readonly retryAfterMs?: number };

export interface PushSender {
  /**
   * Resolves when `url` may be a webhook; rejects with InvalidParams naming
   * the URL and why not. Called when a push config is created.
   */
  check(url: string): Promise<void>;
  /**
   * Queues one delivery: POST `body` (a StreamResponse as JSON text) to the
   * target. Never throws; never blocks the caller. Deliveries for the same
   * (taskKey, target.configId) are sent one at a time, in the order queued.
   */
  send(taskKey: string, target: PushTarget, body: string): void;
  /**
   * One attempt, no retry (the outbox of a shared store retries itself, from
   * any instance): how it went and, when it failed, whether to try again and
   * after how long at the soonest. Never rejects. `trace`: the task's kept
   * trace context (OutboxItem.trace), which the attempt continues.
   */
  attempt(target: PushTarget, body: string, trace?: string): Promise<PushAttempt>;
  /** How long to wait before attempt `attempt + 1` after `attempt` failed with `outcome`. */
  retryDelayMs(attempt: number, outcome: PushAttempt): number;
  /** Attempts per notification, the first included. */
  readonly maxAttempts: number;
  /** The longest one attempt takes (a shared store's outbox claims a delivery for longer). */
  readonly timeoutMs: number;
  /** Reports a notification given up (never throws). */
  report(error: Error, target: PushTarget): void;
  /** Resolves when every queued delivery has been sent or given up (for tests and shutdown). */
  idle(): Promise<void>;
  /** Stops: pending deliveries are dropped, in-flight ones aborted. */
  close(): Promise<void>;
}

/** The error a notification given up is reported with. */
export function givenUp(target: PushTarget, attempts: number, reason: string): Error {
  const tries = attempts > 1 ? ` after ${attempts} attempts` : "";
  return new Error(`push notification to ${where(target)} failed${tries}: ${reason}`);
}

/** How a message names a target: its URL without credentials, and its config. */
export function where(target: PushTarget): string {
  return `"${shownUrl(target.url)}" (config "${target.configId}")`;
}

/** `text` without a user name and password, which must not reach a message or a log. */
export function shownUrl(text: string): string {
  if (!URL.canParse(text)) return text;
  const url = new URL(text);
  if (!url.username && !url.password) return url.href;
  url.username = "";
  url.password = "";
  return url.href;
}
