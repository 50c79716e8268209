import type { Registry } from "@bufbuild/protobuf";
import type { JsonCodec } from "../transcoding/message-json.js";
import type { ClientRoute } from "../route-binding.js";
import type { RedirectPolicy } from "./redirect.js";
import type { RetryOptions } from "./retry.js";

/** Headers as a value, or a function (sync or async) called on every request. */
export type HeadersOption = HeadersInit | (() => HeadersInit | Promise<HeadersInit>);

/** A request as it is about to go to `fetch`; interceptors may change it. */
export interface ClientRequest {
  /** The rpc, lowerCamel ("getTask"). */
  readonly rpc: string;
  /** The binding the request was built from (over JSON-RPC, the rpc's first). */
  readonly binding: ClientRoute;
  /** True for a server-streaming rpc (the response is text/event-stream). */
  readonly streaming: boolean;
  method: string;
  url: string;
  readonly headers: Headers;
  /** The JSON body, or undefined when the binding sends none. */
  body: string | undefined;
  signal: AbortSignal | undefined;
}

/** Sends a request and resolves to the HTTP response. */
export type ClientNext = (request: ClientRequest) => Promise<Response>;

/** Wraps the next step: `(next) => async (req) => { req.headers.set(...); return next(req); }`. */
export type ClientInterceptor = (next: ClientNext) => ClientNext;

/** Options of a generated `create<Service>Client`. */
export interface ClientOptions {
  /** Where the service is mounted, e.g. `https://agent.example.com/a2a` (a trailing "/" is fine). */
  readonly baseUrl: string;
  /**
   * Copied into the request's top-level `tenant` field when the request has one
   * and it is unset, so the binding rule picks the `/{tenant}/...` route. Leave
   * it out (or "") when the agent card sets no tenant.
   */
  readonly tenant?: string | undefined;
  /** The fetch to use; default `globalThis.fetch` (looked up on every call). */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Headers sent with every call; a function is called on every call. */
  readonly headers?: HeadersOption | undefined;
  /** Applied in order: the first is the outermost. */
  readonly interceptors?: readonly ClientInterceptor[] | undefined;
  /**
   * Content-Type of request bodies. Default over HTTP+JSON `application/json`,
   * `application/a2a+json` in the A2A profile; over JSON-RPC `application/json`.
   */
  readonly contentType?: string | undefined;
  /** For `google.protobuf.Any` in requests and responses. */
  readonly registry?: Registry | undefined;
  /**
   * The largest server-sent event accepted, in characters of its lines as
   * sent; default 4 MiB. A bigger one fails the stream with RESOURCE_EXHAUSTED.
   */
  readonly maxEventSize?: number | undefined;
  /** The largest unary response body read, in bytes (error bodies too); default 8 MiB. A bigger one is RESOURCE_EXHAUSTED. */
  readonly maxResponseSize?: number | undefined;
  /** Default per-call timeout in milliseconds; none by default. */
  readonly timeoutMs?: number | undefined;
  /**
   * Which redirects are followed: `"same-origin"` (default), `"none"`, or a
   * function that may allow other origins, which never get the call's
   * credentials (see {@link RedirectPolicy}). A refused one fails the call
   * with FAILED_PRECONDITION.
   */
  readonly redirects?: RedirectPolicy | undefined;
  /**
   * The binding to call: `http+json` (the default: the rpcs' HttpRule routes
   * below `baseUrl`) or `jsonrpc` (JSON-RPC 2.0 POSTed to `baseUrl`, A2A §9).
   * {@link pickTransport} chooses it from an agent card.
   */
  readonly transport?: "http+json" | "jsonrpc" | undefined;
  /**
   * A2A profile, lf.a2a.v1.A2AService: the protocol version of the agent.
   * Default: the generated code's (1.0). `"0.3"` speaks A2A v0.3 to an agent
   * that knows only that version, over its JSON-RPC or HTTP+JSON binding
   * (`transport`), behind the same typed v1.0 API (docs/a2a.md, "v0.3
   * clients"); {@link pickTransport} sets it from a v0.3 card.
   */
  readonly a2aVersion?: string | undefined;
  /**
   * How request and response JSON is written and read. `generated` (default):
   * the codecs of the route table (plugin option `json_codec`), giving exactly
   * what protobuf-es gives; `protobuf-es`: its reflective toJson/fromJson on
   * every call. With a registry, protobuf-es is used either way.
   */
  readonly jsonCodec?: JsonCodec | undefined;
  /**
   * Unary calls of idempotent rpcs (the proto's `idempotency_level`, else a
   * GET, PUT or DELETE HttpRule: GetTask, ListTasks, the push config reads
   * and deletes) that fail UNAVAILABLE (a 503, a lost connection) are tried
   * again, after the answer's `Retry-After` or a jittered backoff, within the
   * call's deadline. Default `{ maxAttempts: 3, firstDelayMs: 200, maxDelayMs: 5000 }`;
   * `false` turns it off.
   */
  readonly retry?: RetryOptions | false | undefined;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborting it cancels the call (RpcError CANCELLED); for a stream, it closes the connection. */
  readonly signal?: AbortSignal | undefined;
  /** Headers for this call, over the client's. */
  readonly headers?: HeadersInit | undefined;
  /** Deadline for the whole call (for a stream: until its end); past it, RpcError DEADLINE_EXCEEDED. */
  readonly timeoutMs?: number | undefined;
}

/** What the generator knows about the file: its profile. */
export interface ClientProfile {
  readonly profile?: "none" | "a2a" | undefined;
  /** The `A2A-Version` header in the A2A profile; default the first of `A2A_DEFAULT_VERSIONS` ("1.0"). */
  readonly a2aVersion?: string | undefined;
}

/** The largest server-sent event accepted unless `maxEventSize` says otherwise: 4 MiB. */
export const DEFAULT_MAX_EVENT_SIZE = 4 * 1024 * 1024;
