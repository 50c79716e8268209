// The options every binding served from a UniversalServerRequest takes
// (HTTP+JSON, JSON-RPC; gRPC takes those that apply), with their defaults.
import type { JsonCodec } from "../transcoding/index.js";
import type { HandlerContext } from "../route-binding.js";
import type { ContextExtra, ContextInput } from "./context.js";
import type { AllowedHosts } from "./hosts.js";
import { consoleLogger, type Logger } from "../logger.js";

/** Default request body limit: 4 MiB. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** Where an error that is not an {@link RpcError} came from, for `onError`. */
export interface ServerErrorInfo {
  /** The rpc, when routing got that far. */
  readonly rpc: string | undefined;
  /** "unary", "stream" (after the first message was sent) or "context". */
  readonly phase: "unary" | "stream" | "context";
}

/** Options every adapter takes. */
export interface ServerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown> {
  /** Largest request body in bytes; a larger one is a 413. Default 4 MiB. */
  readonly bodyLimit?: number;
  /**
   * The most elements one request may hold (JSON values at any depth; in a
   * gRPC message, messages, list items, map entries and Values); more is a
   * 413 RESOURCE_EXHAUSTED. Default 100 000 (docs/security.md).
   */
  readonly maxElements?: number;
  /**
   * The Content-Type of JSON responses (errors included). Default
   * `application/a2a+json` with the A2A profile, else `application/json`.
   */
  readonly responseType?: string;
  /**
   * Adds fields to the handler context, e.g. the authenticated user. May be
   * async; may throw an {@link RpcError} (e.g. UNAUTHENTICATED) to answer
   * before the body is read. It is first called with what is known before
   * the body (HTTP+JSON: the rpc and the path's or query's tenant; JSON-RPC:
   * the headers alone, `rpc` undefined) and, when the body tells it more (a
   * tenant only the body names; on JSON-RPC the method and `params.tenant`,
   * once per request of a batch), again once the body is parsed and before
   * it is decoded; a later call's fields replace the earlier's. The last
   * call before a handler sees that handler's rpc and tenant
   * (docs/security.md).
   */
  readonly context?: (input: ContextInput<Native>) => ContextExtra<Ctx> | Promise<ContextExtra<Ctx>>;
  /** A2A profile: the `A2A-Version`s served, compared by Major.Minor. Default `["1.0"]`. */
  readonly a2aVersions?: readonly string[];
  /**
   * A2A profile, lf.a2a.v1.A2AService: also serve A2A v0.3 clients, through
   * one translation layer to the same handlers (JSON-RPC's v0.3 methods, the
   * HTTP+JSON `/v1/...` routes) to requests that speak v0.3 (no
   * `A2A-Version`, or `0.3`). Default true, unless the handlers are an agent
   * made with `a2aV03: false` (docs/a2a.md, "v0.3 clients").
   */
  readonly a2aV03?: boolean;
  /**
   * The Host header values served, against DNS rebinding; others get 421.
   * Default `"auto"`: on a server listening on loopback (known on Node),
   * only localhost, 127.0.0.1, [::1] and the listening address, with its
   * port; elsewhere any. `"any"` turns the check off; a list gives the
   * names (`name`, `name:port`, `.domain`). See {@link AllowedHosts}.
   */
  readonly allowedHosts?: AllowedHosts;
  /**
   * Called with every error that is not an {@link RpcError} (those answer 500
   * INTERNAL without the error's message). Default: the logger's `error`,
   * with the error (`err`), the rpc and the phase.
   */
  readonly onError?: (error: unknown, info: ServerErrorInfo) => void;
  /**
   * Where the default `onError` writes (a pino logger, say, or
   * `jsonLogger()`). Default {@link consoleLogger}: `console.error`.
   */
  readonly logger?: Logger;
  /**
   * How request and response JSON is read and written. `generated` (default):
   * the codecs of the route table (plugin option `json_codec`), giving exactly
   * what protobuf-es gives; `protobuf-es`: its reflective fromJson/toJson on
   * every request.
   */
  readonly jsonCodec?: JsonCodec;
  /**
   * Unary calls only: past this many milliseconds (from routing, body reading
   * included) the call answers DEADLINE_EXCEEDED and the handler's signal
   * fires. HTTP+JSON: a 504 google.rpc.Status. JSON-RPC: the whole POST (a
   * batch as a whole) gets one JSON-RPC error (-32000, the request's id when
   * it was read), unless its method streams. Default: none.
   */
  readonly unaryTimeoutMs?: number;
  /**
   * Server streams (HTTP+JSON and JSON-RPC): an SSE comment (`: keep-alive`)
   * is sent after this many milliseconds without an event (at most: from 3/4
   * of it, as the streams share one timer that ticks four times a period),
   * so proxies keep an idle stream open.
   * Default 5 000 (500 on Cloudflare Workers, see `DEFAULT_KEEP_ALIVE_MS`); 0
   * turns it off.
   */
  readonly keepAliveMs?: number;
  /**
   * A connection whose answer (an SSE stream, a large unary body) has output
   * pending and not one byte of it taken by the client for this long is
   * closed (checked every this many ms, so after one to two periods); the
   * handler's signal fires. Idle connections and slow readers that make
   * progress are left alone. Default 30 000; 0 turns the check off. On Node
   * (Express, Fastify, Hono through @hono/node-server). A value that is not
   * a whole number from 0 to 2^31-1 throws when the handler is made.
   */
  readonly stallTimeoutMs?: number;
  /**
   * Express only: a path that no route of the service owns goes to `next()`
   * (the application's next middleware) instead of a 404. Default false.
   */
  readonly fallthrough?: boolean;
}

/** The default `onError`: the error on the console, with the rpc and phase. */
export function defaultOnError(error: unknown, info: ServerErrorInfo): void {
  logError(consoleLogger, error, info);
}

/** The `onError` of these options: theirs, else the error to their logger (the console by default). */
export function onErrorOf(options: Pick<ServerOptions, "onError" | "logger">): (error: unknown, info: ServerErrorInfo) => void {
  if (options.onError) return options.onError;
  const logger = options.logger;
  return logger ? (error, info) => logError(logger, error, info) : defaultOnError;
}

function logError(logger: Logger, error: unknown, info: ServerErrorInfo): void {
  logger.error({ err: error, rpc: info.rpc, phase: info.phase }, `protoc-gen-a2a-http: ${info.rpc ?? "request"} failed (${info.phase})`);
}
