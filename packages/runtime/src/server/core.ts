import type { Message } from "@bufbuild/protobuf";
import { checkRequired, decodeRequest, encodeResponse, parseJsonBody, type JsonCodec } from "../codec/index.js";
import {
  A2A_DEFAULT_VERSIONS,
  A2A_MEDIA_TYPE,
  A2A_TENANT,
  JSON_MEDIA_TYPE,
  A2AErrors,
  a2aVersionCheck,
  isA2ABodyType,
  mediaTypeOf,
  parseA2AExtensions,
  requestedA2AVersion,
  withA2AErrorInfo,
  withSubscribePostTwins,
  type A2AErrorReason,
} from "../a2a.js";
import { Code, RpcError, httpStatusFromCode, isRpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { createRouter, type RouteMatch, type Router } from "../router.js";
import { routeCodecs } from "../codec/message-json.js";
import { badPath } from "./mount.js";
import { createHostCheck, type AllowedHosts, type Listener } from "./hosts.js";
import { stallTimeoutOf } from "./stall.js";
import { checkPathValue, effectiveTenant, jsonTenant, queryTenant, tenantConflict, tenantFieldOf } from "../tenant.js";

/** Default request body limit: 4 MiB. */
export const DEFAULT_BODY_LIMIT = 4 * 1024 * 1024;

/** Default interval of SSE keep-alive comments: 15 s. */
export const DEFAULT_KEEP_ALIVE_MS = 15_000;

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

/** What the context factory gets. */
export interface ContextInput<Native = unknown> {
  /**
   * The rpc being served, lowerCamel. Undefined in JSON-RPC's first call,
   * made on the headers alone before the body is read (the method is in the
   * body): a factory refuses a missing or bad credential there, and is
   * called again with the rpc before any handler runs (docs/security.md).
   */
  readonly rpc: string | undefined;
  /** The matched binding; undefined when `rpc` is. */
  readonly route: RouteBinding | undefined;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  /**
   * The tenant the request acts for (A2A profile: the effective tenant, see
   * docs/security.md): the `{tenant}` path variable, else the request's
   * `tenant` field (HTTP+JSON query or body, JSON-RPC params, gRPC field);
   * the handler gets the same one. Without the A2A profile: the `{tenant}`
   * path variable, when the route has one.
   */
  readonly tenant: string | undefined;
  /**
   * Headers the answer carries, whether the factory returns or throws (e.g.
   * `WWW-Authenticate` on a 401, see `wwwAuthenticate`).
   */
  readonly responseHeaders: Headers;
  /** The framework's request (Express `Request`, `FastifyRequest`, Hono `Context`, or a fetch `Request`). */
  readonly native: Native;
}

/** The fields a context factory adds to {@link HandlerContext}. */
export type ContextExtra<Ctx extends HandlerContext> = Omit<Ctx, keyof HandlerContext>;

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
   * The Host header values served, against DNS rebinding; others get 421.
   * Default `"auto"`: on a server listening on loopback (known on Node),
   * only localhost, 127.0.0.1, [::1] and the listening address, with its
   * port; elsewhere any. `"any"` turns the check off; a list gives the
   * names (`name`, `name:port`, `.domain`). See {@link AllowedHosts}.
   */
  readonly allowedHosts?: AllowedHosts;
  /**
   * Called with every error that is not an {@link RpcError} (those answer 500
   * INTERNAL without the error's message). Default: `console.error`.
   */
  readonly onError?: (error: unknown, info: ServerErrorInfo) => void;
  /**
   * How request and response JSON is read and written. `generated` (default):
   * the codecs of the route table (plugin option `json_codec`), giving exactly
   * what protobuf-es gives; `protobuf-es`: its reflective fromJson/toJson on
   * every request.
   */
  readonly jsonCodec?: JsonCodec;
  /**
   * Unary calls only: past this many milliseconds (from routing, body reading
   * included) the call answers 504 DEADLINE_EXCEEDED and the handler's signal
   * fires. Default: none.
   */
  readonly unaryTimeoutMs?: number;
  /**
   * Server streams: an SSE comment (`: keep-alive`) is sent after this many
   * milliseconds without an event, so proxies keep an idle stream open.
   * Default 15 000; 0 turns it off.
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

/** What generated adapters pass besides the user's options. */
export interface HttpHandlerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown>
  extends ServerOptions<Ctx, Native> {
  /** `a2a` turns on the A2A HTTP+JSON rules (see design.md). Default `none`. */
  readonly profile?: "none" | "a2a";
}

/**
 * The core's request handler. It answers synchronously when nothing async
 * was needed (no body to read, no promise from the handler), so that
 * adapters can skip the microtask queue; it never throws or rejects.
 */
export type UniversalHandler = (
  request: UniversalServerRequest,
) => UniversalServerResponse | Promise<UniversalServerResponse>;

/** An answer of the core, now or later. */
type Answer = ReturnType<UniversalHandler>;

type AnyHandler = (request: Message, context: HandlerContext) => unknown;

/** A matched request on its way to the handler, past routing and the context. */
interface Call {
  readonly route: RouteBinding;
  readonly match: RouteMatch;
  readonly req: UniversalServerRequest;
  /** HEAD served as GET: the answer goes without its body. */
  readonly head: boolean;
  readonly ctx: ServerContext;
  readonly fn: AnyHandler;
}

const sseHeaders: ResponseHeaders = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  "x-accel-buffering": "no",
};

/**
 * Builds the framework-free request handler over one service's route table:
 * routing (one router for the service), media types, the body limit,
 * decoding, required fields, the call, encoding, errors as google.rpc.Status
 * JSON, and server streams as SSE. `handlers` may lack methods: those answer
 * UNIMPLEMENTED.
 */
export function createHttpHandler<Ctx extends HandlerContext = HandlerContext, Native = unknown>(
  routes: readonly RouteBinding[],
  handlers: object,
  options: HttpHandlerOptions<Ctx, Native> = {},
): UniversalHandler {
  const a2a = options.profile === "a2a";
  const table = a2a ? withSubscribePostTwins(routes) : [...routes];
  const router: Router = createRouter(table);
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const responseType = options.responseType ?? (a2a ? A2A_MEDIA_TYPE : JSON_MEDIA_TYPE);
  const versionError = a2aVersionCheck(options.a2aVersions ?? A2A_DEFAULT_VERSIONS);
  const onError = options.onError ?? defaultOnError;
  const contextFactory = options.context;
  const jsonCodec = options.jsonCodec ?? "generated";
  const decodeOptions = a2a ? { commaLists: true, jsonCodec } : { jsonCodec };
  // A2A's REQUIRED response fields (nextPageToken: "", ...) go on the wire even at their defaults.
  // A list item that cannot be written (a Task holding NaN) is left out and reported, not a 500 for the whole list.
  const onSkip = (e: unknown) => report(e, { rpc: undefined, phase: "unary" });
  const encodeOptions = a2a ? { emitRequired: true, jsonCodec, onSkip } : { jsonCodec, onSkip };
  const jsonHeaders: ResponseHeaders = { "content-type": responseType };
  const allMethods = allowHeader([...new Set(table.map((r) => r.method.toUpperCase()).filter((m) => m !== "*"))]);
  const unaryTimeoutMs = options.unaryTimeoutMs;
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const h = handlers as Record<string, unknown>;
  const hostCheck = createHostCheck(options.allowedHosts, a2a);
  const stallTimeoutMs = stallTimeoutOf(options.stallTimeoutMs);
  // A2A: each route's top-level `tenant` field (where a tenant from the query
  // or body can land) and its one-segment path variables (checked as ids).
  const tenantFields = new Map<RouteBinding, string | undefined>();
  if (a2a) for (const r of table) tenantFields.set(r, tenantFieldOf(r.input));

  function report(error: unknown, info: ServerErrorInfo): void {
    try {
      onError(error, info);
    } catch {
      // A failing logger must not take the server down.
    }
  }

  const internalError = () => {
    const err = new RpcError(Code.INTERNAL, "internal error");
    return a2a ? withA2AErrorInfo(err) : err;
  };

  /**
   * The error to answer with. Only real instances of the runtime's class are
   * trusted; anything else (an Error that calls itself "RpcError" included)
   * goes to onError and becomes a plain 500 that says nothing about it.
   */
  function toRpcError(e: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"]): RpcError {
    if (!(e instanceof RpcError)) {
      report(e, { rpc, phase });
      return internalError();
    }
    try {
      return a2a ? withA2AErrorInfo(e) : e;
    } catch (x) {
      report(x, { rpc, phase });
      return internalError();
    }
  }

  /** The HTTP status and JSON text of an error; never throws, whatever the handler put in it. */
  function errorJson(e: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"]): { status: number; json: string } {
    const err = toRpcError(e, rpc, phase);
    try {
      const status = errorStatus(err);
      const body = err.toStatusBody();
      body.error.code = status;
      if (!Array.isArray(body.error.details)) body.error.details = [];
      return { status, json: JSON.stringify(body) };
    } catch (x) {
      // e.g. a detail holding a BigInt or a cycle.
      report(x, { rpc, phase });
      const fallback = internalError();
      return { status: 500, json: JSON.stringify(fallback.toStatusBody()) };
    }
  }

  function errorResponse(e: unknown, rpc: string | undefined, extra?: Headers, phase: ServerErrorInfo["phase"] = "unary"): UniversalServerResponse {
    const { status, json } = errorJson(e, rpc, phase);
    return { status, headers: merge(jsonHeaders, extra), body: json };
  }

  function routingError(code: Code, httpStatus: number, message: string, reason: A2AErrorReason): RpcError {
    const err = new RpcError(code, message, [], { httpStatus });
    return a2a ? withA2AErrorInfo(err, reason) : err;
  }

  function checkMediaType(contentType: string | undefined): void {
    // A body without a type is refused: a browser sends one cross-site
    // without a preflight (as it does text/plain), so taking it would let any
    // page post to the agent.
    if (contentType === undefined) {
      const message = `a request with a body needs Content-Type: application/json${a2a ? " or application/a2a+json" : ""}`;
      if (a2a) throw A2AErrors.contentTypeNotSupported("", message);
      throw new RpcError(Code.INVALID_ARGUMENT, message, [], { httpStatus: 415 });
    }
    const type = mediaTypeOf(contentType);
    if (type === JSON_MEDIA_TYPE) return;
    if (a2a) {
      if (isA2ABodyType(type)) return;
      throw A2AErrors.contentTypeNotSupported(
        contentType,
        `Content-Type ${JSON.stringify(contentType)} is not supported; send application/json or application/a2a+json`,
      );
    }
    if (type.startsWith("application/") && type.endsWith("+json")) return;
    throw new RpcError(
      Code.INVALID_ARGUMENT,
      `Content-Type ${JSON.stringify(contentType)} is not supported; send application/json`,
      [],
      { httpStatus: 415 },
    );
  }

  function checkVersion(req: UniversalServerRequest): void {
    const err = versionError(requestedA2AVersion(req.header("a2a-version"), req.rawQuery));
    if (err !== undefined) throw err;
  }

  return function handle(req: UniversalServerRequest): Answer {
    // A client that stops reading its answer loses the connection (stall.ts).
    req.closeWhenStalled?.(stallTimeoutMs);
    return serve(req, unaryTimeoutMs === undefined ? undefined : new AbortController());
  };

  // From here on every step answers synchronously when it can (no body to
  // read, no promise from the context factory or the handler), so that an
  // adapter can write a small GET's answer without a trip through the
  // microtask queue; @hono/node-server has a fast path for exactly that.
  // Every step catches its own errors: none of them throws or rejects.

  function serve(req: UniversalServerRequest, deadline: AbortController | undefined): Answer {
    let route: RouteBinding | undefined;
    try {
      // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): reaches
      // an adapter mounted at the root only.
      if (hostCheck !== undefined) {
        const wrongHost = hostCheck(req.header("host"), () => req.listener?.());
        if (wrongHost !== undefined) return errorResponse(wrongHost, undefined);
      }
      if (req.rawPath === "*" && req.method === "OPTIONS") return { status: 204, headers: { allow: allMethods }, body: "" };
      const bad = badPath(req.rawPath);
      if (bad !== undefined) throw routingError(Code.INVALID_ARGUMENT, 400, bad, "INVALID_REQUEST");
      let match = router.match(req.method, req.rawPath);
      let head = false;
      if (req.method === "HEAD" && (match === undefined || "allow" in match)) {
        // HEAD is GET without the body (RFC 9110 §9.3.2), wherever GET is served.
        const asGet = router.match("GET", req.rawPath);
        if (asGet !== undefined && !("allow" in asGet)) {
          match = asGet;
          head = true;
        }
      }
      if (match === undefined) {
        const err = routingError(Code.NOT_FOUND, 404, `no route for ${req.method} ${req.rawPath}`, "METHOD_NOT_FOUND");
        return { ...errorResponse(err, undefined), unrouted: true };
      }
      if ("allow" in match) {
        const allow = allowHeader(match.allow);
        if (req.method === "OPTIONS") return { status: 204, headers: { allow }, body: "" };
        const err = routingError(
          Code.UNIMPLEMENTED,
          405,
          `method ${req.method} is not allowed on ${req.rawPath}; allowed: ${allow}`,
          "METHOD_NOT_FOUND",
        );
        const res = errorResponse(err, undefined);
        return { ...res, headers: { ...res.headers, allow } };
      }
      route = table[match.index]!;
      if (deadline !== undefined && route.streaming !== "server") {
        return withDeadline(route, match, req, deadline, head);
      }
      return call(route, match, req, undefined, head);
    } catch (e) {
      return errorResponse(e, route?.rpc);
    }
  }

  /** Runs a unary call against `unaryTimeoutMs`: the first of the answer and the deadline wins. */
  function withDeadline(
    route: RouteBinding,
    match: RouteMatch,
    req: UniversalServerRequest,
    deadline: AbortController,
    head: boolean,
  ): Answer {
    let resolve: ((res: UniversalServerResponse) => void) | undefined;
    // Started before the call, so that the time the call takes to return counts too.
    const timer = setTimeout(() => {
      const err = new RpcError(Code.DEADLINE_EXCEEDED, `the call took longer than ${unaryTimeoutMs} ms`);
      deadline.abort(err);
      resolve!(errorResponse(err, route.rpc));
    }, unaryTimeoutMs);
    const answer = call(route, match, req, deadline.signal, head);
    if (!(answer instanceof Promise)) {
      clearTimeout(timer);
      return answer;
    }
    // The executor runs now, long before the timer can fire.
    return new Promise<UniversalServerResponse>((r) => {
      resolve = r;
      answer.then((res) => {
        clearTimeout(timer);
        r(res);
      });
    });
  }

  /** Serves a matched request: the context, then the body if the route has one. */
  function call(
    route: RouteBinding,
    match: RouteMatch,
    req: UniversalServerRequest,
    deadline: AbortSignal | undefined,
    head: boolean,
  ): Answer {
    let ctx: ServerContext | undefined;
    try {
      const fn = h[route.rpc];
      if (typeof fn !== "function") {
        const m = route.descriptor;
        const message = `rpc ${m.parent.typeName}.${m.name} (${route.rpc}) is not implemented`;
        // Under A2A, with the ErrorInfo every A2A error carries (what the generated stubs answer too).
        throw a2a ? A2AErrors.notImplemented(m.name, message) : new RpcError(Code.UNIMPLEMENTED, message);
      }
      if (a2a) checkVersion(req);
      const tenant = a2a ? tenantBeforeBody(route, match, req) : route.path.variables.length > 0 ? match.variables[A2A_TENANT] : undefined;
      ctx = new ServerContext(
        route.rpc,
        tenant,
        req,
        a2a ? parseA2AExtensions(req.header("a2a-extensions")) : [],
        deadline,
      );
      const c: Call = { route, match, req, head, ctx, fn: fn as AnyHandler };
      if (contextFactory) {
        let extra: unknown;
        try {
          extra = contextFactory(contextInput(route, req, tenant, ctx));
        } catch (e) {
          return errorResponse(e, route.rpc, ctx.touchedHeaders(), "context");
        }
        if (extra instanceof Promise) return afterContext(c, extra);
        if (extra) Object.assign(ctx, extra);
      }
      return proceed(c);
    } catch (e) {
      return errorResponse(e, route.rpc, ctx?.touchedHeaders());
    }
  }

  function contextInput(route: RouteBinding, req: UniversalServerRequest, tenant: string | undefined, ctx: ServerContext): ContextInput<Native> {
    return {
      rpc: route.rpc,
      route,
      headers: req.headers,
      signal: req.signal,
      tenant,
      get responseHeaders() {
        return ctx.responseHeaders;
      },
      native: req.native as Native,
    };
  }

  /**
   * A2A: the tenant known before the body, the path's else the query's (on
   * routes that read the query); checks every one-segment path variable as
   * an id or tenant may be checked.
   */
  function tenantBeforeBody(route: RouteBinding, match: RouteMatch, req: UniversalServerRequest): string | undefined {
    // A service whose requests have no `tenant` (not A2A's) keeps HttpRule's rule for its own ids.
    const tenantScoped = tenantFields.get(route) !== undefined;
    for (const v of route.path.variables) {
      if (v.multiSegment) continue;
      const name = v.fieldPath.join(".");
      if (!tenantScoped && name !== A2A_TENANT) continue;
      const value = match.variables[name];
      if (value !== undefined && value !== "") checkPathValue(name === A2A_TENANT ? A2A_TENANT : `path variable ${name}`, value);
    }
    const fromPath = route.path.variables.length > 0 ? match.variables[A2A_TENANT] : undefined;
    if (route.body === "*" || tenantFields.get(route) === undefined) return fromPath || undefined;
    const fromQuery = queryTenant(req.rawQuery);
    if (fromQuery) checkPathValue(A2A_TENANT, fromQuery);
    return effectiveTenant(fromPath, "path", fromQuery, "query");
  }

  /** Goes on once an async context factory has settled. */
  async function afterContext(c: Call, pending: Promise<unknown>, then: (c: Call) => Answer = proceed): Promise<UniversalServerResponse> {
    let extra: unknown;
    try {
      extra = await pending;
    } catch (e) {
      return errorResponse(e, c.route.rpc, c.ctx.touchedHeaders(), "context");
    }
    try {
      if (extra) Object.assign(c.ctx, extra);
    } catch (e) {
      return errorResponse(e, c.route.rpc, c.ctx.touchedHeaders());
    }
    return then(c);
  }

  /**
   * A2A, body "*": the body's `tenant` must agree with the path's; when only
   * the body names one, the context factory runs again with it (before the
   * body is decoded), so that it sees the tenant the handler acts for.
   */
  function withBodyTenant(c: Call, body: unknown): Answer {
    const { route, req, ctx } = c;
    try {
      const fromBody = jsonTenant(body);
      if (!fromBody || tenantFields.get(route) === undefined) return run(c, body);
      const tenant = effectiveTenant(ctx.tenant, "path", fromBody, "body");
      if (tenant === ctx.tenant) return run(c, body);
      checkPathValue(A2A_TENANT, fromBody);
      ctx.tenant = tenant;
      if (!contextFactory) return run(c, body);
      let extra: unknown;
      try {
        extra = contextFactory(contextInput(route, req, tenant, ctx));
      } catch (e) {
        return errorResponse(e, route.rpc, ctx.touchedHeaders(), "context");
      }
      if (extra instanceof Promise) return afterContext(c, extra, (call) => run(call, body));
      if (extra) Object.assign(ctx, extra);
      return run(c, body);
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
  }

  /** The body first if the route has one, then the call. */
  function proceed(c: Call): Answer {
    return c.route.body !== "" ? withBody(c) : run(c, undefined);
  }

  /** Reads and parses the request body, then runs the call. */
  async function withBody(c: Call): Promise<UniversalServerResponse> {
    const { route, req, ctx } = c;
    let body: unknown;
    try {
      let text: string;
      try {
        text = await req.readBody(bodyLimit);
      } catch (e) {
        throw a2a && isRpcError(e) ? withA2AErrorInfo(e, "INVALID_REQUEST") : e;
      }
      if (!isBlank(text)) {
        checkMediaType(req.header("content-type"));
        body = parseJsonBody(text, options.maxElements);
        if (body === null && route.body === "*") body = undefined;
      }
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
    return a2a && route.body === "*" ? withBodyTenant(c, body) : run(c, body);
  }

  /** Decodes the request message and calls the handler. */
  function run(c: Call, body: unknown): Answer {
    const { route, match, req, head, ctx, fn } = c;
    try {
      const message = decodeRequest(
        route,
        { variables: match.variables, query: route.body === "*" ? "" : req.rawQuery, body },
        decodeOptions,
      );
      checkRequired(route.input, message, routeCodecs(route, decodeOptions)?.input?.complete);
      if (a2a) checkDecodedTenant(route, message, ctx);
      if (route.streaming === "server") return stream(route, fn, message, ctx, head);
      const result = fn.call(handlers, message, ctx);
      if (result instanceof Promise) {
        return result.then(
          (value) => unaryAnswer(route, ctx, value),
          (e) => errorResponse(e, route.rpc, ctx.touchedHeaders()),
        );
      }
      return unaryAnswer(route, ctx, result);
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
  }

  /** The decoded request acts for the tenant the context factory saw, or is refused. */
  function checkDecodedTenant(route: RouteBinding, message: Message, ctx: ServerContext): void {
    const field = tenantFields.get(route);
    if (field === undefined) return;
    const decoded = (message as unknown as Record<string, unknown>)[field];
    const t = typeof decoded === "string" && decoded !== "" ? decoded : undefined;
    if (t !== ctx.tenant) throw tenantConflict(ctx.tenant ?? "", "path", t ?? "", "body");
  }

  function unaryAnswer(route: RouteBinding, ctx: ServerContext, result: unknown): UniversalServerResponse {
    try {
      const json = JSON.stringify(encodeResponse(route, result, encodeOptions));
      return { status: 200, headers: merge(jsonHeaders, ctx.touchedHeaders()), body: json };
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
  }

  async function stream(
    route: RouteBinding,
    fn: AnyHandler,
    message: Message,
    ctx: ServerContext,
    head: boolean,
  ): Promise<UniversalServerResponse> {
    try {
      const res = await startStream(route, fn, message, ctx);
      if (head && res.body instanceof SseStream) {
        res.body.close();
        return { ...res, body: "" };
      }
      return res;
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
  }

  async function startStream(
    route: RouteBinding,
    fn: AnyHandler,
    message: Message,
    ctx: ServerContext,
  ): Promise<UniversalServerResponse> {
    const iterable = fn.call(handlers, message, ctx) as AsyncIterable<unknown>;
    const iterator = iterable[Symbol.asyncIterator]();
    let first: IteratorResult<unknown>;
    try {
      first = await iterator.next();
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
    const encode = (value: unknown) =>
      "data: " + JSON.stringify(encodeResponse(route, value, encodeOptions)) + "\n\n";
    let firstChunk: string | undefined;
    if (!first.done) {
      try {
        firstChunk = encode(first.value);
      } catch (e) {
        closeIterator(iterator);
        return errorResponse(e, route.rpc, ctx.touchedHeaders());
      }
    }
    const errorChunk = (e: unknown) => {
      const aborted = ctx.signal.aborted;
      const json =
        aborted && !isRpcError(e)
          ? JSON.stringify(new RpcError(Code.CANCELLED, "request canceled").toStatusBody())
          : errorJson(e, route.rpc, "stream").json;
      return "event: error\ndata: " + json + "\n\n";
    };
    const stream = new SseStream(iterator, firstChunk, encode, errorChunk, keepAliveMs);
    return { status: 200, headers: merge(sseHeaders, ctx.touchedHeaders()), body: stream };
  }
}

/**
 * The body of an SSE answer: `next()` gives the next chunk of text to write
 * (`undefined` at the end; an error becomes a final `event: error` chunk),
 * `close()` ends it early and calls the handler iterator's `return()`.
 */
export class SseStream {
  private pending: string | undefined;
  /** The iterator finished by itself (done, or threw): no `return()` needed. */
  private finished: boolean;
  /** `close()` was called. */
  private closed = false;

  constructor(
    private readonly iterator: AsyncIterator<unknown>,
    first: string | undefined,
    private readonly encode: (value: unknown) => string,
    private readonly errorChunk: (error: unknown) => string,
    /** After this long without a message, `next()` gives a keep-alive comment; 0: never. */
    private readonly keepAliveMs = 0,
  ) {
    this.pending = first;
    this.finished = first === undefined;
  }

  /** The handler's `next()` that a keep-alive comment interrupted: still the one to wait for. */
  private inflight: Promise<IteratorResult<unknown>> | undefined;
  /** Ends the keep-alive wait early, so a closed stream holds no timer. */
  private stopWaiting: (() => void) | undefined;

  /** The next chunk, or `undefined` when the stream has ended. */
  async next(): Promise<string | undefined> {
    if (this.pending !== undefined) {
      const chunk = this.pending;
      this.pending = undefined;
      return chunk;
    }
    if (this.finished || this.closed) return undefined;
    let r: IteratorResult<unknown>;
    try {
      const p = (this.inflight ??= this.iterator.next());
      if (this.keepAliveMs > 0) {
        const wait = settlesWithin(p, this.keepAliveMs);
        this.stopWaiting = wait.cancel;
        const settled = await wait.settled;
        this.stopWaiting = undefined;
        if (!settled) return this.closed ? undefined : KEEP_ALIVE_CHUNK;
      }
      this.inflight = undefined;
      r = await p;
    } catch (e) {
      this.inflight = undefined;
      this.finished = true;
      return this.closed ? undefined : this.errorChunk(e);
    }
    if (r.done) this.finished = true;
    if (r.done || this.closed) return undefined;
    try {
      return this.encode(r.value);
    } catch (e) {
      this.close();
      return this.errorChunk(e);
    }
  }

  /** Ends the stream early (the client went away): calls the iterator's `return()` once. */
  close(): void {
    this.pending = undefined;
    this.stopWaiting?.();
    if (this.closed) return;
    this.closed = true;
    if (!this.finished) closeIterator(this.iterator);
  }
}

/** An SSE comment line: clients skip it, proxies see traffic on an idle stream. */
const KEEP_ALIVE_CHUNK = ": keep-alive\n\n";

/** `settled` is true when `p` settles (either way) within `ms`, false on the timer or `cancel()`; never rejects. */
function settlesWithin(p: Promise<unknown>, ms: number): { settled: Promise<boolean>; cancel: () => void } {
  let cancel!: () => void;
  const settled = new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const done = (value: boolean) => () => {
      clearTimeout(timer);
      resolve(value);
    };
    cancel = done(false);
    p.then(done(true), done(true));
  });
  return { settled, cancel };
}

export function closeIterator(iterator: AsyncIterator<unknown>): void {
  try {
    const r = iterator.return?.();
    if (r && typeof (r as Promise<unknown>).then === "function") (r as Promise<unknown>).then(undefined, () => {});
  } catch {
    // The handler's cleanup failed; nothing is listening any more.
  }
}

/** The context handlers get; `headers` and `responseHeaders` are built on first use. */
export class ServerContext implements HandlerContext {
  private response: Headers | undefined;

  constructor(
    readonly rpc: string,
    /** Set by the runtime only: HTTP+JSON learns a tenant that only the body names after the first context call. */
    public tenant: string | undefined,
    private readonly req: UniversalServerRequest,
    readonly extensions: readonly string[],
    private readonly deadline?: AbortSignal,
  ) {}

  private combined: AbortSignal | undefined;

  /** Built on first use: most unary handlers never look at it. */
  get signal(): AbortSignal {
    if (this.deadline === undefined) return this.req.signal;
    return (this.combined ??= AbortSignal.any([this.req.signal, this.deadline]));
  }

  get headers(): Headers {
    return this.req.headers;
  }

  get responseHeaders(): Headers {
    return (this.response ??= new Headers());
  }

  /** The response headers, if a handler touched them. */
  touchedHeaders(): Headers | undefined {
    return this.response;
  }
}

/** `base` plus the headers a handler set (Set-Cookie kept as a list). */
export function merge(base: ResponseHeaders, extra: Headers | undefined): ResponseHeaders {
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

/** The `Allow` value for the methods a path is served with: HEAD beside GET, and OPTIONS. */
function allowHeader(methods: readonly string[]): string {
  const out = new Set(methods);
  if (out.has("GET")) out.add("HEAD");
  out.add("OPTIONS");
  return [...out].sort().join(", ");
}

/** An error's HTTP status if it is one an error can have (400..599), else the code's. */
function errorStatus(err: RpcError): number {
  const s = err.httpStatus;
  if (Number.isInteger(s) && s >= 400 && s <= 599) return s;
  const fromCode = httpStatusFromCode(err.code);
  return fromCode >= 400 ? fromCode : 500;
}

export function isBlank(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

export function defaultOnError(error: unknown, info: ServerErrorInfo): void {
  console.error(`protoc-gen-a2a-http: ${info.rpc ?? "request"} failed (${info.phase}):`, error);
}
