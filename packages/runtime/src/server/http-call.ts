// A routed HTTP+JSON request to its answer: the handler, the A2A version,
// the tenant, the context and the factory's call, the body read and its
// type checked, the message decoded, the call, and the answer encoded, unary
// or a server stream. Every step answers synchronously when it can (no body
// to read, no promise from the context factory or the handler), so that an
// adapter can write a small GET's answer without a trip through the
// microtask queue; @hono/node-server has a fast path for exactly that. Every
// step catches its own errors: none of them throws or rejects.
import type { JsonValue, Message } from "@bufbuild/protobuf";
import { A2A_TENANT, parseA2AExtensions, requestedA2AVersion, withA2AErrorInfo } from "../a2a.js";
import { isRpcError } from "../errors.js";
import type { RouteBinding } from "../route-binding.js";
import type { RouteMatch } from "../router.js";
import { checkDecodedTenant, checkDialectPath, checkPathValue, effectiveTenant, jsonTenant, tenantBeforeBody } from "../tenant.js";
import { checkRequired, decodeRequest, encodeResponse, parseJsonBody } from "../transcoding/index.js";
import { jsonError } from "../transcoding/json.js";
import { readLenient, routeCodecs } from "../transcoding/message-json.js";
import { applyContext, checkBodyType, handlerOf, notImplemented, type AnyHandler, type ContextRefusal } from "./call-setup.js";
import { ServerContext } from "./context.js";
import { errorResponse, type HttpBinding } from "./http-binding.js";
import type { HttpDialectRoute } from "./http-dialect.js";
import { isBlank, withHandlerHeaders, type Answer, type UniversalServerRequest, type UniversalServerResponse } from "./request.js";
import { streamFailure } from "./error-answer.js";
import { encodeOnce } from "../shared-encoding.js";
import { SSE_HEADERS, type SseStream, startSseStream } from "./sse.js";

/** The extensions of a request that asks for none (most): one frozen list, not one per request. */
const NO_EXTENSIONS: readonly string[] = Object.freeze([]);

/** A matched request on its way to the handler, past routing and the context. */
interface Call {
  readonly b: HttpBinding;
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

/** Serves a matched request: the context, then the body if the route has one. */
export function call(
  b: HttpBinding,
  route: RouteBinding,
  match: RouteMatch,
  req: UniversalServerRequest,
  deadline: AbortSignal | undefined,
  head: boolean,
  dialect: HttpDialectRoute | undefined,
): Answer {
  let ctx: ServerContext | undefined;
  try {
    const fn = handlerOf(b.handlers, route.rpc);
    if (fn === undefined) throw notImplemented(route, b.a2a);
    if (b.a2a && dialect === undefined) {
      const wrongVersion = b.versionError(requestedA2AVersion(req.header("a2a-version"), req.rawQuery));
      if (wrongVersion !== undefined) throw wrongVersion;
    }
    const tenant = b.a2a
      ? dialect
        ? checkDialectPath(match.variables)
        : tenantBeforeBody(route, match.variables, req.rawQuery, b.tenantFields.get(route))
      : route.path.variables.length > 0
        ? match.variables[A2A_TENANT]
        : undefined;
    const extensions = b.a2a ? req.header("a2a-extensions") : undefined;
    ctx = new ServerContext(route.rpc, tenant, req, extensions ? parseA2AExtensions(extensions) : NO_EXTENSIONS, deadline);
    if (dialect) ctx.a2aDialect = b.v03!.dialect.version;
    const c: Call = { b, route, match, req, head, ctx, fn, dialect };
    if (b.context) {
      const refused = applyContext(b.context, ctx.factoryInput<unknown>(route), ctx);
      if (refused instanceof Promise) return afterContext(c, refused);
      if (refused !== undefined) return errorResponse(b, refused.error, route.rpc, ctx.touchedHeaders(), "context");
    }
    return proceed(c);
  } catch (e) {
    return errorResponse(b, e, route.rpc, ctx?.touchedHeaders());
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
    return errorResponse(c.b, e, c.route.rpc, c.ctx.touchedHeaders());
  }
  if (refused !== undefined) return errorResponse(c.b, refused.error, c.route.rpc, c.ctx.touchedHeaders(), "context");
  return then(c);
}

/**
 * A2A, body "*": the body's `tenant` must agree with the path's; when only
 * the body names one, the context factory runs again with it (before the
 * body is decoded), so that it sees the tenant the handler acts for.
 */
function withBodyTenant(c: Call, body: unknown): Answer {
  const { b, route, ctx } = c;
  try {
    const fromBody = jsonTenant(body);
    if (!fromBody || b.tenantFields.get(route) === undefined) return run(c, body);
    const tenant = effectiveTenant(ctx.tenant, "path", fromBody, "body");
    if (tenant === ctx.tenant) return run(c, body);
    checkPathValue(A2A_TENANT, fromBody);
    ctx.tenant = tenant;
    if (!b.context) return run(c, body);
    const refused = applyContext(b.context, ctx.factoryInput<unknown>(route), ctx);
    if (refused instanceof Promise) return afterContext(c, refused, (call) => run(call, body));
    if (refused !== undefined) return errorResponse(b, refused.error, route.rpc, ctx.touchedHeaders(), "context");
    return run(c, body);
  } catch (e) {
    return errorResponse(b, e, route.rpc, ctx.touchedHeaders());
  }
}

/** The body first if the route has one, then the call. */
function proceed(c: Call): Answer {
  return c.route.body !== "" ? withBody(c) : run(c, undefined);
}

/** Reads and parses the request body, then runs the call. */
async function withBody(c: Call): Promise<UniversalServerResponse> {
  const { b, route, req, ctx } = c;
  let body: unknown;
  try {
    let text: string;
    try {
      text = await req.readBody(b.bodyLimit);
    } catch (e) {
      throw b.a2a && isRpcError(e) ? withA2AErrorInfo(e, "INVALID_REQUEST") : e;
    }
    if (!isBlank(text)) {
      checkBodyType(req.header("content-type"), b.bodyTypes, b.a2a);
      body = parseJsonBody(text, b.maxElements);
      if (body === null && route.body === "*") body = undefined;
    }
  } catch (e) {
    return errorResponse(b, e, route.rpc, ctx.touchedHeaders());
  }
  return b.a2a && route.body === "*" && c.dialect === undefined ? withBodyTenant(c, body) : run(c, body);
}

/** Decodes the request message and calls the handler. */
function run(c: Call, body: unknown): Answer {
  const { b, route, match, req, head, ctx, fn, dialect } = c;
  try {
    const message = dialect
      ? decodeDialect(b, route, dialect, match, req, body)
      : decodeRequest(route, { variables: match.variables, query: route.body === "*" ? "" : req.rawQuery, body }, b.decodeOptions);
    checkRequired(route.input, message, routeCodecs(route, b.decodeOptions)?.input?.complete);
    if (b.a2a) checkDecodedTenant(message, b.tenantFields.get(route), ctx.tenant, "path", "body");
    if (route.streaming === "server") return stream(b, route, fn, message, ctx, head, dialect);
    const result = fn.call(b.handlers, message, ctx);
    if (result instanceof Promise) {
      return result.then(
        (value) => unaryAnswer(b, route, ctx, value, dialect),
        (e) => errorResponse(b, e, route.rpc, ctx.touchedHeaders()),
      );
    }
    return unaryAnswer(b, route, ctx, result, dialect);
  } catch (e) {
    return errorResponse(b, e, route.rpc, ctx.touchedHeaders());
  }
}

/** A dialect's request: its translation to the rpc's ProtoJSON, then that read as the message. */
function decodeDialect(
  b: HttpBinding,
  route: RouteBinding,
  dialect: HttpDialectRoute,
  match: RouteMatch,
  req: UniversalServerRequest,
  body: unknown,
): Message {
  const json = dialect.request(match.variables, req.rawQuery, body);
  try {
    return readLenient(route.input, routeCodecs(route, b.decodeOptions)?.input, json);
  } catch (e) {
    throw jsonError(route.input, json, e, undefined);
  }
}

/** The answer's JSON, in the dialect's shape when there is one. */
function answerJson(b: HttpBinding, route: RouteBinding, value: unknown, dialect: HttpDialectRoute | undefined): string {
  const json = encodeResponse(route, value, b.encodeOptions);
  return JSON.stringify(dialect ? dialect.result(json as JsonValue) : json);
}

function unaryAnswer(
  b: HttpBinding,
  route: RouteBinding,
  ctx: ServerContext,
  result: unknown,
  dialect: HttpDialectRoute | undefined,
): UniversalServerResponse {
  try {
    const json = answerJson(b, route, result, dialect);
    return { status: 200, headers: withHandlerHeaders(b.jsonHeaders, ctx.touchedHeaders()), body: json };
  } catch (e) {
    return errorResponse(b, e, route.rpc, ctx.touchedHeaders());
  }
}

/** A server stream: an error before its first message is a plain error answer; HEAD gets the headers alone. */
async function stream(
  b: HttpBinding,
  route: RouteBinding,
  fn: AnyHandler,
  message: Message,
  ctx: ServerContext,
  head: boolean,
  dialect: HttpDialectRoute | undefined,
): Promise<UniversalServerResponse> {
  let sse: SseStream;
  // A task's event is one object for all its subscribers: its event text is made once (shared-encoding.ts).
  const event = (value: unknown) => "data: " + answerJson(b, route, value, dialect) + "\n\n";
  const format = dialect ?? route;
  try {
    sse = await startSseStream(
      fn.call(b.handlers, message, ctx) as AsyncIterable<unknown>,
      (value) => encodeOnce(value, b, format, event),
      (e) => {
        const json = b.errors.statusJson(streamFailure(e, ctx.signal), route.rpc, "stream").json;
        return "event: error\ndata: " + (dialect ? b.v03!.dialect.errorBody(json) : json) + "\n\n";
      },
      b.keepAliveMs,
    );
  } catch (e) {
    return errorResponse(b, e, route.rpc, ctx.touchedHeaders());
  }
  const headers = withHandlerHeaders(SSE_HEADERS, ctx.touchedHeaders());
  if (!head) return { status: 200, headers, body: sse };
  sse.close();
  return { status: 200, headers, body: "" };
}
