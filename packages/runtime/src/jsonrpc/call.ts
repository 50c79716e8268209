// One request object of a JSON-RPC body served (the body itself, or one
// element of a batch): its envelope, its method under the request's
// version, the context factory's second call, its params decoded, the call,
// and its answer, a response object or a stream.
import { create, type JsonValue, type Message } from "@bufbuild/protobuf";
import { A2A_DOMAIN } from "../a2a.js";
import { Code, RpcError, errorInfo } from "../errors.js";
import { applyContext, ContextRefusal, handlerOf, notImplemented, refusalStatus, type AnyHandler } from "../server/call-setup.js";
import { ServerContext } from "../server/context.js";
import type { Deadline } from "../server/deadline.js";
import { streamFailure } from "../server/error-answer.js";
import type { UniversalServerRequest } from "../server/request.js";
import { SseStream, startSseStream } from "../server/sse.js";
import { encodeOnce } from "../shared-encoding.js";
import { checkDecodedTenant, checkPathBound, checkPathValue, jsonTenant } from "../tenant.js";
import { jsonError } from "../transcoding/json.js";
import { readLenient, writeResult } from "../transcoding/message-json.js";
import { checkRequired } from "../transcoding/required.js";
import { errorObject, type JsonRpcBinding } from "./binding.js";
import type { JsonRpcDialectMethod } from "./dialect.js";
import { envelopeError, errorResponse, sseEvent, sseResultFrame, type Id, type JsonRpcResponse } from "./envelope.js";
import { JsonRpcCode } from "./errors.js";
import type { JsonRpcMethod, RequestVersion } from "./methods.js";

/** What one request object of a body turned into. */
export type Outcome =
  | { kind: "response"; response: JsonRpcResponse; headers: Headers | undefined; status?: number }
  | { kind: "stream"; id: Id; stream: SseStream; headers: Headers | undefined }
  | { kind: "none" };

/** What the context factory's first call, on the headers, gave: its fields and the response headers it set. */
export interface Authenticated {
  readonly fields: object;
  readonly headers: Headers | undefined;
}

const NONE: Outcome = { kind: "none" };

/** A response, or nothing for a notification. */
function answer(notification: boolean, response: JsonRpcResponse, headers?: Headers): Outcome {
  return notification ? NONE : { kind: "response", response, headers };
}

/** Serves one request object of a body (the body itself, or one element of a batch). */
export async function serveOne(
  b: JsonRpcBinding,
  req: UniversalServerRequest,
  item: unknown,
  inBatch: boolean,
  version: RequestVersion,
  extensions: readonly string[],
  early: Authenticated | undefined,
  deadline: Deadline | undefined,
): Promise<Outcome> {
  // 1. The envelope.
  const malformed = envelopeError(item);
  if (malformed !== undefined) return { kind: "response", response: malformed, headers: undefined };
  const o = item as Record<string, unknown>;
  const name = o["method"] as string;
  const notification = !("id" in o);
  const rid = (notification ? null : o["id"]) as Id;
  // The version first (§3.6.2): a v1.0 method without A2A-Version is refused as such, a v0.3 one
  // served; a name of neither is not found when v0.3 is served, and a version not served at all is refused.
  const spoken = version.dialect ? b.table.dialectMethods.get(name) : undefined;
  const tr = spoken?.tr;
  const own = spoken === undefined ? b.table.methods.get(name) : undefined;
  const method = spoken?.method ?? own;
  if (spoken === undefined && version.error && (own !== undefined || !version.dialect)) {
    return answer(notification, errorResponse(rid, errorObject(b, version.error, own?.rpc)));
  }
  if (method === undefined) {
    return answer(
      notification,
      errorResponse(rid, {
        code: JsonRpcCode.METHOD_NOT_FOUND,
        message: `method not found: ${JSON.stringify(name)}`,
        // §9.5: data is a list of typed details.
        data: b.a2a ? [errorInfo("METHOD_NOT_FOUND", A2A_DOMAIN, { method: name })] : { method: name },
      }),
    );
  }
  if (method.streaming && (inBatch || notification)) {
    const message = `${method.name} streams its answer; send it alone, with an id`;
    return answer(notification, errorResponse(rid, { code: JsonRpcCode.INVALID_REQUEST, message }));
  }
  const fn = handlerOf(b.handlers, method.rpc);
  if (fn === undefined) return answer(notification, errorResponse(rid, errorObject(b, notImplemented(method.route, b.a2a), method.rpc)));
  // A stream is not unary: no deadline (and the POST holds nothing else, streams are not batched).
  if (method.streaming) deadline?.lift();

  // 2. The context, before the params are decoded, with the rpc and the
  // tenant the params name (tenant.ts): the factory's second call. It runs
  // always, not only when the params name a tenant: the first call saw
  // no rpc, and a factory that refuses by rpc must see it before the
  // handler runs. The first call's fields are the base its fields replace.
  let params = o["params"];
  let ctx: ServerContext;
  try {
    if (tr) params = tr.params(params ?? {});
    ctx = requestContext(b, req, method, tr !== undefined, params, extensions, early, deadline);
  } catch (e) {
    return answer(notification, errorResponse(rid, errorObject(b, e, method.rpc)));
  }
  if (b.context) {
    const refused = await secondContextCall(b, method, ctx, notification, rid);
    if (refused !== undefined) return refused;
  }

  // 3. The params, 4. the call.
  try {
    const message = decodeParams(b, method, params, ctx);
    if (method.streaming) return await startStream(b, method, fn, message, ctx, rid, tr);
    let result = fn.call(b.handlers, message, ctx);
    if (result instanceof Promise) result = await result;
    return answer(notification, { jsonrpc: "2.0", id: rid, result: encode(b, method, result, tr) }, ctx.touchedHeaders());
  } catch (e) {
    return answer(notification, errorResponse(rid, errorObject(b, e, method.rpc)), ctx.touchedHeaders());
  }
}

/** The request's context: the rpc, the tenant its params name (checked as a path value), the first call's fields; throws on bad params. */
function requestContext(
  b: JsonRpcBinding,
  req: UniversalServerRequest,
  method: JsonRpcMethod,
  dialect: boolean,
  params: unknown,
  extensions: readonly string[],
  early: Authenticated | undefined,
  deadline: Deadline | undefined,
): ServerContext {
  if (params !== undefined && params !== null && (typeof params !== "object" || Array.isArray(params))) {
    throw new RpcError(
      Code.INVALID_ARGUMENT,
      `params must be a JSON object (${method.input.typeName}), not ${Array.isArray(params) ? "an array" : typeof params}`,
    );
  }
  const raw = method.tenantField ? jsonTenant(params) : undefined;
  if (raw) checkPathValue("tenant", raw);
  const ctx = new ServerContext(method.rpc, raw || undefined, req, extensions, method.streaming ? undefined : deadline?.signal);
  if (dialect) ctx.a2aDialect = b.table.dialect!.version;
  if (early !== undefined) Object.assign(ctx, early.fields);
  return ctx;
}

/**
 * The context factory's second call, with the rpc and tenant: undefined once
 * its fields are merged, else the refusal's outcome (a merge that failed is
 * the factory's too here): 401/403 for UNAUTHENTICATED/PERMISSION_DENIED.
 */
async function secondContextCall(
  b: JsonRpcBinding,
  method: JsonRpcMethod,
  ctx: ServerContext,
  notification: boolean,
  rid: Id,
): Promise<Outcome | undefined> {
  let refused: ContextRefusal | undefined;
  try {
    const r = applyContext(b.context!, ctx.factoryInput<unknown>(method.route), ctx);
    refused = r instanceof Promise ? await r : r;
  } catch (e) {
    refused = new ContextRefusal(e);
  }
  if (refused === undefined) return undefined;
  const err = b.errors.toRpcError(refused.error, method.rpc, "context");
  if (notification) return NONE;
  const status = refusalStatus(err);
  const response = errorResponse(rid, errorObject(b, err, method.rpc));
  return status === undefined
    ? { kind: "response", response, headers: ctx.touchedHeaders() }
    : { kind: "response", response, headers: ctx.touchedHeaders(), status };
}

/** The params: the request message's ProtoJSON (absent is an empty message), its REQUIRED fields, and under A2A its tenant and path-bound ids. */
function decodeParams(b: JsonRpcBinding, method: JsonRpcMethod, params: unknown, ctx: ServerContext): Message {
  let message: Message;
  // Unlike HTTP+JSON bodies, an unknown enum name is read as unset here
  // (protobuf's ignore_unknown_fields rule): the A2A JS SDK's JSON-RPC
  // client sends `"status": "UNRECOGNIZED"` for an unset ListTasks filter
  // (test/e2e/interop/DEVIATIONS.md).
  try {
    message = params == null ? create(method.input) : readLenient(method.input, method.json?.input, params as JsonValue);
  } catch (e) {
    throw jsonError(method.input, params, e, undefined);
  }
  checkRequired(method.input, message, method.json?.input?.complete);
  if (b.a2a) {
    // The decoded request acts for the tenant the context factory saw, and its path-bound ids pass the path's rule.
    checkDecodedTenant(message, method.tenantField, ctx.tenant, "params", "params");
    checkPathBound(message, method.pathBound);
  }
  return message;
}

/** A result's JSON, in the dialect's shape when there is one. */
function encode(b: JsonRpcBinding, method: JsonRpcMethod, value: unknown, tr: JsonRpcDialectMethod | undefined): unknown {
  const json = writeResult(method.output, method.json?.output, value, b.a2a, undefined, b.onSkip);
  return tr ? tr.result(json as JsonValue) : json;
}

/** A stream: an error before its first message is a plain JSON-RPC error answer; after it, a last event with the error. */
async function startStream(
  b: JsonRpcBinding,
  method: JsonRpcMethod,
  fn: AnyHandler,
  message: Message,
  ctx: ServerContext,
  id: Id,
  tr: JsonRpcDialectMethod | undefined,
): Promise<Outcome> {
  let stream: SseStream;
  // A task's event is one object for all its subscribers: its result's JSON is made once (shared-encoding.ts), the id put around it per stream.
  const [before, after] = sseResultFrame(id);
  const result = (value: unknown) => JSON.stringify(encode(b, method, value, tr));
  try {
    stream = await startSseStream(
      fn.call(b.handlers, message, ctx) as AsyncIterable<unknown>,
      (value) => before + encodeOnce(value, b, tr ?? method, result) + after,
      (e) => sseEvent(errorResponse(id, errorObject(b, streamFailure(e, ctx.signal), method.rpc, "stream"))),
      b.keepAliveMs,
    );
  } catch (e) {
    const error = errorObject(b, e, method.rpc);
    // A dialect's clients read a stream's answer as a stream, its first error too (v0.3's SDKs refuse another media type).
    if (tr) return { kind: "stream", id, stream: SseStream.of(sseEvent(errorResponse(id, error))), headers: ctx.touchedHeaders() };
    return { kind: "response", response: errorResponse(id, error), headers: ctx.touchedHeaders() };
  }
  return { kind: "stream", id, stream, headers: ctx.touchedHeaders() };
}
