import { ERROR_INFO_TYPE, isRpcError } from "../errors.js";

/**
 * The ErrorInfo reasons of the A2A error types (spec section 5.4), plus the
 * reasons SDK servers use for generic failures. A client recognises an A2A
 * error by the reason of any google.rpc.ErrorInfo detail (the domain is not
 * required: SDKs differ), and falls back to the HTTP status.
 */
export const A2AErrorReason = {
  TASK_NOT_FOUND: "TASK_NOT_FOUND",
  TASK_NOT_CANCELABLE: "TASK_NOT_CANCELABLE",
  PUSH_NOTIFICATION_NOT_SUPPORTED: "PUSH_NOTIFICATION_NOT_SUPPORTED",
  UNSUPPORTED_OPERATION: "UNSUPPORTED_OPERATION",
  CONTENT_TYPE_NOT_SUPPORTED: "CONTENT_TYPE_NOT_SUPPORTED",
  INVALID_AGENT_RESPONSE: "INVALID_AGENT_RESPONSE",
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: "EXTENDED_AGENT_CARD_NOT_CONFIGURED",
  EXTENSION_SUPPORT_REQUIRED: "EXTENSION_SUPPORT_REQUIRED",
  VERSION_NOT_SUPPORTED: "VERSION_NOT_SUPPORTED",
  INVALID_PARAMS: "INVALID_PARAMS",
  INVALID_REQUEST: "INVALID_REQUEST",
  METHOD_NOT_FOUND: "METHOD_NOT_FOUND",
  INTERNAL_ERROR: "INTERNAL_ERROR",
} as const;

export type A2AErrorReason = (typeof A2AErrorReason)[keyof typeof A2AErrorReason];

export const A2A_ERROR_DOMAIN = "a2a-protocol.org";

const known: ReadonlySet<string> = new Set(Object.values(A2AErrorReason));

/**
 * The A2A error reason of an error: the reason of the first google.rpc.ErrorInfo
 * detail, scanning all details, whose reason is an A2A one; undefined for
 * anything else (then use the error's `httpStatus` and `code`).
 */
export function a2aErrorReason(error: unknown): A2AErrorReason | undefined {
  if (!isRpcError(error)) return undefined;
  for (const d of error.details) {
    if (d["@type"] === ERROR_INFO_TYPE && typeof d["reason"] === "string" && known.has(d["reason"])) {
      return d["reason"] as A2AErrorReason;
    }
  }
  return undefined;
}

/** True when `error` is an RpcError whose details carry the A2A reason `reason`. */
export function isA2AError(error: unknown, reason: A2AErrorReason): boolean {
  return a2aErrorReason(error) === reason;
}
