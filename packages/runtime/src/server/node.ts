import type { IncomingMessage, ServerResponse } from "node:http";
import { Code, RpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { createHttpHandler, type HttpHandlerOptions } from "./http-json.js";
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "./request.js";
import { SseStream } from "./sse.js";
import { originPath } from "./mount.js";
import { closeWhenStalled } from "./stall.js";
import { listenerOf, type Listener } from "./hosts.js";
import { discardRest, drainBeforeClose } from "./drain.js";
import { healthAnswer, type HealthAnswer, type HealthOptions } from "./health.js";

/** Extra facts an adapter knows about a node request. */
export interface NodeRequestInfo {
  /** The URL below the mount point (path and query, still encoded). Default `req.url`. */
  readonly url?: string;
  /** The framework's request object, for the context factory. */
  readonly native?: unknown;
  /**
   * With the `fallthrough` option: called instead of answering 404 for a path
   * that no route of the service owns (Express's `next`).
   */
  readonly next?: () => void;
}

/** Serves one node:http request/response pair. Never rejects. */
export type NodeHandler = (req: IncomingMessage, res: ServerResponse, info?: NodeRequestInfo) => Promise<void>;

/**
 * The core over node:http: what the Express and Fastify adapters (and a bare
 * `http.createServer`) call.
 */
export function createNodeHandler<Ctx extends HandlerContext = HandlerContext, Native = unknown>(
  routes: readonly RouteBinding[],
  handlers: object,
  options?: HttpHandlerOptions<Ctx, Native>,
): NodeHandler {
  return nodeHandlerOf(createHttpHandler(routes, handlers, options), { fallthrough: options?.fallthrough === true });
}

/**
 * Serves node:http requests with a core handler (HTTP+JSON's, or another
 * binding's such as JSON-RPC). With `fallthrough`, an unrouted path goes to
 * `info.next` (Express's `next`) instead of its 404.
 */
export function nodeHandlerOf(handle: UniversalHandler, options?: { readonly fallthrough?: boolean }): NodeHandler {
  const fallthrough = options?.fallthrough === true;
  const write = (response: UniversalServerResponse, request: NodeRequest, res: ServerResponse, info?: NodeRequestInfo) => {
    if (fallthrough && response.unrouted && info?.next) {
      try {
        info.next();
        return Promise.resolve();
      } catch (e) {
        return Promise.reject(e);
      }
    }
    return writeNodeResponse(res, response, request);
  };
  return (req, res, info) => {
    const request = new NodeRequest(req, res, info?.url ?? req.url ?? "/", info?.native);
    const answer = handle(request);
    // A synchronous answer is written at once, not a microtask later.
    if (answer instanceof Promise) return answer.then((response) => write(response, request, res, info));
    return write(answer, request, res, info);
  };
}

/**
 * Runs the core on a node request; the caller writes the answer (Fastify
 * does, through its reply). The answer is there at once when the core needed
 * nothing async.
 */
export function serveNode(
  handle: UniversalHandler,
  req: IncomingMessage,
  res: ServerResponse,
  info?: NodeRequestInfo,
): { request: NodeRequest; response: UniversalServerResponse | Promise<UniversalServerResponse> } {
  const request = new NodeRequest(req, res, info?.url ?? req.url ?? "/", info?.native);
  return { request, response: handle(request) };
}

/** A node:http request as a {@link UniversalServerRequest}. */
export class NodeRequest implements UniversalServerRequest {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  private controller: AbortController | undefined;
  private gone = false;
  private webHeaders: Headers | undefined;

  constructor(
    private readonly req: IncomingMessage,
    res: ServerResponse,
    url: string,
    readonly native: unknown,
  ) {
    this.method = (req.method ?? "GET").toUpperCase();
    url = originPath(url);
    const q = url.indexOf("?");
    const h = url.indexOf("#");
    const pathEnd = q >= 0 ? q : h >= 0 ? h : url.length;
    this.rawPath = url.slice(0, pathEnd) || "/";
    this.rawQuery = q >= 0 ? url.slice(q + 1, h > q ? h : url.length) : "";
    res.once("close", () => {
      if (res.writableFinished) return;
      this.gone = true;
      this.controller?.abort(new RpcError(Code.CANCELLED, "the client went away"));
    });
  }

  /** True once the client went away before the answer was complete. */
  get clientGone(): boolean {
    return this.gone;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      this.controller = new AbortController();
      if (this.gone) this.controller.abort(new RpcError(Code.CANCELLED, "the client went away"));
    }
    return this.controller.signal;
  }

  listener(): Listener | undefined {
    return listenerOf(this.req.socket);
  }

  closeWhenStalled(ms: number): void {
    closeWhenStalled(this.req.socket, ms);
  }

  /** Before an answer on `res`: the drain of a body never read, when the connection closes after it (drain.ts). */
  beforeAnswer(res: ServerResponse): Promise<void> | undefined {
    return drainBeforeClose(this.req, res);
  }

  header(name: string): string | undefined {
    const v = this.req.headers[name];
    if (v === undefined) return undefined;
    return Array.isArray(v) ? v.join(", ") : v;
  }

  get headers(): Headers {
    if (!this.webHeaders) {
      const h = new Headers();
      const raw = this.req.rawHeaders;
      for (let i = 0; i + 1 < raw.length; i += 2) {
        try {
          h.append(raw[i]!, raw[i + 1]!);
        } catch {
          // A header value Headers refuses (e.g. a stray control character) is left out.
        }
      }
      this.webHeaders = h;
    }
    return this.webHeaders;
  }

  readBody(limit: number): Promise<string> {
    const req = this.req as IncomingMessage & { body?: unknown; _body?: boolean };
    // A body parser that ran before us (e.g. express.json()) consumed the stream.
    if (req._body === true || req.readableEnded) return Promise.resolve(preParsed(req.body, limit));
    const declared = Number(req.headers["content-length"]);
    if (declared > limit) return discardRest(req, 0).then(() => Promise.reject(tooLarge(limit)));
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      let size = 0;
      const cleanup = () => {
        req.off("data", onData);
        req.off("end", onEnd);
        req.off("error", onError);
        req.off("close", onClose);
      };
      const onData = (chunk: Buffer) => {
        size += chunk.length;
        if (size > limit) {
          cleanup();
          chunks.length = 0;
          discardRest(req, size).then(() => reject(tooLarge(limit)));
          return;
        }
        chunks.push(chunk);
      };
      const onEnd = () => {
        cleanup();
        resolve(chunks.length === 1 ? chunks[0]!.toString("utf8") : Buffer.concat(chunks).toString("utf8"));
      };
      const onError = (e: unknown) => {
        cleanup();
        reject(new RpcError(Code.CANCELLED, "reading the request body failed", [], { cause: e }));
      };
      const onClose = () => {
        if (req.complete) return;
        cleanup();
        reject(new RpcError(Code.CANCELLED, "the client went away while sending the body"));
      };
      req.on("data", onData);
      req.on("end", onEnd);
      req.on("error", onError);
      req.on("close", onClose);
    });
  }
}

function tooLarge(limit: number): RpcError {
  return new RpcError(Code.RESOURCE_EXHAUSTED, `request body is larger than ${limit} bytes`, [], { httpStatus: 413 });
}

function preParsed(body: unknown, limit: number): string {
  let text: string;
  if (body === undefined) text = "";
  else if (typeof body === "string") text = body;
  else if (body instanceof Uint8Array) text = Buffer.from(body).toString("utf8");
  else text = JSON.stringify(body);
  if (Buffer.byteLength(text) > limit) throw tooLarge(limit);
  return text;
}

/**
 * Writes the core's answer to a node:http response. SSE chunks are written
 * as they come, honouring backpressure; when the client goes away the
 * stream is closed (the handler's iterator gets `return()`).
 */
export function writeNodeResponse(res: ServerResponse, response: UniversalServerResponse, request: NodeRequest): Promise<void> {
  // Not an async function: an open stream would hold its suspended frame (and this one's) for its whole life.
  try {
    const written = writeResponse(res, response, request);
    if (written !== undefined) return written.then(undefined, () => answerFailure(res, response));
  } catch {
    answerFailure(res, response);
  }
  return Promise.resolve();
}

/** A header value node refuses, say: answer a bare 500 if nothing went out yet. */
function answerFailure(res: ServerResponse, response: UniversalServerResponse): void {
  if (response.body instanceof SseStream) response.body.close();
  if (!res.headersSent && !res.destroyed) {
    const body = JSON.stringify(new RpcError(Code.INTERNAL, "internal error").toStatusBody());
    res.writeHead(500, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  } else res.destroy();
}

/** Writes the answer: at once (undefined) or in a promise (a body that waits for the request's drain, a stream). */
function writeResponse(res: ServerResponse, response: UniversalServerResponse, request: NodeRequest): Promise<void> | undefined {
  const { status, headers, body } = response;
  if (res.headersSent || res.destroyed) {
    if (body instanceof SseStream) body.close();
    return undefined;
  }
  if (typeof body !== "string") return pumpSse(res, status, headers, body, request);
  const unread = request.beforeAnswer(res);
  if (unread === undefined) return writeBody(res, status, headers, body);
  return unread.then(() => {
    if (!res.headersSent && !res.destroyed) writeBody(res, status, headers, body);
  });
}

function writeBody(res: ServerResponse, status: number, headers: UniversalServerResponse["headers"], body: string): undefined {
  if (status === 413) res.setHeader("connection", "close");
  res.writeHead(status, { ...headers, "content-length": Buffer.byteLength(body) });
  res.end(body);
  return undefined;
}

/** Writes an SSE stream to `res` until it ends or the client leaves; resolves then (never rejects). */
function pumpSse(
  res: ServerResponse,
  status: number,
  headers: UniversalServerResponse["headers"],
  stream: SseStream,
  request: NodeRequest,
): Promise<void> {
  return new Promise<void>((resolve) => new NodeSseWriter(res, stream, resolve).start(status, headers, request));
}

/**
 * An SSE stream's writer on node:http, driven by callbacks: the stream's
 * wake when it has a chunk, the response's drain and close. Not an async
 * loop awaiting `next()`: an open stream waits most of its life, and that
 * loop's suspended frame and its promises per event were held from one event
 * to the next, per stream. Honours backpressure: nothing is taken from the
 * stream while the client is behind (the engine's subscriber queue is what
 * bounds an event backlog, see event-hub.ts).
 */
class NodeSseWriter {
  /** The client left (the response closed before its end). */
  private closed = false;
  /** Waiting for the response's drain. */
  private draining = false;
  private running = false;
  private ended = false;
  private readonly onClose = () => {
    this.closed = true;
    this.stream.close();
    this.end();
  };
  private readonly onDrain = () => {
    if (!this.draining) return;
    this.draining = false;
    this.run();
  };
  private readonly wake = () => this.run();

  constructor(
    private readonly res: ServerResponse,
    private readonly stream: SseStream,
    private readonly done: () => void,
  ) {}

  start(status: number, headers: UniversalServerResponse["headers"], request: NodeRequest): void {
    const { res, stream } = this;
    res.once("close", this.onClose);
    res.on("drain", this.onDrain);
    try {
      if (request.clientGone) return this.onClose();
      res.writeHead(status, headers);
      res.flushHeaders();
      // onClose closes the stream.
      stream.writerCloses();
      // Not while the client is behind: the events already waiting keep the connection busy.
      stream.keepAliveTo((comment) => {
        if (!res.writableNeedDrain) res.write(comment);
      });
    } catch {
      return this.fail();
    }
    this.run();
  }

  /** Writes what the stream has now; stops where it must wait (the stream's wake, or the drain). */
  private run(): void {
    if (this.running || this.draining || this.closed || this.ended) return;
    this.running = true;
    try {
      for (;;) {
        const chunk = this.stream.pull(this.wake);
        if (chunk === null || this.closed) break;
        if (chunk === undefined) {
          this.res.end();
          this.end();
          break;
        }
        if (!this.res.write(chunk) && this.res.writableNeedDrain) {
          this.draining = true;
          break;
        }
      }
    } catch {
      this.fail();
    }
    this.running = false;
  }

  private fail(): void {
    this.stream.close();
    this.res.destroy();
    this.end();
  }

  private end(): void {
    if (this.ended) return;
    this.ended = true;
    this.res.off("close", this.onClose);
    this.res.off("drain", this.onDrain);
    this.done();
  }
}

/** The Express glue: a middleware that serves every request below the mount point. */
export function nodeMiddleware(handle: NodeHandler): (req: IncomingMessage, res: ServerResponse, next: (error?: unknown) => void) => void {
  return (req, res, next) => {
    handle(req, res, { url: req.url ?? "/", native: req, next: () => next() }).catch(next);
  };
}

/**
 * Express (or node:http) glue of the health endpoints (health.ts): a
 * middleware answering GET and HEAD of `/healthz` and `/readyz` and passing
 * every other request to `next`; mount it before the services, outside any
 * tenant path: `app.use(healthExpress({ ready: () => agent.ready() }))`.
 * Without `next` (a bare node:http server) another request gets a 404.
 */
export function healthExpress(
  options?: HealthOptions,
): (req: IncomingMessage, res: ServerResponse, next?: (error?: unknown) => void) => void {
  const health = healthAnswer(options);
  return (req, res, next) => {
    const a = health((req.method ?? "GET").toUpperCase(), originPath(req.url ?? "/"));
    if (a === undefined) {
      if (next) next();
      else res.writeHead(404, { "content-length": "0" }).end();
    } else if (a instanceof Promise) a.then((answer) => writeHealth(res, answer), next ?? (() => res.destroy()));
    else writeHealth(res, a);
  };
}

function writeHealth(res: ServerResponse, a: HealthAnswer): void {
  if (res.headersSent || res.destroyed) return;
  res.writeHead(a.status, a.headers);
  res.end(a.body);
}
