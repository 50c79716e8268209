// What one gRPC port may cost: connect-es reads a message of up to 4 GiB by
// default (readMaxBytes), Node's HTTP/2 server allows 2^32-1 concurrent
// streams per session and never closes an idle one. These are the bounds an
// agent's gRPC port should have, with the HTTP+JSON body limit as the
// largest message, in the shape node:http2 and connect-es take them.
import { DEFAULT_BODY_LIMIT } from "../server/options.js";

export interface GrpcServerLimits {
  /** The largest request message in bytes (connect-es `readMaxBytes`). Default: the HTTP body limit, 4 MiB. */
  readonly readMaxBytes?: number;
  /** Streams one HTTP/2 session may have open at once (SETTINGS_MAX_CONCURRENT_STREAMS). Default 100. */
  readonly maxConcurrentStreams?: number;
  /** Megabytes one session may buffer (node:http2 `maxSessionMemory`); past it new streams are refused. Default 10. */
  readonly maxSessionMemory?: number;
  /**
   * A session with no traffic for this long is closed (Node's server
   * timeout); 0 never closes one. Default 300 000 (5 min). A gRPC stream
   * that sends nothing for this long (SubscribeToTask on a quiet task) ends
   * with its session: the client subscribes again.
   */
  readonly idleTimeoutMs?: number;
}

export const DEFAULT_GRPC_LIMITS: Required<GrpcServerLimits> = {
  readMaxBytes: DEFAULT_BODY_LIMIT,
  maxConcurrentStreams: 100,
  maxSessionMemory: 10,
  idleTimeoutMs: 300_000,
};

/** The options of {@link grpcServerOptions}, ready to spread: see its example. */
export interface GrpcServerOptions {
  /** For `http2.createServer(http2, ...)`. */
  readonly http2: { readonly maxSessionMemory: number; readonly settings: { readonly maxConcurrentStreams: number } };
  /** For `connectNodeAdapter({ routes, ...adapter })`. */
  readonly adapter: { readonly readMaxBytes: number };
  /** For `server.setTimeout(idleTimeoutMs)`. */
  readonly idleTimeoutMs: number;
}

/**
 * The bounds of a gRPC port, `limits` over {@link DEFAULT_GRPC_LIMITS}:
 *
 *     const o = grpcServerOptions({ readMaxBytes: bodyLimit });
 *     const server = http2.createServer(o.http2, connectNodeAdapter({ routes, ...o.adapter }));
 *     server.setTimeout(o.idleTimeoutMs);
 *
 * Throws on a value that is not a positive integer (0 allowed for the idle timeout).
 */
export function grpcServerOptions(limits: GrpcServerLimits = {}): GrpcServerOptions {
  const l = { ...DEFAULT_GRPC_LIMITS };
  for (const [k, v] of Object.entries(limits) as [keyof GrpcServerLimits, number | undefined][]) if (v !== undefined) l[k] = v;
  for (const k of Object.keys(l) as (keyof GrpcServerLimits)[]) {
    const min = k === "idleTimeoutMs" ? 0 : 1;
    if (!Number.isInteger(l[k]) || l[k] < min)
      throw new Error(`grpcServerOptions: ${k} must be an integer of at least ${min}, not ${l[k]}`);
  }
  return {
    http2: { maxSessionMemory: l.maxSessionMemory, settings: { maxConcurrentStreams: l.maxConcurrentStreams } },
    adapter: { readMaxBytes: l.readMaxBytes },
    idleTimeoutMs: l.idleTimeoutMs,
  };
}
