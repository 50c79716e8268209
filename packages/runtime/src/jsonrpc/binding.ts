// What the JSON-RPC handler works out once from its route table, handlers and
// options, and every request reads: the method table, the limits, the
// answers' headers, the error handling, the context factory.
import { JSON_MEDIA_TYPE, isA2ABodyType } from "../a2a.js";
import type { RouteBinding } from "../route-binding.js";
import type { BodyTypes, ContextFactory } from "../server/call-setup.js";
import { errorAnswers, type ErrorAnswers } from "../server/error-answer.js";
import { createHostCheck } from "../server/hosts.js";
import { DEFAULT_BODY_LIMIT, onErrorOf, type ServerErrorInfo } from "../server/options.js";
import type { ResponseHeaders } from "../server/request.js";
import { DEFAULT_KEEP_ALIVE_MS } from "../server/sse.js";
import { EnvelopeError } from "./envelope.js";
import { JsonRpcCode, toJsonRpcError, type JsonRpcErrorObject } from "./errors.js";
import { methodTable, type MethodTable } from "./methods.js";
import type { JsonRpcHandlerOptions } from "./server.js";

const DEFAULT_MAX_BATCH = 32;

/** JSON-RPC's body types (see call-setup.ts's checkBodyType): JSON (§9.1). */
const JSON_BODY_TYPES: BodyTypes = {
  accepts: (type) => type === JSON_MEDIA_TYPE,
  send: JSON_MEDIA_TYPE,
  missing: `a JSON-RPC request needs Content-Type: ${JSON_MEDIA_TYPE}`,
  refuse: (message) => new EnvelopeError(JsonRpcCode.INVALID_REQUEST, message),
};

/** Under the A2A profile, A2A's JSON too; a refusal still asks for JSON, as §9.1 does. */
const A2A_BODY_TYPES: BodyTypes = { ...JSON_BODY_TYPES, accepts: isA2ABodyType };

/** A JSON-RPC handler's state, made once. */
export interface JsonRpcBinding {
  readonly a2a: boolean;
  readonly handlers: object;
  readonly table: MethodTable;
  readonly bodyLimit: number;
  readonly bodyTypes: BodyTypes;
  readonly maxBatch: number;
  readonly maxElements: number | undefined;
  /** The headers of a JSON answer: its Content-Type. */
  readonly jsonHeaders: ResponseHeaders;
  readonly errors: ErrorAnswers;
  readonly context: ContextFactory<unknown> | undefined;
  readonly keepAliveMs: number;
  readonly unaryTimeoutMs: number | undefined;
  readonly hostCheck: ReturnType<typeof createHostCheck>;
  /** A list item that cannot be written is left out and reported (see writeResult). */
  readonly onSkip: (e: unknown) => void;
}

/** The state of a handler over these routes, handlers and options. */
export function jsonRpcBinding(routes: readonly RouteBinding[], handlers: object, options: JsonRpcHandlerOptions): JsonRpcBinding {
  const a2a = options.profile === "a2a";
  const errors = errorAnswers(onErrorOf(options), a2a);
  return {
    a2a,
    handlers,
    table: methodTable(routes, handlers, options),
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    bodyTypes: a2a ? A2A_BODY_TYPES : JSON_BODY_TYPES,
    maxBatch: options.maxBatchSize ?? DEFAULT_MAX_BATCH,
    maxElements: options.maxElements,
    // §9.1: JSON-RPC requests and responses are application/json.
    jsonHeaders: { "content-type": options.responseType ?? JSON_MEDIA_TYPE },
    errors,
    context: options.context as ContextFactory<unknown> | undefined,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    unaryTimeoutMs: options.unaryTimeoutMs,
    hostCheck: createHostCheck(options.allowedHosts, a2a),
    onSkip: (e: unknown) => errors.report(e, { rpc: undefined, phase: "unary" }),
  };
}

/** An error as a JSON-RPC error object: the envelope's with its own code, any other through toJsonRpcError. */
export function errorObject(
  b: JsonRpcBinding,
  e: unknown,
  rpc: string | undefined,
  phase: ServerErrorInfo["phase"] = "unary",
): JsonRpcErrorObject {
  if (e instanceof EnvelopeError) return { code: e.rpcCode, message: e.message };
  return toJsonRpcError(b.errors.toRpcError(e, rpc, phase), b.a2a);
}
