// The HTTP+JSON binding's core (framework-free): routing, media types, the
// body limit, decoding, required fields, the call, encoding, errors as
// google.rpc.Status JSON, and server streams as SSE; under the A2A profile
// also its rules (a2a.ts: version, extensions, tenants, subscribe on POST).
import type { JsonValue, Message } from "@bufbuild/protobuf";
import { checkRequired, decodeRequest, encodeResponse, parseJsonBody } from "../transcoding/index.js";
import { jsonError } from "../transcoding/json.js";
import { readLenient, routeCodecs } from "../transcoding/message-json.js";
import { parsePathTemplate } from "../path-template.js";
import { servesV03 } from "../a2a-v03/common.js";
import { A2A_V03_REST } from "../a2a-v03/rest.js";
import {
  A2A_DEFAULT_VERSIONS,
  A2A_MEDIA_TYPE,
  A2A_TENANT,
  JSON_MEDIA_TYPE,
  a2aVersionCheck,
  isA2ABodyType,
  a2aVersionMatcher,
  parseA2AExtensions,
  requestedA2AVersion,
  withA2AErrorInfo,
  withSubscribePostTwins,
  type A2AErrorReason,
} from "../a2a.js";
import { Code, RpcError, isRpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { createRouter, type RouteMatch, type Router } from "../router.js";
import {
  checkDecodedTenant,
  checkDialectPath,
  checkPathValue,
  effectiveTenant,
  jsonTenant,
  tenantBeforeBody,
  tenantFieldOf,
} from "../tenant.js";
import {
  applyContext,
  checkBodyType,
  handlerOf,
  notImplemented,
  type AnyHandler,
  type BodyTypes,
  type ContextRefusal,
} from "./call-setup.js";
import { ServerContext } from "./context.js";
import type { HttpDialect, HttpDialectRoute } from "./http-dialect.js";
import { withDeadline } from "./deadline.js";
import { errorAnswers, streamFailure } from "./error-answer.js";
import { createHostCheck } from "./hosts.js";
import { badPath } from "./mount.js";
import { DEFAULT_BODY_LIMIT, onErrorOf, type ServerErrorInfo, type ServerOptions } from "./options.js";
import {
  isBlank,
  withHandlerHeaders,
  type Answer,
  type ResponseHeaders,
  type UniversalHandler,
  type UniversalServerRequest,
  type UniversalServerResponse,
} from "./request.js";
import { DEFAULT_KEEP_ALIVE_MS, SSE_HEADERS, type SseStream, startSseStream } from "./sse.js";
import { stallTimeoutOf } from "./stall.js";

/** What generated adapters pass besides the user's options. */
export interface HttpHandlerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown> extends ServerOptions<Ctx, Native> {
  /** `a2a` turns on the A2A HTTP+JSON rules (see design.md). Default `none`. */
  readonly profile?: "none" | "a2a";
}

/** The extensions of a request that asks for none (most): one frozen list, not one per request. */
const NO_EXTENSIONS: readonly string[] = Object.freeze([]);

/** A matched request on its way to the handler, past routing and the context. */
interface Call {
  readonly route: RouteBinding;
  readonly match: RouteMatch;
  readonly req: UniversalServerRequest;
  /** HEAD served as GET: the answer goes without its body. */
  readonly head: boolean;
  readonly ctx: ServerContext;
  readonly fn: AnyHandler;
  /** The route of another version's dialect the request took (A2A v0.3), if any. */
  readonly dialect: HttpDialectRoute | undefined;
}

/** A dialect's routes bound to the service's rpcs, with their router. */
interface BoundDialect {
  readonly dialect: HttpDialect;
  readonly router: Router;
  readonly bindings: readonly RouteBinding[];
}

/** Binds a dialect's routes to the route table's rpcs (by proto name); routes to rpcs the table lacks are left out. */
function bindDialect(dialect: HttpDialect, table: readonly RouteBinding[]): BoundDialect {
  const bindings: (RouteBinding & { readonly dialect: HttpDialectRoute })[] = [];
  for (const d of dialect.routes) {
    const r = table.find((t) => t.descriptor.name === d.rpc && t.binding === "primary") ?? table.find((t) => t.descriptor.name === d.rpc);
    if (r === undefined) continue;
    bindings.push({
      ...r,
      method: d.method,
      template: d.template,
      path: parsePathTemplate(d.template),
      body: d.body ? "*" : "",
      responseBody: "",
      dialect: d,
    });
  }
  return { dialect, router: createRouter(bindings), bindings };
}

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
  const errors = errorAnswers(onErrorOf(options), a2a);
  const contextFactory = options.context;
  const jsonCodec = options.jsonCodec ?? "generated";
  const decodeOptions = a2a ? { commaLists: true, jsonCodec } : { jsonCodec };
  // A2A's REQUIRED response fields (nextPageToken: "", ...) go on the wire even at their defaults.
  // A list item that cannot be written (a Task holding NaN) is left out and reported, not a 500 for the whole list.
  const onSkip = (e: unknown) => errors.report(e, { rpc: undefined, phase: "unary" });
  const encodeOptions = a2a ? { emitRequired: true, jsonCodec, onSkip } : { jsonCodec, onSkip };
  const jsonHeaders: ResponseHeaders = { "content-type": responseType };
  const allMethods = allowHeader([...new Set(table.map((r) => r.method.toUpperCase()).filter((m) => m !== "*"))]);
  const unaryTimeoutMs = options.unaryTimeoutMs;
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const bodyTypes = a2a ? A2A_BODY_TYPES : JSON_BODY_TYPES;
  const hostCheck = createHostCheck(options.allowedHosts, a2a);
  const stallTimeoutMs = stallTimeoutOf(options.stallTimeoutMs);
  // A2A: each route's top-level `tenant` field, where a tenant from the query or body can land.
  const tenantFields = new Map<RouteBinding, string | undefined>();
  if (a2a) for (const r of table) tenantFields.set(r, tenantFieldOf(r.input));
  // A2A v0.3's `/v1/...` routes, for requests that speak it (a2a-v03/rest.ts).
  const v03 = servesV03(a2a, routes[0]?.descriptor.parent.typeName, options.a2aV03, handlers)
    ? bindDialect(A2A_V03_REST, table)
    : undefined;
  const speaksV03 = v03 ? a2aVersionMatcher([v03.dialect.version]) : () => false;

  function errorResponse(
    e: unknown,
    rpc: string | undefined,
    extra?: Headers,
    phase: ServerErrorInfo["phase"] = "unary",
  ): UniversalServerResponse {
    const { status, json } = errors.statusJson(e, rpc, phase);
    return { status, headers: withHandlerHeaders(jsonHeaders, extra), body: json };
  }

  function routingError(code: Code, httpStatus: number, message: string, reason: A2AErrorReason): RpcError {
    const err = new RpcError(code, message, [], { httpStatus });
    return a2a ? withA2AErrorInfo(err, reason) : err;
  }

  return function handle(req: UniversalServerRequest): Answer {
    // A client that stops reading its answer loses the connection (stall.ts).
    req.closeWhenStalled?.(stallTimeoutMs);
    // A v0.3 request below `/v1/` (a2a-v03/rest.ts) gets every error in v0.3's shape, the early refusals too.
    const d =
      v03 !== undefined &&
      req.rawPath.startsWith(v03.dialect.prefix) &&
      speaksV03(requestedA2AVersion(req.header("a2a-version"), req.rawQuery));
    if (!d) return serve(req, undefined);
    const reshape = (res: UniversalServerResponse): UniversalServerResponse =>
      res.status >= 400 && typeof res.body === "string" && res.body !== "" ? { ...res, body: v03.dialect.errorBody(res.body) } : res;
    const answer = serve(req, v03);
    return answer instanceof Promise ? answer.then(reshape) : reshape(answer);
  };

  // From here on every step answers synchronously when it can (no body to
  // read, no promise from the context factory or the handler), so that an
  // adapter can write a small GET's answer without a trip through the
  // microtask queue; @hono/node-server has a fast path for exactly that.
  // Every step catches its own errors: none of them throws or rejects.

  /** Serves a request; `dialect`, when it speaks that dialect below its prefix. */
  function serve(req: UniversalServerRequest, dialect: BoundDialect | undefined): Answer {
    let route: RouteBinding | undefined;
    try {
      if (hostCheck !== undefined) {
        const wrongHost = hostCheck(req.header("host"), () => req.listener?.());
        if (wrongHost !== undefined) return errorResponse(wrongHost, undefined);
      }
      // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): reaches
      // an adapter mounted at the root only.
      if (req.rawPath === "*" && req.method === "OPTIONS") return { status: 204, headers: { allow: allMethods }, body: "" };
      const bad = badPath(req.rawPath);
      if (bad !== undefined) throw routingError(Code.INVALID_ARGUMENT, 400, bad, "INVALID_REQUEST");
      if (dialect !== undefined) {
        const answer = serveDialect(dialect, req);
        if (answer !== undefined) return answer;
      }
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
      if ("allow" in match) return notAllowed(req, match.allow);
      route = table[match.index]!;
      return withinDeadline(route, match, req, head, undefined);
    } catch (e) {
      return errorResponse(e, route?.rpc);
    }
  }

  /** A path served with other methods: OPTIONS names them (204), any other method is a 405 with Allow. */
  function notAllowed(req: UniversalServerRequest, methods: readonly string[]): UniversalServerResponse {
    const allow = allowHeader(methods);
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

  /** The call, under the unary deadline unless the rpc streams. */
  function withinDeadline(
    r: RouteBinding,
    m: RouteMatch,
    req: UniversalServerRequest,
    head: boolean,
    dialect: HttpDialectRoute | undefined,
  ): Answer {
    if (unaryTimeoutMs !== undefined && r.streaming !== "server") {
      return withDeadline(
        unaryTimeoutMs,
        (deadline) => call(r, m, req, deadline.signal, head, dialect),
        (err) => errorResponse(err, r.rpc),
      );
    }
    return call(r, m, req, undefined, head, dialect);
  }

  /**
   * A request below the dialect's prefix that speaks its version and matches
   * one of its routes, served there with its errors in its shape; otherwise
   * undefined, and the request goes on to the service's own routes (where a
   * v1.0 tenant named like the prefix lives, reached with A2A-Version 1.0).
   */
  function serveDialect(d: BoundDialect, req: UniversalServerRequest): Answer | undefined {
    const match = d.router.match(req.method, req.rawPath);
    if (match === undefined) return undefined;
    if ("allow" in match) return notAllowed(req, match.allow);
    const r = d.bindings[match.index]! as RouteBinding & { readonly dialect: HttpDialectRoute };
    return withinDeadline(r, match, req, false, r.dialect);
  }

  /** Serves a matched request: the context, then the body if the route has one. */
  function call(
    route: RouteBinding,
    match: RouteMatch,
    req: UniversalServerRequest,
    deadline: AbortSignal | undefined,
    head: boolean,
    dialect: HttpDialectRoute | undefined,
  ): Answer {
    let ctx: ServerContext | undefined;
    try {
      const fn = handlerOf(handlers, route.rpc);
      if (fn === undefined) throw notImplemented(route, a2a);
      if (a2a && dialect === undefined) {
        const wrongVersion = versionError(requestedA2AVersion(req.header("a2a-version"), req.rawQuery));
        if (wrongVersion !== undefined) throw wrongVersion;
      }
      const tenant = a2a
        ? dialect
          ? checkDialectPath(match.variables)
          : tenantBeforeBody(route, match.variables, req.rawQuery, tenantFields.get(route))
        : route.path.variables.length > 0
          ? match.variables[A2A_TENANT]
          : undefined;
      const extensions = a2a ? req.header("a2a-extensions") : undefined;
      ctx = new ServerContext(route.rpc, tenant, req, extensions ? parseA2AExtensions(extensions) : NO_EXTENSIONS, deadline);
      if (dialect) ctx.a2aDialect = v03!.dialect.version;
      const c: Call = { route, match, req, head, ctx, fn, dialect };
      if (contextFactory) {
        const refused = applyContext(contextFactory, ctx.factoryInput<Native>(route), ctx);
        if (refused instanceof Promise) return afterContext(c, refused);
        if (refused !== undefined) return errorResponse(refused.error, route.rpc, ctx.touchedHeaders(), "context");
      }
      return proceed(c);
    } catch (e) {
      return errorResponse(e, route.rpc, ctx?.touchedHeaders());
    }
  }

  /** Goes on once an async context factory has settled and its fields are merged. */
  async function afterContext(
    c: Call,
    pending: Promise<ContextRefusal | undefined>,
    then: (c: Call) => Answer = proceed,
  ): Promise<UniversalServerResponse> {
    let refused: ContextRefusal | undefined;
    try {
      refused = await pending;
    } catch (e) {
      return errorResponse(e, c.route.rpc, c.ctx.touchedHeaders());
    }
    if (refused !== undefined) return errorResponse(refused.error, c.route.rpc, c.ctx.touchedHeaders(), "context");
    return then(c);
  }

  /**
   * A2A, body "*": the body's `tenant` must agree with the path's; when only
   * the body names one, the context factory runs again with it (before the
   * body is decoded), so that it sees the tenant the handler acts for.
   */
  function withBodyTenant(c: Call, body: unknown): Answer {
    const { route, ctx } = c;
    try {
      const fromBody = jsonTenant(body);
      if (!fromBody || tenantFields.get(route) === undefined) return run(c, body);
      const tenant = effectiveTenant(ctx.tenant, "path", fromBody, "body");
      if (tenant === ctx.tenant) return run(c, body);
      checkPathValue(A2A_TENANT, fromBody);
      ctx.tenant = tenant;
      if (!contextFactory) return run(c, body);
      const refused = applyContext(contextFactory, ctx.factoryInput<Native>(route), ctx);
      if (refused instanceof Promise) return afterContext(c, refused, (call) => run(call, body));
      if (refused !== undefined) return errorResponse(refused.error, route.rpc, ctx.touchedHeaders(), "context");
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
        checkBodyType(req.header("content-type"), bodyTypes, a2a);
        body = parseJsonBody(text, options.maxElements);
        if (body === null && route.body === "*") body = undefined;
      }
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
    return a2a && route.body === "*" && c.dialect === undefined ? withBodyTenant(c, body) : run(c, body);
  }

  /** Decodes the request message and calls the handler. */
  function run(c: Call, body: unknown): Answer {
    const { route, match, req, head, ctx, fn, dialect } = c;
    try {
      const message = dialect
        ? decodeDialect(route, dialect, match, req, body)
        : decodeRequest(route, { variables: match.variables, query: route.body === "*" ? "" : req.rawQuery, body }, decodeOptions);
      checkRequired(route.input, message, routeCodecs(route, decodeOptions)?.input?.complete);
      if (a2a) checkDecodedTenant(message, tenantFields.get(route), ctx.tenant, "path", "body");
      if (route.streaming === "server") return stream(route, fn, message, ctx, head, dialect);
      const result = fn.call(handlers, message, ctx);
      if (result instanceof Promise) {
        return result.then(
          (value) => unaryAnswer(route, ctx, value, dialect),
          (e) => errorResponse(e, route.rpc, ctx.touchedHeaders()),
        );
      }
      return unaryAnswer(route, ctx, result, dialect);
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
  }

  /** A dialect's request: its translation to the rpc's ProtoJSON, then that read as the message. */
  function decodeDialect(
    route: RouteBinding,
    dialect: HttpDialectRoute,
    match: RouteMatch,
    req: UniversalServerRequest,
    body: unknown,
  ): Message {
    const json = dialect.request(match.variables, req.rawQuery, body);
    try {
      return readLenient(route.input, routeCodecs(route, decodeOptions)?.input, json);
    } catch (e) {
      throw jsonError(route.input, json, e, undefined);
    }
  }

  /** The answer's JSON, in the dialect's shape when there is one. */
  function answerJson(route: RouteBinding, value: unknown, dialect: HttpDialectRoute | undefined): string {
    const json = encodeResponse(route, value, encodeOptions);
    return JSON.stringify(dialect ? dialect.result(json as JsonValue) : json);
  }

  function unaryAnswer(
    route: RouteBinding,
    ctx: ServerContext,
    result: unknown,
    dialect: HttpDialectRoute | undefined,
  ): UniversalServerResponse {
    try {
      const json = answerJson(route, result, dialect);
      return { status: 200, headers: withHandlerHeaders(jsonHeaders, ctx.touchedHeaders()), body: json };
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
  }

  /** A server stream: an error before its first message is a plain error answer; HEAD gets the headers alone. */
  async function stream(
    route: RouteBinding,
    fn: AnyHandler,
    message: Message,
    ctx: ServerContext,
    head: boolean,
    dialect: HttpDialectRoute | undefined,
  ): Promise<UniversalServerResponse> {
    let sse: SseStream;
    try {
      sse = await startSseStream(
        fn.call(handlers, message, ctx) as AsyncIterable<unknown>,
        (value) => "data: " + answerJson(route, value, dialect) + "\n\n",
        (e) => {
          const json = errors.statusJson(streamFailure(e, ctx.signal), route.rpc, "stream").json;
          return "event: error\ndata: " + (dialect ? v03!.dialect.errorBody(json) : json) + "\n\n";
        },
        keepAliveMs,
      );
    } catch (e) {
      return errorResponse(e, route.rpc, ctx.touchedHeaders());
    }
    const headers = withHandlerHeaders(SSE_HEADERS, ctx.touchedHeaders());
    if (!head) return { status: 200, headers, body: sse };
    sse.close();
    return { status: 200, headers, body: "" };
  }
}

/** HTTP+JSON's body types (see call-setup.ts's checkBodyType): any JSON type (`application/*+json`). */
const JSON_BODY_TYPES: BodyTypes = {
  accepts: (type) => type === JSON_MEDIA_TYPE || (type.startsWith("application/") && type.endsWith("+json")),
  send: JSON_MEDIA_TYPE,
  missing: `a request with a body needs Content-Type: ${JSON_MEDIA_TYPE}`,
  refuse: (message) => new RpcError(Code.INVALID_ARGUMENT, message, [], { httpStatus: 415 }),
};

/** Under the A2A profile: JSON and A2A's JSON. */
const A2A_BODY_TYPES: BodyTypes = {
  ...JSON_BODY_TYPES,
  accepts: isA2ABodyType,
  send: `${JSON_MEDIA_TYPE} or ${A2A_MEDIA_TYPE}`,
  missing: `a request with a body needs Content-Type: ${JSON_MEDIA_TYPE} or ${A2A_MEDIA_TYPE}`,
};

/** The `Allow` value for the methods a path is served with: HEAD beside GET, and OPTIONS. */
function allowHeader(methods: readonly string[]): string {
  const out = new Set(methods);
  if (out.has("GET")) out.add("HEAD");
  out.add("OPTIONS");
  return [...out].sort().join(", ");
}
