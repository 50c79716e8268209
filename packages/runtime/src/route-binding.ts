import type { DescMessage, DescMethod } from "@bufbuild/protobuf";
import type { MessageJsonCodec } from "./codegen/index.js";
import type { PathTemplate } from "./path-template.js";

/**
 * One HTTP binding of an rpc, as the generated `<Service>Routes` tables list
 * them: the primary rule first, then its `additional_bindings`, in proto
 * order; a {@link ClientRoute} with the descriptors themselves.
 */
export interface RouteBinding extends ClientRoute {
  /** The rpc's descriptor. */
  readonly descriptor: DescMethod;
  readonly input: DescMessage;
  readonly output: DescMessage;
  /**
   * The generated ProtoJSON codecs of `input` and `output` (plugin option
   * `json_codec`, on by default). Without one, protobuf-es's reflective
   * fromJson/toJson do that message's JSON.
   */
  readonly json?: { readonly input?: MessageJsonCodec; readonly output?: MessageJsonCodec };
}

/** A message type as the client plans with it: its name and the fields it may fill a path, body or query from. */
export interface ClientMessage {
  readonly typeName: string;
  readonly fields: readonly ClientField[];
}

/** A field of a {@link ClientMessage}: protobuf-es's DescField narrowed to what planning reads. */
export type ClientField = { readonly name: string; readonly jsonName: string } & (
  | { readonly fieldKind: "scalar"; readonly scalar: number }
  | { readonly fieldKind: "enum"; readonly enum: { readonly values: readonly { readonly name: string }[] } }
  | { readonly fieldKind: "message"; readonly message: ClientMessage }
  | { readonly fieldKind: "list"; readonly listKind: "scalar" | "enum" }
  | { readonly fieldKind: "list"; readonly listKind: "message"; readonly message: ClientMessage }
  | { readonly fieldKind: "map" }
);

/**
 * One HTTP binding of an rpc as the client calls it: the rule, and of the
 * descriptors only names, JSON names and field kinds (to fill paths, bodies
 * and queries), the rpc's proto name and service, and its idempotency. A
 * lean generated client (plugin option `client=lean`) writes these as plain
 * literals, so that its bundle reaches no protobuf-es value.
 */
export interface ClientRoute {
  /** The rpc's local name, lowerCamel ("getTask"). */
  readonly rpc: string;
  /** Of the rpc's descriptor: its proto name, its service's full name, and its idempotency option (0: unknown). */
  readonly descriptor: {
    readonly name: string;
    readonly parent: { readonly typeName: string };
    readonly idempotency: number;
  };
  /** The HTTP method ("GET", ...), or a custom rule's kind ("*" takes any method). */
  readonly method: string;
  /** The path template as written in the proto. */
  readonly template: string;
  /** The parsed template. */
  readonly path: PathTemplate;
  /** The `body` of the rule: "" for none, "*" for the whole request, or a top-level field name. */
  readonly body: string;
  /** The `response_body` of the rule: "" for the whole response, or a top-level field name. */
  readonly responseBody: string;
  /** "unary", or "server" for a server-streaming rpc. */
  readonly streaming: "unary" | "server";
  readonly input: ClientMessage;
  readonly output: ClientMessage;
  /** "primary" for the rule itself, "additional" for one of its `additional_bindings`. */
  readonly binding: "primary" | "additional";
}

/** What every handler gets besides its request. */
export interface HandlerContext {
  /** The rpc being served, lowerCamel. */
  readonly rpc: string;
  /**
   * The tenant the request acts for. A2A profile: the effective tenant, the
   * same in every binding (the `{tenant}` path variable, else the request's
   * `tenant` field), equal to the request's own `tenant`; otherwise the
   * `{tenant}` path variable, when the matched route has one.
   */
  readonly tenant?: string | undefined;
  /** The request headers. */
  readonly headers: Headers;
  /** Fires when the client goes away or the server gives up on the request. */
  readonly signal: AbortSignal;
  /** Headers to send with the response; set them before returning (or before the first stream message). */
  readonly responseHeaders: Headers;
  /** A2A extensions the client asked for (`A2A-Extensions`), trimmed and de-duplicated. */
  readonly extensions: readonly string[];
  /**
   * Keeps work that outlives the answer alive until `promise` settles, on a
   * host that otherwise ends a request's work with its answer: Cloudflare
   * Workers' `ctx.waitUntil`, taken from Hono's `c.executionCtx` or given as
   * `FetchRequestInfo.waitUntil`. Absent where work runs on by itself after
   * the answer (Node, Bun, Deno): call it as `ctx.waitUntil?.(promise)`.
   */
  readonly waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  /**
   * A2A profile: the protocol version the request came in, when it is not
   * the service's own: `"0.3"` for a v0.3 request translated at the edge to
   * these handlers (docs/a2a.md, "v0.3 clients"). Undefined otherwise.
   */
  readonly a2aDialect?: string | undefined;
}
