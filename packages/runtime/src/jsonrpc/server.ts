// The JSON-RPC 2.0 binding (A2A spec §9) over the same handler object as
// HTTP+JSON: one POST endpoint, method names as the proto's rpc names,
// `params` the request's ProtoJSON, `result` the response's; server streams
// as text/event-stream whose events are JSON-RPC responses with the request's id.
// This file is the POST: its path, method and Host, the context factory's
// first call, the body read and parsed, one request or a batch; one request
// object is call.ts's, the envelope envelope.ts's, the methods methods.ts's.
import { parseA2AExtensions } from "../a2a.js";
import { isRpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { applyContext, checkBodyType, ContextRefusal, refusalStatus } from "../server/call-setup.js";
import type { ContextInput } from "../server/context.js";
import { withDeadline, type Deadline } from "../server/deadline.js";
import type { HttpHandlerOptions } from "../server/http-json.js";
import type { ServerOptions } from "../server/options.js";
import { withHandlerHeaders, type UniversalHandler, type UniversalServerRequest, type UniversalServerResponse } from "../server/request.js";
import { SSE_HEADERS } from "../server/sse.js";
import { stallTimeoutOf } from "../server/stall.js";
import { telemetry } from "../telemetry.js";
import { checkJson, findForbiddenKey } from "../transcoding/bounds.js";
import { combine, underneath } from "./answer-headers.js";
import { errorObject, jsonRpcBinding, type JsonRpcBinding } from "./binding.js";
import { serveOne, type Authenticated } from "./call.js";
import {
  EnvelopeError,
  errorAnswer,
  errorResponse,
  idOf,
  jsonRpcAnswer,
  noContent,
  parseEnvelopes,
  type Id,
  type JsonRpcResponse,
} from "./envelope.js";
import { JsonRpcCode } from "./errors.js";
import type { RequestVersion } from "./methods.js";
import { tracedOne } from "./traced.js";

/**
 * Options of the JSON-RPC binding: those of HTTP+JSON (`keepAliveMs` and
 * `unaryTimeoutMs` included, see {@link ServerOptions}), plus batches.
 */
export interface JsonRpcServerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown> extends ServerOptions<Ctx, Native> {
  /**
   * The most requests one batch may hold; a larger batch is refused whole
   * with -32600. `0` refuses every batch. Default 32. Batched requests run
   * one after the other; a streaming method in a batch is refused with
   * -32600 (its answer could not be one element of a JSON array).
   */
  readonly maxBatchSize?: number;
}

/** What generated adapters pass besides the user's options. */
export interface JsonRpcHandlerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown>
  extends JsonRpcServerOptions<Ctx, Native>,
    Pick<HttpHandlerOptions<Ctx, Native>, "profile"> {}

/**
 * Builds the framework-free JSON-RPC 2.0 handler for the rpcs of a route
 * table (the generated `<Service>Routes`). It answers POST at the mount
 * point; the rest of the request pipeline is that of HTTP+JSON: the body
 * limit, the context factory (first on the headers alone, before the body
 * is read; then once per request with its method and tenant, before its
 * params are decoded), ProtoJSON decoding with unknown fields
 * ignored, REQUIRED fields, the A2A version and extensions headers, and the
 * same error mapping (see {@link toJsonRpcError}). Every JSON-RPC answer,
 * errors included, is HTTP 200 `application/json`, except UNAUTHENTICATED and
 * PERMISSION_DENIED from the context factory (401/403), an oversized body
 * (413) and a wrong HTTP method or path (405/404). Notifications (requests
 * without `id`) are served and get no answer; a body of notifications only
 * is answered 204.
 */
export function createJsonRpcHandler<Ctx extends HandlerContext = HandlerContext, Native = unknown>(
  routes: readonly RouteBinding[],
  handlers: object,
  options: JsonRpcHandlerOptions<Ctx, Native> = {},
): UniversalHandler {
  const b = jsonRpcBinding(routes, handlers, options as JsonRpcHandlerOptions);
  const stallTimeoutMs = stallTimeoutOf(options.stallTimeoutMs);
  const unaryTimeoutMs = b.unaryTimeoutMs;
  return function handle(req: UniversalServerRequest): ReturnType<UniversalHandler> {
    // A client that stops reading its answer loses the connection (stall.ts).
    req.closeWhenStalled?.(stallTimeoutMs);
    if (unaryTimeoutMs === undefined) return serve(b, req, undefined, undefined);
    // The deadline covers the whole POST, body and authentication included, until a method turns out to stream.
    const seen: { id: Id } = { id: null };
    return withDeadline(
      unaryTimeoutMs,
      (deadline) => serve(b, req, deadline, seen),
      (err) => errorAnswer(b.jsonHeaders, seen.id, errorObject(b, err, undefined)),
    );
  };
}

/** Serves one POST; `seen.id` learns the id of a single request once the body is parsed (for the deadline's answer). */
async function serve(
  b: JsonRpcBinding,
  req: UniversalServerRequest,
  deadline: Deadline | undefined,
  seen: { id: Id } | undefined,
): Promise<UniversalServerResponse> {
  const wrongHost = b.hostCheck?.(req.header("host"), () => req.listener?.());
  if (wrongHost !== undefined) return errorAnswer(b.jsonHeaders, null, errorObject(b, wrongHost, undefined), wrongHost.httpStatus);
  if (req.rawPath !== "/" && req.rawPath !== "") {
    const message = `no JSON-RPC endpoint at ${req.rawPath}; POST to the mount point`;
    return errorAnswer(b.jsonHeaders, null, { code: JsonRpcCode.INVALID_REQUEST, message }, 404);
  }
  if (req.method !== "POST") {
    const message = `JSON-RPC requests are POSTed, not sent with ${req.method}`;
    return errorAnswer(b.jsonHeaders, null, { code: JsonRpcCode.INVALID_REQUEST, message }, 405, { allow: "POST" });
  }
  // Authentication before work: the factory on the headers, before one
  // byte of the body is read (a refused credential costs no reading,
  // parsing or decoding; the adapters drain what the client still sends,
  // bounded, so that it reads the answer instead of a reset).
  if (!b.context) return serveBody(b, req, undefined, deadline, seen);
  const early = await authenticate(b, req);
  if (!("fields" in early)) return early;
  // What the first call set goes out with every answer, errors of the body included, under what later steps set.
  return underneath(await serveBody(b, req, early, deadline, seen), early.headers);
}

/**
 * The context factory's first call, on the headers alone (no rpc, route or
 * tenant: they are in the body), or the answer to its refusal: id null, as
 * no request was read; 401/403 for UNAUTHENTICATED/PERMISSION_DENIED, with
 * the headers it set (WWW-Authenticate).
 */
async function authenticate(b: JsonRpcBinding, req: UniversalServerRequest): Promise<Authenticated | UniversalServerResponse> {
  let set: Headers | undefined;
  const input: ContextInput<unknown> = {
    rpc: undefined,
    route: undefined,
    tenant: undefined,
    headers: req.headers,
    signal: req.signal,
    get responseHeaders() {
      return (set ??= new Headers());
    },
    native: req.native,
  };
  const fields = {};
  let refused: ContextRefusal | undefined;
  try {
    const r = applyContext(b.context!, input, fields);
    refused = r instanceof Promise ? await r : r;
  } catch (e) {
    refused = new ContextRefusal(e);
  }
  if (refused === undefined) return { fields, headers: set };
  const err = b.errors.toRpcError(refused.error, undefined, "context");
  return jsonRpcAnswer(b.jsonHeaders, errorResponse(null, errorObject(b, err, undefined)), refusalStatus(err) ?? 200, set);
}

/** Reads, parses and serves the body, once the first call of the factory (if any) let it through. */
async function serveBody(
  b: JsonRpcBinding,
  req: UniversalServerRequest,
  early: Authenticated | undefined,
  deadline: Deadline | undefined,
  seen: { id: Id } | undefined,
): Promise<UniversalServerResponse> {
  let text: string;
  try {
    text = await req.readBody(b.bodyLimit);
  } catch (e) {
    const err = b.errors.toRpcError(e, undefined, "unary");
    return errorAnswer(
      b.jsonHeaders,
      null,
      { code: JsonRpcCode.INVALID_REQUEST, message: err.message },
      err.httpStatus === 413 ? 413 : 200,
    );
  }
  let parsed: unknown;
  try {
    checkBodyType(req.header("content-type"), b.bodyTypes, b.a2a);
    parsed = parseEnvelopes(text);
    // Forbidden keys, non-finite numbers and the element cap (transcoding/bounds.ts), before any decoding.
    const bad = jsonBounds(b, parsed);
    if (bad !== undefined) return bad;
  } catch (e) {
    return errorAnswer(b.jsonHeaders, e instanceof EnvelopeError ? e.id : null, errorObject(b, e, undefined));
  }
  const version = b.table.versionOf(req);
  const extensions = b.a2a ? parseA2AExtensions(req.header("a2a-extensions")) : [];
  if (Array.isArray(parsed)) return serveBatch(b, req, parsed, version, extensions, early, deadline);
  if (seen !== undefined) seen.id = idOf(parsed);
  const t = telemetry.on;
  const out = await (t === undefined
    ? serveOne(b, req, parsed, false, version, extensions, early, deadline)
    : tracedOne(t, b, req, parsed, () => serveOne(b, req, parsed, false, version, extensions, early, deadline)));
  switch (out.kind) {
    case "none":
      return noContent();
    case "stream":
      return { status: 200, headers: withHandlerHeaders(SSE_HEADERS, out.headers), body: out.stream };
    case "response":
      return jsonRpcAnswer(b.jsonHeaders, out.response, out.status ?? 200, out.headers);
  }
}

/** A batch: its requests one after the other, their answers in one array (204 when all were notifications). */
async function serveBatch(
  b: JsonRpcBinding,
  req: UniversalServerRequest,
  batch: readonly unknown[],
  version: RequestVersion,
  extensions: readonly string[],
  early: Authenticated | undefined,
  deadline: Deadline | undefined,
): Promise<UniversalServerResponse> {
  const refuse = (message: string) => errorAnswer(b.jsonHeaders, null, { code: JsonRpcCode.INVALID_REQUEST, message });
  if (batch.length === 0) return refuse("an empty batch is not a request");
  if (b.maxBatch === 0) return refuse("batches are not served here; send one request per POST");
  if (batch.length > b.maxBatch) return refuse(`a batch may hold at most ${b.maxBatch} requests, this one has ${batch.length}`);
  const answers: JsonRpcResponse[] = [];
  let headers: Headers | undefined;
  for (const item of batch) {
    const t = telemetry.on;
    const out = await (t === undefined
      ? serveOne(b, req, item, true, version, extensions, early, deadline)
      : tracedOne(t, b, req, item, () => serveOne(b, req, item, true, version, extensions, early, deadline)));
    if (out.kind !== "response") continue;
    answers.push(out.response);
    headers = combine(headers, out.headers);
  }
  if (answers.length === 0) return noContent();
  return jsonRpcAnswer(b.jsonHeaders, answers, 200, headers);
}

/** The answer to a body that breaks transcoding/bounds.ts's rules, or undefined. */
function jsonBounds(b: JsonRpcBinding, parsed: unknown): UniversalServerResponse | undefined {
  try {
    checkJson(parsed, b.maxElements);
    return undefined;
  } catch (e) {
    if (!isRpcError(e)) throw e;
    const id = idOf(parsed);
    // Too many elements is a 413, as a body over the size limit is.
    if (e.httpStatus === 413) return errorAnswer(b.jsonHeaders, id, { code: JsonRpcCode.INVALID_REQUEST, message: e.message }, 413);
    const key = findForbiddenKey(parsed);
    if (key !== undefined) {
      const message = `the request has the forbidden key ${JSON.stringify(key.key)} at ${key.path}`;
      return errorAnswer(b.jsonHeaders, id, { code: JsonRpcCode.INVALID_REQUEST, message });
    }
    return errorAnswer(b.jsonHeaders, id, errorObject(b, e, undefined));
  }
}
