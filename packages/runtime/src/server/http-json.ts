// The HTTP+JSON binding's core (framework-free): routing, media types, the
// body limit, decoding, required fields, the call, encoding, errors as
// google.rpc.Status JSON, and server streams as SSE; under the A2A profile
// also its rules (a2a.ts: version, extensions, tenants, subscribe on POST).
// This file is the entry and the routing (Host, `OPTIONS *`, the path's
// shape, A2A v0.3's routes, HEAD as GET, 404 and 405, the unary deadline);
// a routed request is http-call.ts's, the handler's state http-binding.ts's.
import { requestedA2AVersion, withA2AErrorInfo, type A2AErrorReason } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import type { RouteMatch } from "../router.js";
import { withDeadline } from "./deadline.js";
import { allowHeader, errorResponse, httpBinding, type BoundDialect, type HttpBinding } from "./http-binding.js";
import { call } from "./http-call.js";
import type { HttpDialectRoute } from "./http-dialect.js";
import { badPath } from "./mount.js";
import type { ServerOptions } from "./options.js";
import type { Answer, UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "./request.js";
import { stallTimeoutOf } from "./stall.js";
import { spanOf, telemetry } from "../telemetry.js";
import { tracedHttp } from "./traced.js";

/** What generated adapters pass besides the user's options. */
export interface HttpHandlerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown> extends ServerOptions<Ctx, Native> {
  /** `a2a` turns on the A2A HTTP+JSON rules (see design.md). Default `none`. */
  readonly profile?: "none" | "a2a";
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
  const b = httpBinding(routes, handlers, options as HttpHandlerOptions);
  const stallTimeoutMs = stallTimeoutOf(options.stallTimeoutMs);
  const v03 = b.v03;
  return function handle(req: UniversalServerRequest): Answer {
    // A client that stops reading its answer loses the connection (stall.ts).
    req.closeWhenStalled?.(stallTimeoutMs);
    // A v0.3 request below `/v1/` (a2a-v03/rest.ts) gets every error in v0.3's shape, the early refusals too.
    const d =
      v03 !== undefined &&
      req.rawPath.startsWith(v03.dialect.prefix) &&
      v03.speaks(requestedA2AVersion(req.header("a2a-version"), req.rawQuery));
    if (!d) return serve(b, req, undefined);
    const reshape = (res: UniversalServerResponse): UniversalServerResponse =>
      res.status >= 400 && typeof res.body === "string" && res.body !== "" ? { ...res, body: v03.dialect.errorBody(res.body) } : res;
    const answer = serve(b, req, v03);
    return answer instanceof Promise ? answer.then(reshape) : reshape(answer);
  };
}

// Every step answers synchronously when it can (see http-call.ts) and
// catches its own errors: none of them throws or rejects.

/** Serves a request; `dialect`, when it speaks that dialect below its prefix. */
function serve(b: HttpBinding, req: UniversalServerRequest, dialect: BoundDialect | undefined): Answer {
  let route: RouteBinding | undefined;
  try {
    if (b.hostCheck !== undefined) {
      const wrongHost = b.hostCheck(req.header("host"), () => req.listener?.());
      if (wrongHost !== undefined) return errorResponse(b, wrongHost, undefined);
    }
    // `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): reaches
    // an adapter mounted at the root only.
    if (req.rawPath === "*" && req.method === "OPTIONS") return { status: 204, headers: { allow: b.allMethods }, body: "" };
    const bad = badPath(req.rawPath);
    if (bad !== undefined) throw routingError(b, Code.INVALID_ARGUMENT, 400, bad, "INVALID_REQUEST");
    if (dialect !== undefined) {
      const answer = serveDialect(b, dialect, req);
      if (answer !== undefined) return answer;
    }
    let match = b.router.match(req.method, req.rawPath);
    let head = false;
    if (req.method === "HEAD" && (match === undefined || "allow" in match)) {
      // HEAD is GET without the body (RFC 9110 §9.3.2), wherever GET is served.
      const asGet = b.router.match("GET", req.rawPath);
      if (asGet !== undefined && !("allow" in asGet)) {
        match = asGet;
        head = true;
      }
    }
    if (match === undefined) {
      const err = routingError(b, Code.NOT_FOUND, 404, `no route for ${req.method} ${req.rawPath}`, "METHOD_NOT_FOUND");
      return { ...errorResponse(b, err, undefined), unrouted: true };
    }
    if ("allow" in match) return notAllowed(b, req, match.allow);
    route = b.table[match.index]!;
    return withinDeadline(b, route, match, req, head, undefined);
  } catch (e) {
    return errorResponse(b, e, route?.rpc);
  }
}

/** An error of routing, with its HTTP status; under A2A with its ErrorInfo. */
function routingError(b: HttpBinding, code: Code, httpStatus: number, message: string, reason: A2AErrorReason): RpcError {
  const err = new RpcError(code, message, [], { httpStatus });
  return b.a2a ? withA2AErrorInfo(err, reason) : err;
}

/** A path served with other methods: OPTIONS names them (204), any other method is a 405 with Allow. */
function notAllowed(b: HttpBinding, req: UniversalServerRequest, methods: readonly string[]): UniversalServerResponse {
  const allow = allowHeader(methods);
  if (req.method === "OPTIONS") return { status: 204, headers: { allow }, body: "" };
  const message = `method ${req.method} is not allowed on ${req.rawPath}; allowed: ${allow}`;
  const res = errorResponse(b, routingError(b, Code.UNIMPLEMENTED, 405, message, "METHOD_NOT_FOUND"), undefined);
  return { ...res, headers: { ...res.headers, allow } };
}

/** The call, under the unary deadline unless the rpc streams; with telemetry on, in its span (traced.ts). */
function withinDeadline(
  b: HttpBinding,
  r: RouteBinding,
  m: RouteMatch,
  req: UniversalServerRequest,
  head: boolean,
  dialect: HttpDialectRoute | undefined,
): Answer {
  const t = telemetry.on;
  if (t !== undefined && spanOf(req) === undefined) return tracedHttp(t, r, req, () => withinDeadline(b, r, m, req, head, dialect));
  const unaryTimeoutMs = b.unaryTimeoutMs;
  if (unaryTimeoutMs !== undefined && r.streaming !== "server") {
    return withDeadline(
      unaryTimeoutMs,
      (deadline) => call(b, r, m, req, deadline.signal, head, dialect),
      (err) => errorResponse(b, err, r.rpc),
    );
  }
  return call(b, r, m, req, undefined, head, dialect);
}

/**
 * A request below the dialect's prefix that speaks its version and matches
 * one of its routes, served there with its errors in its shape; otherwise
 * undefined, and the request goes on to the service's own routes (where a
 * v1.0 tenant named like the prefix lives, reached with A2A-Version 1.0).
 */
function serveDialect(b: HttpBinding, d: BoundDialect, req: UniversalServerRequest): Answer | undefined {
  const match = d.router.match(req.method, req.rawPath);
  if (match === undefined) return undefined;
  if ("allow" in match) return notAllowed(b, req, match.allow);
  const r = d.bindings[match.index]!;
  return withinDeadline(b, r, match, req, false, r.dialect);
}
