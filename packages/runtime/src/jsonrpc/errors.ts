// JSON-RPC 2.0 error objects <-> RpcError, over the same A2A reasons that
// HTTP+JSON carries in google.rpc.ErrorInfo (A2A spec §5.4, §9.5).
import { A2A_DOMAIN, a2aCode, a2aErrorReason, a2aJsonRpcCode, a2aReasonOfJsonRpcCode, withA2AErrorInfo } from "../a2a.js";
import { Code, ERROR_INFO_TYPE, RpcError, codeFromHttpStatus, errorInfo, isErrorDetail, type ErrorDetail } from "../errors.js";

/** The error codes JSON-RPC 2.0 itself defines. */
export const JsonRpcCode = {
  PARSE_ERROR: -32700,
  INVALID_REQUEST: -32600,
  METHOD_NOT_FOUND: -32601,
  INVALID_PARAMS: -32602,
  INTERNAL_ERROR: -32603,
  /** Implementation-defined server error: what a code without a JSON-RPC or A2A equivalent becomes. */
  SERVER_ERROR: -32000,
} as const;

/** A JSON-RPC 2.0 error object. */
export interface JsonRpcErrorObject {
  code: number;
  message: string;
  data?: unknown;
}

/** The JSON-RPC code of an A2A reason (the A2A error table, a2a.ts). */
export const jsonRpcCodeOfReason = a2aJsonRpcCode;

/**
 * The JSON-RPC error object for an error: the code of its A2A reason when it
 * has one, else by google.rpc.Code (INVALID_ARGUMENT -32602, UNIMPLEMENTED
 * -32601, INTERNAL/UNKNOWN/DATA_LOSS -32603, anything else -32000). `data` is
 * the google.rpc.Status `details` list (ErrorInfo first in the A2A profile),
 * as the A2A JS SDK sends it; it is left out when there are none.
 */
export function toJsonRpcError(error: RpcError, a2a: boolean): JsonRpcErrorObject {
  const err = a2a ? withA2AErrorInfo(error) : error;
  const reason = a2aErrorReason(err);
  const code = reason !== undefined ? a2aJsonRpcCode(reason) : codeOf(err.code);
  const out: JsonRpcErrorObject = { code, message: err.message };
  if (err.details.length > 0) out.data = err.details;
  return out;
}

function codeOf(code: Code): number {
  switch (code) {
    case Code.INVALID_ARGUMENT:
    case Code.OUT_OF_RANGE:
      return JsonRpcCode.INVALID_PARAMS;
    case Code.UNIMPLEMENTED:
      return JsonRpcCode.METHOD_NOT_FOUND;
    case Code.INTERNAL:
    case Code.UNKNOWN:
    case Code.DATA_LOSS:
      return JsonRpcCode.INTERNAL_ERROR;
    default:
      return JsonRpcCode.SERVER_ERROR;
  }
}

/**
 * The RpcError for a JSON-RPC error object a server sent. An A2A code gets
 * the google.rpc.Code of its reason and an ErrorInfo with that reason (the
 * one in `data` when the server sent it); `data` given as a list of
 * `@type`d details becomes the error's details, a single `@type`d object
 * one detail, and any other object the ErrorInfo's metadata (its string
 * values). Other codes: -32700 INVALID_ARGUMENT, else the code the HTTP
 * status implies, else UNKNOWN.
 */
export function fromJsonRpcError(error: unknown, httpStatus: number): RpcError {
  const obj = (typeof error === "object" && error !== null ? error : {}) as Record<string, unknown>;
  const rpcCode = typeof obj["code"] === "number" ? obj["code"] : NaN;
  const message = typeof obj["message"] === "string" ? obj["message"] : `JSON-RPC error ${String(obj["code"])}`;
  const data = obj["data"];
  const details: ErrorDetail[] = [];
  let metadata: Record<string, string> = {};
  if (Array.isArray(data)) {
    for (const d of data) if (isErrorDetail(d)) details.push(d);
  } else if (isErrorDetail(data)) {
    details.push(data);
  } else if (typeof data === "object" && data !== null) {
    metadata = Object.fromEntries(Object.entries(data).filter((e): e is [string, string] => typeof e[1] === "string"));
  }
  const reason = a2aReasonOfJsonRpcCode(rpcCode);
  let code: Code;
  if (reason !== undefined) {
    code = reason === "METHOD_NOT_FOUND" ? Code.UNIMPLEMENTED : a2aCode(reason);
    if (!details.some((d) => d["@type"] === ERROR_INFO_TYPE)) details.unshift(errorInfo(reason, A2A_DOMAIN, metadata));
  } else if (rpcCode === JsonRpcCode.PARSE_ERROR) {
    code = Code.INVALID_ARGUMENT;
  } else if (httpStatus < 200 || httpStatus >= 300) {
    code = codeFromHttpStatus(httpStatus);
  } else {
    code = Code.UNKNOWN;
  }
  return new RpcError(code, message, details);
}
