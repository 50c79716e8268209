// The JSON-RPC 2.0 envelope (jsonrpc.org/specification): a POST's body read
// as one request object or a batch, each request object's envelope checked
// (`jsonrpc`, `id`, `method`), and the response objects written, alone, as
// a batch's array, or as one event of a stream.
import { isBlank, withHandlerHeaders, type ResponseHeaders, type UniversalServerResponse } from "../server/request.js";
import { JsonRpcCode, type JsonRpcErrorObject } from "./errors.js";

/** A request's id: what its response carries (null when it could not be read). */
export type Id = string | number | null;

/** A response object. */
export type JsonRpcResponse = { jsonrpc: "2.0"; id: Id; result: unknown } | { jsonrpc: "2.0"; id: Id; error: JsonRpcErrorObject };

/** An error of the envelope, with a JSON-RPC code of its own (not one mapped from an RpcError). */
export class EnvelopeError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly id: Id = null,
  ) {
    super(message);
  }
}

/** A body's JSON (a request object or a batch), a byte order mark skipped; throws an EnvelopeError for an empty body or bad JSON. */
export function parseEnvelopes(text: string): unknown {
  if (isBlank(text)) throw new EnvelopeError(JsonRpcCode.INVALID_REQUEST, "the request body is empty");
  const json = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  try {
    return JSON.parse(json);
  } catch (e) {
    throw new EnvelopeError(JsonRpcCode.PARSE_ERROR, `the request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * The error response to a request object whose envelope is not one (not an
 * object, an id neither string, finite number nor null, no `"jsonrpc":
 * "2.0"`, a method that is no string), or undefined for a valid one. It is
 * answered even without an id (JSON-RPC §5), with the id when it was valid.
 */
export function envelopeError(item: unknown): JsonRpcResponse | undefined {
  if (typeof item !== "object" || item === null || Array.isArray(item)) {
    return errorResponse(null, { code: JsonRpcCode.INVALID_REQUEST, message: "a JSON-RPC request is a JSON object" });
  }
  const o = item as Record<string, unknown>;
  const notification = !("id" in o);
  const id = o["id"];
  if (!notification && !(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || id === null)) {
    return errorResponse(null, { code: JsonRpcCode.INVALID_REQUEST, message: "the id must be a string, a number or null" });
  }
  const rid = (notification ? null : id) as Id;
  if (o["jsonrpc"] !== "2.0") {
    return errorResponse(rid, { code: JsonRpcCode.INVALID_REQUEST, message: 'the request must have "jsonrpc": "2.0"' });
  }
  if (typeof o["method"] !== "string") {
    return errorResponse(rid, { code: JsonRpcCode.INVALID_REQUEST, message: "the method must be a string" });
  }
  return undefined;
}

/** The id of a request object, if it has a valid one (for errors found before the envelope is read). */
export function idOf(v: unknown): Id {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const id = (v as Record<string, unknown>)["id"];
  return typeof id === "string" || typeof id === "number" ? id : null;
}

/** An error response object. */
export function errorResponse(id: Id, error: JsonRpcErrorObject): JsonRpcResponse {
  return { jsonrpc: "2.0", id, error };
}

/** The HTTP answer carrying a response object, or a batch's array of them, as JSON. */
export function jsonRpcAnswer(
  headers: ResponseHeaders,
  body: JsonRpcResponse | readonly JsonRpcResponse[],
  status = 200,
  extra?: Headers,
): UniversalServerResponse {
  return { status, headers: withHandlerHeaders(headers, extra), body: JSON.stringify(body) };
}

/** The HTTP answer carrying an error response object; `extra` adds headers of the runtime's own (`Allow`). */
export function errorAnswer(
  headers: ResponseHeaders,
  id: Id,
  error: JsonRpcErrorObject,
  status = 200,
  extra?: ResponseHeaders,
): UniversalServerResponse {
  const res = jsonRpcAnswer(headers, errorResponse(id, error), status);
  return extra ? { ...res, headers: { ...res.headers, ...extra } } : res;
}

/** A response object as one event of a stream's answer. */
export function sseEvent(body: JsonRpcResponse): string {
  return "data: " + JSON.stringify(body) + "\n\n";
}

/**
 * What `sseEvent` makes of a result's answer, around the result's JSON text
 * made elsewhere (once for all the streams that answer the same message):
 * the text before it (for this id) and after it.
 */
export function sseResultFrame(id: Id): readonly [before: string, after: string] {
  return ['data: {"jsonrpc":"2.0","id":' + JSON.stringify(id) + ',"result":', "}\n\n"];
}

/** The answer to a body of notifications only: nothing to say. */
export function noContent(): UniversalServerResponse {
  return { status: 204, headers: {}, body: "" };
}
