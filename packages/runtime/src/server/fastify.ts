import { METHODS, type IncomingMessage, type ServerResponse } from "node:http";
import { withA2AErrorInfo } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { createHttpHandler, type HttpHandlerOptions } from "./http-json.js";
import type { ResponseHeaders, UniversalHandler, UniversalServerResponse } from "./request.js";
import { serveNode, writeNodeResponse, type NodeRequest } from "./node.js";
import { originPath, stripMountSegments } from "./mount.js";
import { HEALTH_PATHS, healthAnswer, type HealthOptions } from "./health.js";

// The runtime does not depend on fastify: these are the few members it uses.
interface FastifyRequestLike {
  readonly raw: IncomingMessage;
  readonly routeOptions: { readonly url?: string | undefined };
}
interface FastifyReplyLike {
  readonly raw: ServerResponse;
  code(status: number): FastifyReplyLike;
  headers(values: ResponseHeaders): FastifyReplyLike;
  serializer(fn: (payload: string) => string): FastifyReplyLike;
  send(payload: string): FastifyReplyLike;
  hijack(): FastifyReplyLike;
}
interface FastifyInstanceLike {
  readonly supportedMethods: string[];
  addHttpMethod(method: string, options?: { hasBody?: boolean }): unknown;
  removeAllContentTypeParsers(): void;
  addContentTypeParser(
    contentType: string | string[],
    parser: (request: unknown, payload: unknown, done: (err: Error | null, body?: unknown) => void) => void,
  ): void;
  setErrorHandler(handler: (error: Error & { code?: string }, request: never, reply: never) => unknown): unknown;
  route(options: {
    method: string[];
    url: string;
    exposeHeadRoute?: boolean;
    handler: (request: never, reply: never) => Promise<void> | undefined;
  }): unknown;
}

/**
 * Registers one service on a Fastify instance (the generated plugin calls it
 * inside its own encapsulated context). It replaces the content-type parsers
 * of that context only, so the body reaches the runtime unread and the
 * user's parsers elsewhere stay as they are; it routes every request below
 * the prefix through the service's one router.
 */
export function registerFastifyService<Ctx extends HandlerContext = HandlerContext, Native = unknown>(
  fastify: unknown,
  routes: readonly RouteBinding[],
  handlers: object,
  options?: HttpHandlerOptions<Ctx, Native>,
): void {
  registerFastifyHandler(
    fastify,
    createHttpHandler(routes, handlers, options),
    routes.map((r) => r.method),
  );
}

/**
 * Routes every request below the prefix of a Fastify context to a core
 * handler (HTTP+JSON's, or another binding's such as JSON-RPC), after adding
 * the HTTP `methods` Fastify lacks. See {@link registerFastifyService}.
 */
export function registerFastifyHandler(fastify: unknown, handle: UniversalHandler, methods: readonly string[]): void {
  const f = fastify as FastifyInstanceLike;
  f.removeAllContentTypeParsers();
  const unread = (_request: unknown, _payload: unknown, done: (err: Error | null, body?: unknown) => void) => done(null, undefined);
  // The JSON types by name as well: Fastify caches the parser it finds for a
  // Content-Type, but not the catch-all, whose lookup parses the header anew
  // on every request.
  f.addContentTypeParser(["application/json", "application/a2a+json"], unread);
  f.addContentTypeParser("*", unread);
  // Every method node parses, so that any method on a known path is a 405
  // with Allow (Fastify would answer its own 404 for a method it does not know).
  for (const method of new Set([...METHODS, ...methods.map((m) => m.toUpperCase())])) {
    if (method !== "*" && method !== "CONNECT" && !f.supportedMethods.includes(method)) f.addHttpMethod(method, { hasBody: true });
  }
  /** Serves one request; `pattern` is the matched route's URL (read from the request when not given). */
  const serve = (request: FastifyRequestLike, reply: FastifyReplyLike, pattern: string | undefined): Promise<void> | undefined => {
    const rawUrl = originPath(request.raw.url ?? "/");
    const url = stripMountSegments(rawUrl, pattern ?? request.routeOptions.url ?? "/*");
    const { request: req, response } = serveNode(handle, request.raw, reply.raw, { url, native: request });
    if (response instanceof Promise) return response.then((res) => send(res, req, reply));
    return send(response, req, reply);
  };
  /**
   * The handler of one route. Fastify builds a fresh object for every read of
   * `request.routeOptions`, so the route's URL is read once, on its first
   * request (the routes that share a handler differ by a trailing slash at
   * most, which leaves the mount depth alike). Not async: a synchronous
   * answer is sent without a promise.
   */
  const routeHandler = () => {
    let pattern: string | undefined;
    return (request: FastifyRequestLike, reply: FastifyReplyLike): Promise<void> | undefined =>
      serve(request, reply, (pattern ??= request.routeOptions.url ?? "/*"));
  };
  const handler = (request: FastifyRequestLike, reply: FastifyReplyLike) => serve(request, reply, undefined);
  // Fastify refuses a Content-Type it cannot parse (an empty one, say) before
  // any handler runs; the body is still unread then, so the runtime judges it
  // like on the other frameworks.
  f.setErrorHandler((error, request: FastifyRequestLike, reply: FastifyReplyLike) => {
    if (error.code === "FST_ERR_CTP_INVALID_MEDIA_TYPE") return handler(request, reply);
    throw error;
  });
  const method = [...f.supportedMethods];
  f.route({ method, url: "/", exposeHeadRoute: false, handler: routeHandler() as never });
  f.route({ method, url: "/*", exposeHeadRoute: false, handler: routeHandler() as never });
}

/**
 * Fastify glue of the health endpoints (health.ts): a plugin adding GET (and
 * through Fastify, HEAD) routes for `/healthz` and `/readyz`, beside the
 * services' routes and outside any tenant path:
 * `await app.register(healthFastify({ ready: () => agent.ready() }))`.
 * Answers go through the reply, so the app's onSend hooks run.
 */
export function healthFastify(options?: HealthOptions): (fastify: unknown, _options: unknown, done: (error?: Error) => void) => void {
  const health = healthAnswer(options);
  return (fastify, _options, done) => {
    const f = fastify as { get(path: string, handler: (request: unknown, reply: FastifyReplyLike) => Promise<void> | undefined): unknown };
    for (const path of [HEALTH_PATHS.live, HEALTH_PATHS.ready]) {
      // HEAD is Fastify's: its HEAD route runs this GET handler and drops the body.
      f.get(path, (_request, reply) => {
        const a = health("GET", path)!;
        const send = (answer: Exclude<typeof a, Promise<unknown>>) =>
          void reply.code(answer.status).headers(answer.headers).serializer(asIs).send(answer.body);
        if (a instanceof Promise) return a.then(send);
        send(a);
        return undefined;
      });
    }
    done();
  };
}

/**
 * The body is already JSON. Naming a serializer keeps Fastify from appending
 * "; charset=utf-8" to a JSON Content-Type, and lets the body go as a string,
 * which Node joins to the headers in one piece (a Buffer goes as a second
 * piece of a vectored write: some 6-12 µs a request on loopback).
 */
const asIs = (payload: string): string => payload;

/** Sends the core's answer: JSON through the reply (so that the app's onSend hooks run), SSE on the raw response. */
function send(res: UniversalServerResponse, req: NodeRequest, reply: FastifyReplyLike): Promise<void> | undefined {
  if (typeof res.body === "string") {
    const body = res.body;
    const unread = req.beforeAnswer(reply.raw);
    if (unread !== undefined) return unread.then(() => void reply.code(res.status).headers(res.headers).serializer(asIs).send(body));
    reply.code(res.status).headers(res.headers).serializer(asIs).send(body);
    return undefined;
  }
  reply.hijack();
  return writeNodeResponse(reply.raw, res, req);
}

/**
 * Fastify answers a malformed percent-escape in the URL (and an over-long
 * path parameter) itself, before any route runs, with its own JSON. Pass
 * this as the root `frameworkErrors` option to answer those with a
 * google.rpc.Status body like every other error:
 * `Fastify({ frameworkErrors: fastifyFrameworkErrors({ profile: "a2a" }) })`.
 */
export function fastifyFrameworkErrors(options: { profile?: "none" | "a2a"; responseType?: string } = {}) {
  const a2a = options.profile === "a2a";
  const type = options.responseType ?? (a2a ? "application/a2a+json" : "application/json");
  return (error: Error & { code?: string; statusCode?: number }, _request: unknown, reply: unknown): void => {
    const badUrl = error.code === "FST_ERR_BAD_URL";
    let err = new RpcError(Code.INVALID_ARGUMENT, badUrl ? "malformed percent-escape in the request path" : error.message, [], {
      httpStatus: badUrl ? 400 : (error.statusCode ?? 400),
    });
    if (a2a) err = withA2AErrorInfo(err, "INVALID_REQUEST");
    (reply as FastifyReplyLike)
      .code(err.httpStatus)
      .headers({ "content-type": type })
      .serializer(asIs)
      .send(JSON.stringify(err.toStatusBody()));
  };
}

/** Default time to receive a whole request, headers and body: Node's own, which Express and Hono servers get. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 300_000;
/** Default time to receive the request headers: Node's own. */
export const DEFAULT_HEADERS_TIMEOUT_MS = 60_000;

/**
 * The root options of a Fastify server for an agent:
 * `Fastify(fastifyOptions({ profile: "a2a" }))`. Fastify sets Node's
 * `requestTimeout` to 0 (none) unless told otherwise, so a client that
 * trickles its body holds the connection for good; these options give the
 * server the timeouts Express and Hono have (408 past them), plus
 * {@link fastifyFrameworkErrors}. Node reads the timeouts when the server is
 * created, which is why they must go to `Fastify()` and cannot be set when a
 * service is registered on an existing instance.
 */
export function fastifyOptions(
  options: {
    profile?: "none" | "a2a";
    responseType?: string;
    /** Time to receive a whole request, body included, in ms. Default 300 000. */
    requestTimeoutMs?: number;
    /** Time to receive the headers, in ms (at most requestTimeoutMs). Default 60 000. */
    headersTimeoutMs?: number;
  } = {},
) {
  const requestTimeout = options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS;
  if (!Number.isInteger(requestTimeout) || requestTimeout < 1)
    throw new Error(`fastifyOptions: requestTimeoutMs must be a positive integer, not ${requestTimeout}`);
  const headersTimeout = Math.min(options.headersTimeoutMs ?? DEFAULT_HEADERS_TIMEOUT_MS, requestTimeout);
  return {
    frameworkErrors: fastifyFrameworkErrors(options),
    clientErrorHandler: fastifyClientErrors(options),
    requestTimeout,
    // Node checks the deadlines every connectionsCheckingInterval (30 s by default): a short timeout is checked more often.
    http: { requestTimeout, headersTimeout, connectionsCheckingInterval: Math.min(30_000, Math.max(250, Math.ceil(requestTimeout / 4))) },
  };
}

/** The google.rpc.Status of what node's HTTP parser refuses before any route runs, by its error code. */
function clientErrorStatus(code: string | undefined): RpcError {
  switch (code) {
    case "HPE_HEADER_OVERFLOW":
      return new RpcError(Code.RESOURCE_EXHAUSTED, "the request headers are too large", [], { httpStatus: 431 });
    case "ERR_HTTP_REQUEST_TIMEOUT":
      return new RpcError(Code.DEADLINE_EXCEEDED, "the request did not arrive in time", [], { httpStatus: 408 });
    default:
      return new RpcError(Code.INVALID_ARGUMENT, "the request is not valid HTTP", [], { httpStatus: 400 });
  }
}

/**
 * Fastify answers what node's HTTP parser refuses (headers too large: 431, a
 * request that took too long: 408, malformed HTTP: 400) in its own JSON.
 * Pass this as the root `clientErrorHandler` option (fastifyOptions() does)
 * to answer those with a google.rpc.Status body like every other error.
 */
export function fastifyClientErrors(options: { profile?: "none" | "a2a"; responseType?: string } = {}) {
  const a2a = options.profile === "a2a";
  const type = options.responseType ?? (a2a ? "application/a2a+json" : "application/json");
  return (
    error: Error & { code?: string },
    socket: { writable: boolean; destroyed: boolean; write(data: string): unknown; destroy(error?: Error): unknown },
  ): void => {
    // A reset connection has nobody left to answer.
    if (error.code === "ECONNRESET" || socket.destroyed) return;
    let err = clientErrorStatus(error.code);
    if (a2a) err = withA2AErrorInfo(err, "INVALID_REQUEST");
    const body = JSON.stringify(err.toStatusBody());
    const reason = err.httpStatus === 431 ? "Request Header Fields Too Large" : err.httpStatus === 408 ? "Request Timeout" : "Bad Request";
    if (socket.writable) {
      socket.write(
        `HTTP/1.1 ${err.httpStatus} ${reason}\r\nContent-Type: ${type}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    }
    socket.destroy(error);
  };
}
