/**
 * Retrying a call the agent could not serve for now (UNAVAILABLE: a 503, a
 * lost connection, an agent whose store is away), for the rpcs that may be
 * sent twice without harm. Which those are is the proto's word, else HTTP's:
 * a method whose `idempotency_level` is NO_SIDE_EFFECTS or IDEMPOTENT, or
 * whose primary HttpRule is GET, PUT or DELETE (RFC 9110 §9.2.2). A2A's
 * reads and push config deletes are; SendMessage and CancelTask are not.
 * Unary calls only: a stream that fails is resubscribed by its caller.
 */
import type { ClientRoute } from "../route-binding.js";
import { Code, RpcError, retryDelayOf } from "../errors.js";
import { retryAfterMs } from "../retry-wait.js";

/** The `retry` client option. */
export interface RetryOptions {
  /** Attempts in all, the first included; default 3. */
  readonly maxAttempts?: number | undefined;
  /** The wait before the second attempt, doubled for each next one; default 200 ms. */
  readonly firstDelayMs?: number | undefined;
  /** The longest wait, an answer's `Retry-After` included; default 5 000 ms. */
  readonly maxDelayMs?: number | undefined;
}

export interface RetryPolicy {
  readonly maxAttempts: number;
  readonly firstDelayMs: number;
  readonly maxDelayMs: number;
}

/** The policy of the client's option (`false`: none). */
export function retryPolicy(option: RetryOptions | false | undefined): RetryPolicy | undefined {
  if (option === false) return undefined;
  const maxAttempts = option?.maxAttempts ?? 3;
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
    throw new TypeError(`retry.maxAttempts must be an integer of 1 or more, got ${maxAttempts}`);
  if (maxAttempts === 1) return undefined;
  return { maxAttempts, firstDelayMs: option?.firstDelayMs ?? 200, maxDelayMs: option?.maxDelayMs ?? 5_000 };
}

const IDEMPOTENT_HTTP_METHODS = new Set(["GET", "PUT", "DELETE"]);

/** Whether calling the rpc twice does no more than calling it once (see the file's comment). */
export function isIdempotent(method: ClientRoute["descriptor"], primaryHttpMethod: string): boolean {
  // 0 is IDEMPOTENCY_UNKNOWN (google.protobuf.MethodOptions), compared as a number: the enum would bring descriptor_pb into the client's bundle.
  return method.idempotency !== 0 || IDEMPOTENT_HTTP_METHODS.has(primaryHttpMethod.toUpperCase());
}

/**
 * Whether a failed attempt may be followed by another: an UNAVAILABLE, or an
 * error whose google.rpc.RetryInfo asks for it (how JSON-RPC, which has no
 * UNAVAILABLE of its own, says so).
 */
export function mayRetry(error: unknown, attempt: number, policy: RetryPolicy): boolean {
  if (attempt >= policy.maxAttempts || !(error instanceof RpcError)) return false;
  return error.code === Code.UNAVAILABLE || retryDelayOf(error) !== undefined;
}

/**
 * The wait before attempt `attempt + 1`: the answer's `Retry-After` (seconds,
 * or an HTTP date) or the error's RetryInfo when it gave one, else the backoff with full jitter (so
 * that clients turned away together do not all come back together); never
 * more than `maxDelayMs`.
 */
export function retryDelay(attempt: number, policy: RetryPolicy, retryAfter: string | null, error: unknown): number {
  const asked = retryAfterMs(retryAfter) ?? (error instanceof RpcError ? retryDelayOf(error) : undefined);
  if (asked !== undefined) return Math.min(asked, policy.maxDelayMs);
  const ceiling = Math.min(policy.maxDelayMs, policy.firstDelayMs * 2 ** (attempt - 1));
  return Math.round(ceiling / 2 + (Math.random() * ceiling) / 2);
}
