/**
 * `a2a-http/push`, the push sender for Node: POSTs each StreamResponse of a
 * task to the webhooks its clients registered, in order per config, with
 * retries, behind the SSRF guard of webhook-guard.ts (checked when a config is
 * created and again at every connection, through node:http's own DNS lookup).
 * The engine takes it as its `pushSender` option.
 */
import { Agent as HttpAgent, request as httpRequest, type IncomingMessage } from "node:http";
import { Agent as HttpsAgent, request as httpsRequest } from "node:https";
import type { LookupFunction } from "node:net";
import { A2AErrors } from "../a2a.js";
import { givenUp, where, type PushAttempt, type PushSender, type PushTarget } from "./push-sender.js";
import { createWebhookGuard, WebhookNotAllowedError, type WebhookGuard } from "./webhook-guard.js";
import { consoleLogger, type Logger } from "../logger.js";
import { pause, retryAfterMs } from "../retry-wait.js";
import { telemetry, type PushOutcome, type TraceContext } from "../telemetry.js";

export type { PushAttempt, PushAuthentication, PushSender, PushTarget } from "./push-sender.js";

/** Exceptions to the webhook SSRF guard, for development and private deployments. */
export interface WebhookAllow {
  /** Allow plain http:// URLs. Default false: https only. */
  readonly http?: boolean;
  /**
   * CIDR ranges (e.g. "127.0.0.1/32", "10.0.0.0/8", "::1/128") whose addresses
   * are allowed although loopback, private, link-local, etc. A bare address
   * means just itself. Default: none.
   */
  readonly addresses?: readonly string[];
}

export interface PushOptions {
  /** Exceptions to the SSRF guard. Default: https only, public unicast addresses only. */
  readonly allow?: WebhookAllow;
  /** Time for one attempt, connecting to reading the whole answer. Default 10_000 ms. */
  readonly timeoutMs?: number;
  /** Attempts per notification, the first included. Default 6 (1 + 5 retries). */
  readonly maxAttempts?: number;
  /** The first retry waits up to this, doubling each time (full jitter). Default 500 ms. */
  readonly baseDelayMs?: number;
  /** The longest wait between attempts, a `Retry-After` included. Default 30_000 ms. */
  readonly maxDelayMs?: number;
  /** Pending notifications per (task, config). Beyond, the oldest pending one is dropped and onError told. Default 1000. */
  readonly maxQueue?: number;
  /** Hears every notification given up, dropped or refused. Default: one line to the logger's `warn`. */
  readonly onError?: (error: Error, target: PushTarget) => void;
  /** Where the default `onError` writes (`warn`, with the config id). Default {@link consoleLogger}: one line of console.warn. */
  readonly logger?: Logger;
  /** For tests: all addresses of a host. Default: node:dns/promises `lookup(host, { all: true })`. */
  readonly lookup?: (hostname: string) => Promise<readonly { address: string; family: number }[]>;
}

/**
 * Throws A2AErrors.invalidParams naming the URL and why, when `url` may not be
 * a webhook: not absolute, not https (unless allow.http), with a user name or
 * password, or a host that is or resolves to a loopback, private, unique-local,
 * link-local (cloud metadata 169.254.169.254 among them), carrier-grade NAT,
 * unspecified, multicast, broadcast or reserved address (IPv4-mapped IPv6 of
 * those too), or a cloud metadata name; unless allow.addresses covers the
 * address. Every address of the host must pass.
 */
export async function checkWebhookUrl(url: string, options: PushOptions = {}): Promise<void> {
  return checkWith(createWebhookGuard(options), url);
}

async function checkWith(guard: WebhookGuard, url: string): Promise<void> {
  try {
    await guard.checkUrl(url);
  } catch (e) {
    throw e instanceof WebhookNotAllowedError ? A2AErrors.invalidParams(e.message) : e;
  }
}

interface Delivery {
  readonly target: PushTarget;
  readonly body: string;
  /** The trace context it was queued in (the run's), with telemetry on: its attempts continue that trace. */
  readonly trace: TraceContext | undefined;
}

type Outcome = PushAttempt;

/**
 * The push sender of an agent on Node, for the engine's `pushSender` option:
 * `pushSender: createPushSender()`. The engine closes it with itself.
 */
export function createPushSender(options: PushOptions = {}): PushSender {
  const guard = createWebhookGuard(options);
  const timeoutMs = options.timeoutMs ?? 10_000;
  const maxAttempts = Math.max(1, options.maxAttempts ?? 6);
  const baseDelayMs = options.baseDelayMs ?? 500;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const maxQueue = Math.max(1, options.maxQueue ?? 1000);
  const logger = options.logger ?? consoleLogger;
  const onError =
    options.onError ?? ((error: Error, target: PushTarget) => logger.warn({ configId: target.configId }, `a2a-http: ${error.message}`));

  // One queue of pending deliveries per (task, config); an entry exists while its worker runs.
  const queues = new Map<string, Delivery[]>();
  let idleWaiters: (() => void)[] = [];
  const stop = new AbortController();
  // Own agents, so close() can end their sockets; keep-alive, as a task sends
  // several notifications to one webhook.
  const agents = { http: new HttpAgent({ keepAlive: true }), https: new HttpsAgent({ keepAlive: true }) };

  function report(error: Error, target: PushTarget): void {
    try {
      onError(error, target);
    } catch {
      // A throwing onError must not stop the queue.
    }
  }

  function send(taskKey: string, target: PushTarget, body: string): void {
    if (stop.signal.aborted) return;
    const key = JSON.stringify([taskKey, target.configId]);
    let queue = queues.get(key);
    if (!queue) {
      queue = [];
      queues.set(key, queue);
      // On a microtask, so that onError is never called from inside send().
      const started = queue;
      queueMicrotask(() => void work(key, started));
    }
    if (queue.length >= maxQueue) {
      const dropped = queue.shift()!;
      report(new Error(`push notification to ${where(dropped.target)} dropped: more than ${maxQueue} pending`), dropped.target);
    }
    queue.push({ target, body, trace: telemetry.on?.capture() });
  }

  async function work(key: string, queue: Delivery[]): Promise<void> {
    try {
      for (let next = queue.shift(); next && !stop.signal.aborted; next = queue.shift()) await deliver(next);
    } finally {
      queues.delete(key);
      if (queues.size === 0) {
        const waiters = idleWaiters;
        idleWaiters = [];
        for (const resolve of waiters) resolve();
      }
    }
  }

  async function deliver({ target, body, trace }: Delivery): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      const outcome = await traced(target, body, attempt, trace);
      if (outcome.ok || stop.signal.aborted) return;
      if (!outcome.retry || attempt >= maxAttempts) {
        report(givenUp(target, attempt, outcome.reason), target);
        return;
      }
      await pause(retryDelayMs(attempt, outcome), stop.signal);
    }
  }

  function retryDelayMs(attempt: number, outcome: Outcome): number {
    if (!outcome.ok && outcome.retryAfterMs !== undefined) return outcome.retryAfterMs;
    // Full jitter (https://aws.amazon.com/blogs/architecture/exponential-backoff-and-jitter/)
    // spreads the retries of many tasks hitting one recovering webhook.
    return Math.random() * Math.min(maxDelayMs, baseDelayMs * 2 ** (attempt - 1));
  }

  /** One attempt, in its span when telemetry is on (carrying `traceparent` to the webhook). Never rejects. */
  function traced(target: PushTarget, body: string, attempt: number, trace: TraceContext | string | undefined): Promise<Outcome> {
    const t = telemetry.on;
    if (t === undefined) return post(target, body, undefined);
    return t
      .pushAttempt(typeof trace === "string" ? t.restore(trace) : trace, attempt, async (headers) => {
        const o = await post(target, body, headers);
        return { o, outcome: o.ok ? "ok" : o.retry ? "retry" : ("failed" as PushOutcome) };
      })
      .then((r) => r.o);
  }

  /** One attempt. Never rejects. */
  function post(target: PushTarget, body: string, traceHeaders: Record<string, string> | undefined): Promise<Outcome> {
    let url: URL;
    try {
      url = new URL(target.url);
      guard.checkStatic(url);
    } catch (e) {
      return Promise.resolve(failure(false, e));
    }
    const payload = Buffer.from(body);
    const headers: Record<string, string> = {
      ...traceHeaders,
      "Content-Type": "application/json",
      // Explicit, so the body is not chunked: some receivers (the A2A TCK's) read by Content-Length only.
      "Content-Length": String(payload.length),
    };
    const auth = target.authentication;
    if (auth?.credentials) headers["Authorization"] = auth.scheme ? `${auth.scheme} ${auth.credentials}` : auth.credentials;
    if (target.token) {
      // The spec's name and the one the A2A SDKs send; receivers check one or the other.
      headers["X-A2A-Notification-Token"] = target.token;
      headers["A2A-Notification-Token"] = target.token;
    }

    return new Promise((resolve) => {
      let refused: WebhookNotAllowedError | undefined;
      let timedOut = false;
      let settled = false;
      const settle = (outcome: Outcome) => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        resolve(outcome);
      };
      const ended = (e?: unknown) => {
        if (refused) settle(failure(false, refused));
        else settle(failure(true, timedOut ? new Error(`no answer within ${timeoutMs} ms`) : (e ?? new Error("the connection closed"))));
      };
      const https = url.protocol === "https:";
      let req: ReturnType<typeof httpRequest>;
      try {
        req = (https ? httpsRequest : httpRequest)(url, {
          method: "POST",
          headers,
          agent: https ? agents.https : agents.http,
          // The guard resolves the host and the socket connects to an address
          // it checked, so DNS rebinding between check and connect gets nowhere.
          lookup: guardedLookup(guard, (e) => (refused = e)),
          signal: stop.signal,
        });
      } catch (e) {
        // A header value Node refuses (a token with a newline, say): no attempt can succeed.
        settle(failure(false, e));
        return;
      }
      const timer = setTimeout(() => {
        timedOut = true;
        req.destroy();
      }, timeoutMs);
      req.on("response", (res: IncomingMessage) => {
        // Read the answer to its end, so the socket can be used again.
        res.resume();
        res.on("error", () => {});
        res.on("end", () => settle(outcomeOf(res)));
        res.on("close", () => ended(new Error(`the answer (HTTP ${res.statusCode}) was cut off`)));
      });
      req.on("error", ended);
      req.on("close", () => ended());
      req.end(payload);
    });
  }

  function outcomeOf(res: IncomingMessage): Outcome {
    const status = res.statusCode ?? 0;
    if (status >= 200 && status < 300) return { ok: true };
    if (status === 429 || status >= 500) {
      const after = retryAfterMs(res.headers["retry-after"]);
      const outcome = { ok: false, retry: true, reason: `HTTP ${status}` } as const;
      return after === undefined ? outcome : { ...outcome, retryAfterMs: Math.min(after, maxDelayMs) };
    }
    // A redirect is not followed: its target has not passed the guard.
    if (status >= 300 && status < 400) return { ok: false, retry: false, reason: `HTTP ${status} (redirects are not followed)` };
    return { ok: false, retry: false, reason: `HTTP ${status}` };
  }

  function idle(): Promise<void> {
    return queues.size === 0 ? Promise.resolve() : new Promise((resolve) => idleWaiters.push(resolve));
  }

  async function close(): Promise<void> {
    stop.abort();
    for (const queue of queues.values()) queue.length = 0;
    await idle();
    agents.http.destroy();
    agents.https.destroy();
  }

  const check = (url: string) => checkWith(guard, url);
  // The outbox's attempt continues the task's kept trace, whichever instance sends it.
  const attempt = (target: PushTarget, body: string, trace?: string) => traced(target, body, 1, trace);
  return { check, send, attempt, retryDelayMs, maxAttempts, timeoutMs, report, idle, close };
}

/**
 * A `lookup` for http.request that resolves through the guard: every address
 * of the host is checked, and the socket is only handed checked ones.
 * `onRefused` hears a refusal, which is not worth retrying.
 */
function guardedLookup(guard: WebhookGuard, onRefused: (e: WebhookNotAllowedError) => void): LookupFunction {
  return (hostname, options, callback) => {
    guard.resolve(hostname).then(
      (all) => {
        const family = options.family === "IPv4" ? 4 : options.family === "IPv6" ? 6 : options.family;
        const addresses = family === 4 || family === 6 ? all.filter((a) => a.family === family) : all;
        const first = addresses[0];
        if (!first) callback(Object.assign(new Error(`host "${hostname}" has no IPv${family} address`), { code: "ENOTFOUND" }), "");
        else if (options.all)
          callback(
            null,
            addresses.map(({ address, family }) => ({ address, family })),
          );
        else callback(null, first.address, first.family);
      },
      (e: unknown) => {
        if (e instanceof WebhookNotAllowedError) onRefused(e);
        callback(e instanceof Error ? e : new Error(String(e)), "");
      },
    );
  };
}

function failure(retry: boolean, e: unknown): Outcome {
  return { ok: false, retry, reason: e instanceof Error ? e.message : String(e) };
}
