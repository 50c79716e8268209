// The request and answer every binding's core handler speaks (HTTP+JSON,
// JSON-RPC), free of any framework: adapters (node.ts, fetch.ts, fastify.ts)
// build the request from theirs and write the answer back.
import type { Listener } from "./hosts.js";
import type { SseStream } from "./sse.js";

/**
 * A request as the framework-free core sees it. Adapters build one from
 * their framework's request.
 */
export interface UniversalServerRequest {
  /** The HTTP method, upper case. */
  readonly method: string;
  /** The path below the mount point, still percent-encoded, without the query. */
  readonly rawPath: string;
  /** The raw query string without the leading "?" ("" when there is none). */
  readonly rawQuery: string;
  /** One request header by lower-case name; repeated headers joined with ", ". */
  header(name: string): string | undefined;
  /** All request headers. Adapters may build this lazily. */
  readonly headers: Headers;
  /**
   * Reads the whole body as UTF-8 text ("" when there is none). Rejects with
   * an {@link RpcError} (HTTP 413) once more than `limit` bytes arrive.
   */
  readBody(limit: number): Promise<string>;
  /** Fires when the client goes away or the response can no longer be written. */
  readonly signal: AbortSignal;
  /** The framework's own request object, handed to the context factory. */
  readonly native?: unknown;
  /** Where the server listens, when the adapter can tell (for `allowedHosts: "auto"`). */
  listener?(): Listener | undefined;
  /**
   * Closes the connection once its answer makes no progress for `ms` (the
   * `stallTimeoutMs` option; 0: never), where the adapter has the socket.
   * Called by the handler on each request before anything else.
   */
  closeWhenStalled?(ms: number): void;
  /** The host's hook that keeps work after the answer alive (Workers' `waitUntil`), where the adapter has one. */
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
}

/** Header values of a response, by lower-case name. */
export type ResponseHeaders = Record<string, string | string[]>;

/** An answer of the core: a JSON body as text, or an SSE stream. */
export interface UniversalServerResponse {
  readonly status: number;
  readonly headers: ResponseHeaders;
  readonly body: string | SseStream;
  /** Set on the 404 for a path no route owns (an adapter may hand it on instead, see `fallthrough`). */
  readonly unrouted?: boolean;
}

/**
 * A core's request handler. It answers synchronously when nothing async
 * was needed (no body to read, no promise from the handler), so that
 * adapters can skip the microtask queue; it never throws or rejects.
 */
export type UniversalHandler = (request: UniversalServerRequest) => UniversalServerResponse | Promise<UniversalServerResponse>;

/** An answer of a core, now or later. */
export type Answer = ReturnType<UniversalHandler>;

/** `base` plus the headers a handler set (Set-Cookie kept as a list). */
export function withHandlerHeaders(base: ResponseHeaders, extra: Headers | undefined): ResponseHeaders {
  if (extra === undefined) return base;
  const out: ResponseHeaders = { ...base };
  extra.forEach((value, name) => {
    // The adapters frame the body; a handler's Content-Length would cut it short.
    if (name !== "set-cookie" && name !== "content-length" && name !== "transfer-encoding") out[name] = value;
  });
  const cookies = extra.getSetCookie();
  if (cookies.length > 0) out["set-cookie"] = cookies;
  return out;
}

/** Whether a request body holds only JSON whitespace (then it counts as no body). */
export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}
