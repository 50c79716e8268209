import { Code, RpcError } from "../errors.js";
import { decodeChunks, utf8Length } from "../utf8.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { createHttpHandler, type HttpHandlerOptions } from "./http-json.js";
import type { UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "./request.js";
import { badPath, originPath, stripMountSegments } from "./mount.js";
import { listenerOf, type Listener } from "./hosts.js";
import { drainBeforeClose } from "./drain.js";
import { honoNodePair, type NodePair } from "./hono-node.js";
import { closeWhenStalled } from "./stall.js";
import { healthAnswer, type HealthAnswer, type HealthOptions } from "./health.js";
import type { SseStream } from "./sse.js";

/** Extra facts an adapter knows about a fetch request. */
export interface FetchRequestInfo {
  /**
   * The framework's route pattern that matched (Hono's `c.req.routePath`, e.g.
   * `/a2a/*`): its segments before the wildcard are the mount point, dropped
   * before routing. Default: nothing is dropped.
   */
  readonly routePattern?: string;
  /** The framework's request object (Hono's `Context`), for the context factory. Default: the Request. */
  readonly native?: unknown;
  /**
   * The host's hook that keeps work after the answer alive (a Worker's
   * `(p) => ctx.waitUntil(p)`), handed to handlers as `ctx.waitUntil`.
   * Default: Hono's `c.executionCtx.waitUntil` when `native` is a Hono
   * context that has one; else none.
   */
  readonly waitUntil?: (promise: Promise<unknown>) => void;
}

/**
 * Serves a web-standard Request. Never rejects. The Response comes
 * synchronously when the core needed nothing async (a GET whose handler
 * returned a message, an error before the body): @hono/node-server writes
 * such a Response at once, without its per-request close listener.
 */
export type FetchHandler = (request: Request, info?: FetchRequestInfo) => Response | Promise<Response>;

/**
 * The core over web-standard Request/Response: for Hono, and for Bun, Deno,
 * Cloudflare Workers or anything else that speaks fetch.
 */
export function createFetchHandler<Ctx extends HandlerContext = HandlerContext, Native = unknown>(
  routes: readonly RouteBinding[],
  handlers: object,
  options?: HttpHandlerOptions<Ctx, Native>,
): FetchHandler {
  return fetchHandlerOf(createHttpHandler(routes, handlers, options));
}

/** Serves web-standard Requests with a core handler (HTTP+JSON's, or another binding's such as JSON-RPC). */
export function fetchHandlerOf(handle: UniversalHandler): FetchHandler {
  return (request, info) => {
    const req = new FetchRequest(request, info);
    const answer = handle(req);
    if (answer instanceof Promise) return answer.then((response) => answerOf(response, req));
    return answerOf(answer, req);
  };
}

const encoder = new TextEncoder();

/** The last chunk of text sharedBytes() encoded, and its bytes. */
let lastText: string | undefined;
let lastBytes: Uint8Array = new Uint8Array(0);

/**
 * A chunk's bytes, the same array for the same text: an event shared by
 * many streams (shared-encoding.ts) is one text, encoded once here rather
 * than once per subscriber. Only where the host writes the bytes to node's
 * response, which never changes or detaches them; another host may take
 * over (transfer) what it is given, so each stream gets its own there.
 */
function sharedBytes(text: string): Uint8Array {
  if (text !== lastText) {
    lastBytes = encoder.encode(text);
    lastText = text;
  }
  return lastBytes;
}

/** The Response, once a body that was never read is drained where the connection closes after the answer (drain.ts). */
function answerOf(response: UniversalServerResponse, req: FetchRequest): Response | Promise<Response> {
  const unread = typeof response.body === "string" ? req.beforeAnswer() : undefined;
  return unread === undefined ? toResponse(response, req) : unread.then(() => toResponse(response, req));
}

function toResponse(response: UniversalServerResponse, req: FetchRequest): Response {
  const { status, body } = response;
  const headers = toHeaders(response.headers);
  if (typeof body === "string") return new Response(body, { status, headers });
  const source = new SseSource(body, req);
  const readable = new ReadableStream<Uint8Array>(source);
  // The request's own signal (workerd with `enable_request_signal`) may tell
  // before any cancel(): a stream waiting for its next event notices then. Not
  // on @hono/node-server, which cancels the body itself when node's response
  // closes (SseSource.cancel()): watching the signal there would make two
  // AbortControllers per open stream (the host's, made on first read, and ours).
  if (!req.onNode) req.onAbort(() => body.close());
  body.writerCloses();
  return new Response(readable, { status, headers });
}

/**
 * An SSE stream as a ReadableStream's source, driven by callbacks: each
 * pull() enqueues the stream's next chunk if it has one now, else the
 * stream's wake enqueues it when it comes. Not an async pull() awaiting
 * `next()`: an open stream waits most of its life, and those promises per
 * event were held from one event to the next, per stream. One chunk per
 * pull, so the reader's pace (the ReadableStream's queue) is the
 * backpressure, as before.
 */
class SseSource implements UnderlyingDefaultSource<Uint8Array> {
  /**
   * Set by cancel(), or once the stream is closed: a chunk or end that comes
   * after (a wake still on its way) must neither be enqueued nor close it again,
   * which would throw, from a promise's callback (an unhandled rejection).
   */
  private ended = false;
  private controller: ReadableStreamDefaultController<Uint8Array> | undefined;
  private readonly wake = () => {
    if (this.controller !== undefined) this.fill(this.controller);
  };

  constructor(
    private readonly stream: SseStream,
    private readonly req: FetchRequest,
  ) {}

  start(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.controller = controller;
    // Not while the reader is behind; a copy, as the host may take over (transfer) what it is given.
    this.stream.keepAliveTo((comment) => {
      if (!this.ended && (controller.desiredSize ?? 0) > 0) controller.enqueue(comment.slice());
    });
  }

  pull(controller: ReadableStreamDefaultController<Uint8Array>): void {
    this.fill(controller);
  }

  /** The stream's next chunk enqueued, or the end, if it is there now. */
  private fill(controller: ReadableStreamDefaultController<Uint8Array>): void {
    if (this.ended) return;
    let chunk: string | undefined | null;
    try {
      chunk = this.stream.pull(this.wake);
    } catch {
      chunk = undefined;
    }
    if (chunk === null || this.ended) return;
    if (chunk === undefined) {
      this.ended = true;
      this.req.finish();
      controller.close();
    } else {
      controller.enqueue(this.req.onNode ? sharedBytes(chunk) : encoder.encode(chunk));
    }
  }

  // The reader went away (the client disconnected, or the host gave up on
  // the answer): the handler's signal fires and its iterator gets return().
  cancel(): void {
    this.ended = true;
    this.req.abort();
    this.stream.close();
  }
}

function toHeaders(h: UniversalServerResponse["headers"]): Headers | Record<string, string> {
  let plain = true;
  for (const name in h) if (Array.isArray(h[name])) plain = false;
  // A plain object keeps @hono/node-server (and others) on their fast path.
  if (plain) return h as Record<string, string>;
  const out = new Headers();
  for (const name in h) {
    const v = h[name]!;
    if (Array.isArray(v)) for (const x of v) out.append(name, x);
    else out.set(name, v);
  }
  return out;
}

/** A fetch Request as a {@link UniversalServerRequest}. */
class FetchRequest implements UniversalServerRequest {
  readonly method: string;
  readonly rawPath: string;
  readonly rawQuery: string;
  readonly native: unknown;
  private controller: AbortController | undefined;
  private unlink: (() => void) | undefined;
  /** On @hono/node-server: node's request and response under the Request (hono-node.ts). */
  private readonly node: NodePair | undefined;
  private readonly nodeHeaders: Record<string, string | string[] | undefined> | undefined;
  /** The host's waitUntil once looked up; null: there is none. */
  private hostWaitUntil: ((promise: Promise<unknown>) => void) | null | undefined;

  constructor(
    private readonly request: Request,
    private readonly info: FetchRequestInfo | undefined,
  ) {
    this.method = request.method.toUpperCase();
    this.native = info?.native ?? request;
    this.node = honoNodePair(info?.native);
    // Reading single headers from node's request spares building the
    // Request's whole Headers, which @hono/node-server does lazily and which
    // costs more than the rest of a small GET.
    this.nodeHeaders = this.node?.incoming.headers;
    let rest: string;
    const target = this.node?.incoming.url;
    if (typeof target === "string") {
      // On node, the target exactly as sent: the Request's URL has `.`
      // segments resolved and escapes changed by the URL parser.
      rest = originPath(target);
    } else {
      const url = request.url;
      const scheme = url.indexOf("://");
      let start = scheme >= 0 ? url.indexOf("/", scheme + 3) : url.indexOf("/");
      if (start < 0) start = url.length;
      rest = url.slice(start) || "/";
    }
    const hash = rest.indexOf("#");
    if (hash >= 0) rest = rest.slice(0, hash);
    // A dot segment in the mount prefix stays in, so that the router refuses it.
    if (info?.routePattern !== undefined && badPath(pathPart(rest)) === undefined) {
      rest = stripMountSegments(rest, info.routePattern);
    }
    const q = rest.indexOf("?");
    this.rawPath = q >= 0 ? rest.slice(0, q) || "/" : rest;
    this.rawQuery = q >= 0 ? rest.slice(q + 1) : "";
  }

  /** Looked up on first use: only the task engine's SendMessage asks. */
  get waitUntil(): ((promise: Promise<unknown>) => void) | undefined {
    // @hono/node-server gives Hono no ExecutionContext: no lookup (and no throw) there.
    this.hostWaitUntil ??= this.info?.waitUntil ?? (this.node === undefined ? honoWaitUntil(this.info?.native) : undefined) ?? null;
    return this.hostWaitUntil ?? undefined;
  }

  /** On @hono/node-server only: elsewhere the runtime does not say where it listens. */
  listener(): Listener | undefined {
    return this.node === undefined ? undefined : listenerOf(this.node.incoming.socket);
  }

  /** On @hono/node-server only: elsewhere the runtime has no socket to watch. */
  closeWhenStalled(ms: number): void {
    if (this.node !== undefined) closeWhenStalled(this.node.incoming.socket, ms);
  }

  /** On @hono/node-server: the drain of a body never read, when the connection closes after the answer. */
  beforeAnswer(): Promise<void> | undefined {
    return this.node === undefined ? undefined : drainBeforeClose(this.node.incoming, this.node.outgoing);
  }

  header(name: string): string | undefined {
    if (this.nodeHeaders) {
      const v = this.nodeHeaders[name];
      return Array.isArray(v) ? v.join(", ") : v;
    }
    return this.request.headers.get(name) ?? undefined;
  }

  get headers(): Headers {
    return this.request.headers;
  }

  get signal(): AbortSignal {
    if (!this.controller) {
      const controller = new AbortController();
      this.controller = controller;
      const upstream = this.request.signal;
      if (upstream.aborted) controller.abort(new RpcError(Code.CANCELLED, "the client went away"));
      else {
        const onAbort = () => controller.abort(new RpcError(Code.CANCELLED, "the client went away"));
        upstream.addEventListener("abort", onAbort, { once: true });
        this.unlink = () => upstream.removeEventListener("abort", onAbort);
      }
    }
    return this.controller.signal;
  }

  /** The response stream was canceled: fire the handler's signal. */
  abort(): void {
    this.unlink?.();
    if (!this.controller) {
      this.controller = new AbortController();
    }
    if (!this.controller.signal.aborted) this.controller.abort(new RpcError(Code.CANCELLED, "the client went away"));
  }

  /** The answer is complete: stop listening to the request's signal. */
  finish(): void {
    this.unlink?.();
  }

  /** Whether this is @hono/node-server's request, node's own request and response under it (hono-node.ts). */
  get onNode(): boolean {
    return this.node !== undefined;
  }

  /** Runs `f` when the request's signal fires (the client went away). */
  onAbort(f: () => void): void {
    const s = this.signal;
    if (s.aborted) f();
    else s.addEventListener("abort", f, { once: true });
  }

  readBody(limit: number): Promise<string> {
    // Through header(): on node that spares building the Request's Headers.
    const length = this.header("content-length");
    const declared = Number(length);
    if (declared > limit) return this.refuse(declared, limit);
    if (length !== undefined && length.trim() !== "" && Number.isInteger(declared)) {
      // The HTTP layer holds the body to its Content-Length, so the fast path
      // (e.g. @hono/node-server reads the socket directly) is safe here. One
      // promise from the read to the text, no async function around it: each
      // hop through the microtask queue shows on a small POST.
      // On node the length is node's request's: should a middleware have
      // swapped the Request for one with another body, the limit still holds.
      const text = this.request.text();
      return this.nodeHeaders ? text.then((t) => withinLimit(t, limit), readFailed) : text.catch(readFailed);
    }
    return this.readStream(limit);
  }

  /** Over the limit by its Content-Length: what is sent is read and dropped (within bounds), then the 413. */
  private async refuse(declared: number, limit: number): Promise<never> {
    if (declared <= DISCARD_MAX_BYTES) await discard(this.request.body?.getReader(), 0);
    throw tooLarge(limit);
  }

  /** A body without a Content-Length (chunked, or a Request made in code): read chunk by chunk, counting. */
  private async readStream(limit: number): Promise<string> {
    const body = this.request.body;
    if (!body) return "";
    const reader = body.getReader();
    const chunks: Uint8Array[] = [];
    let size = 0;
    for (;;) {
      let r: ReadableStreamReadResult<Uint8Array>;
      try {
        r = await reader.read();
      } catch (e) {
        throw new RpcError(Code.CANCELLED, "reading the request body failed", [], { cause: e });
      }
      if (r.done) break;
      size += r.value.byteLength;
      if (size > limit) {
        await discard(reader, size);
        throw tooLarge(limit);
      }
      chunks.push(r.value);
    }
    return decodeChunks(chunks, size);
  }
}

function withinLimit(text: string, limit: number): string {
  if (text.length * 3 > limit && utf8Length(text) > limit) throw tooLarge(limit);
  return text;
}

function readFailed(e: unknown): never {
  throw new RpcError(Code.CANCELLED, "reading the request body failed", [], { cause: e });
}

function pathPart(target: string): string {
  const q = target.indexOf("?");
  return q >= 0 ? target.slice(0, q) : target;
}

/**
 * The waitUntil of Hono's `c.executionCtx`, which a Hono context has where
 * the runtime passed an ExecutionContext to Hono's fetch (Workers). Hono's
 * getter throws where there is none (Node, Bun, Deno).
 */
function honoWaitUntil(native: unknown): ((promise: Promise<unknown>) => void) | undefined {
  if (native === null || typeof native !== "object" || !("executionCtx" in native)) return undefined;
  let ctx: { waitUntil?: unknown } | undefined;
  try {
    ctx = (native as { executionCtx?: { waitUntil?: unknown } }).executionCtx;
  } catch {
    return undefined;
  }
  const hook = ctx?.waitUntil;
  // Called as the host's method: workerd's ExecutionContext checks its receiver.
  return typeof hook === "function" ? (promise) => void hook.call(ctx, promise) : undefined;
}

/**
 * Fetch glue of the health endpoints (health.ts), for Workers, Deno, Bun:
 * the answer to GET or HEAD of `/healthz` and `/readyz`, else undefined, so
 * the app's own handler takes the request:
 * `fetch: (req) => health(req) ?? app.fetch(req)`.
 */
export function healthFetch(options?: HealthOptions): (request: Request) => Response | Promise<Response> | undefined {
  const health = healthAnswer(options);
  return (request) => {
    const a = health(request.method.toUpperCase(), pathOfUrl(request.url));
    if (a === undefined) return undefined;
    return a instanceof Promise ? a.then(healthResponse) : healthResponse(a);
  };
}

/**
 * Hono 4 glue of the health endpoints: a middleware answering GET and HEAD
 * of `/healthz` and `/readyz`, passing every other request on; `app.use`
 * it before the services' routes: `app.use(healthHono({ ready: () => agent.ready() }))`.
 */
export function healthHono(
  options?: HealthOptions,
): (c: { readonly req: { readonly method: string; readonly path: string } }, next: () => Promise<void>) => Promise<Response | undefined> {
  const health = healthAnswer(options);
  return async (c, next) => {
    const a = health(c.req.method.toUpperCase(), c.req.path);
    if (a === undefined) {
      await next();
      return undefined;
    }
    return healthResponse(await a);
  };
}

function healthResponse(a: HealthAnswer): Response {
  return new Response(a.body === "" ? null : a.body, { status: a.status, headers: a.headers });
}

/** The path and query of an absolute URL, as sent (no parsing, so no escapes changed). */
function pathOfUrl(url: string): string {
  const scheme = url.indexOf("://");
  const start = scheme >= 0 ? url.indexOf("/", scheme + 3) : url.indexOf("/");
  return start < 0 ? "/" : url.slice(start);
}

/** How much of an over-limit body is read and dropped so that the 413 reaches the client (see node.ts). */
const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
const DISCARD_MAX_MS = 5_000;

/** Reads and drops the rest of a body, within the bounds; then cancels it. */
async function discard(reader: ReadableStreamDefaultReader<Uint8Array> | undefined, alreadyRead: number): Promise<void> {
  if (reader === undefined) return;
  let bytes = alreadyRead;
  const until = Date.now() + DISCARD_MAX_MS;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), DISCARD_MAX_MS);
  });
  try {
    while (bytes <= DISCARD_MAX_BYTES && Date.now() < until) {
      const r = await Promise.race([reader.read(), timeout]);
      if (r === "timeout" || r.done) break;
      bytes += r.value.byteLength;
    }
  } catch {
    // The client went away: nothing left to drain.
  } finally {
    clearTimeout(timer);
    reader.cancel().catch(() => {});
  }
}

function tooLarge(limit: number): RpcError {
  return new RpcError(Code.RESOURCE_EXHAUSTED, `request body is larger than ${limit} bytes`, [], { httpStatus: 413 });
}
