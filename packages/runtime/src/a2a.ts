import { Code, ERROR_INFO_TYPE, RpcError, errorInfo, isRpcError, type ErrorDetail } from "./errors.js";

/** The ErrorInfo domain of A2A errors. */
export const A2A_DOMAIN = "a2a-protocol.org";

/** The A2A protocol versions a server accepts unless told otherwise. */
export const A2A_DEFAULT_VERSIONS: readonly string[] = ["1.0"];

/** The version a request without `A2A-Version` speaks (A2A spec §3.6.1). */
export const A2A_VERSION_WHEN_MISSING = "0.3";

/** The media type A2A bodies are sent with by default (spec §11.1). */
export const A2A_MEDIA_TYPE = "application/a2a+json";

/**
 * The A2A error types with their google.rpc code and HTTP status, as the
 * A2A spec v1.0.1 table (section 5.4) gives them, plus the generic reasons the
 * SDKs use for errors that are not A2A-specific.
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

const codeByReason: Record<A2AErrorReason, Code> = {
  TASK_NOT_FOUND: Code.NOT_FOUND, // 404
  TASK_NOT_CANCELABLE: Code.FAILED_PRECONDITION, // 400 (v1.0.0: 409)
  PUSH_NOTIFICATION_NOT_SUPPORTED: Code.FAILED_PRECONDITION, // 400
  UNSUPPORTED_OPERATION: Code.FAILED_PRECONDITION, // 400
  CONTENT_TYPE_NOT_SUPPORTED: Code.INVALID_ARGUMENT, // 400 (v1.0.0: 415)
  INVALID_AGENT_RESPONSE: Code.INTERNAL, // 500 (v1.0.0: 502)
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: Code.FAILED_PRECONDITION, // 400
  EXTENSION_SUPPORT_REQUIRED: Code.FAILED_PRECONDITION, // 400
  VERSION_NOT_SUPPORTED: Code.FAILED_PRECONDITION, // 400
  INVALID_PARAMS: Code.INVALID_ARGUMENT, // 400
  INVALID_REQUEST: Code.INVALID_ARGUMENT, // 400
  METHOD_NOT_FOUND: Code.NOT_FOUND, // 404
  INTERNAL_ERROR: Code.INTERNAL, // 500
};

/** The google.rpc code of an A2A error reason. */
export function a2aCode(reason: A2AErrorReason): Code {
  return codeByReason[reason];
}

/**
 * An {@link RpcError} for an A2A error: the code of the spec's table and a
 * google.rpc.ErrorInfo (domain `a2a-protocol.org`) first in `details`.
 * Metadata values must be strings.
 */
export function a2aError(
  reason: A2AErrorReason,
  message: string,
  metadata: Record<string, string> = {},
  moreDetails: readonly ErrorDetail[] = [],
): RpcError {
  return new RpcError(codeByReason[reason], message, [errorInfo(reason, A2A_DOMAIN, metadata), ...moreDetails]);
}

/** Factories for the A2A error types (spec v1.0.1 §5.4), for handlers to throw. */
export const A2AErrors = {
  /** 404 NOT_FOUND: no such task (also used for a missing push config). */
  taskNotFound: (taskId: string, message = `task not found: ${taskId}`) =>
    a2aError("TASK_NOT_FOUND", message, { taskId }),
  /** 400 FAILED_PRECONDITION: the task cannot be canceled in its state. */
  taskNotCancelable: (taskId: string, message = `task ${taskId} cannot be canceled`) =>
    a2aError("TASK_NOT_CANCELABLE", message, { taskId }),
  /** 400 FAILED_PRECONDITION: the agent does not do push notifications. */
  pushNotificationNotSupported: (message = "push notifications are not supported") =>
    a2aError("PUSH_NOTIFICATION_NOT_SUPPORTED", message),
  /** 400 FAILED_PRECONDITION: e.g. subscribing to a task in a terminal state. */
  unsupportedOperation: (message = "operation not supported", metadata: Record<string, string> = {}) =>
    a2aError("UNSUPPORTED_OPERATION", message, metadata),
  /**
   * 501 UNIMPLEMENTED with reason UNSUPPORTED_OPERATION: a method the agent
   * has not written yet (what generated stubs answer), named in the metadata.
   */
  notImplemented: (method: string, message = `${method} is not implemented yet`) =>
    new RpcError(Code.UNIMPLEMENTED, message, [errorInfo("UNSUPPORTED_OPERATION", A2A_DOMAIN, { method })]),
  /** 400 INVALID_ARGUMENT: a media type the agent does not take. */
  contentTypeNotSupported: (contentType: string, message = `content type not supported: ${contentType}`) =>
    a2aError("CONTENT_TYPE_NOT_SUPPORTED", message, { contentType }),
  /** 500 INTERNAL: the agent produced a response that does not fit the protocol. */
  invalidAgentResponse: (message = "invalid agent response") => a2aError("INVALID_AGENT_RESPONSE", message),
  /** 400 FAILED_PRECONDITION: the agent has no extended card. */
  extendedAgentCardNotConfigured: (message = "the extended agent card is not configured") =>
    a2aError("EXTENDED_AGENT_CARD_NOT_CONFIGURED", message),
  /** 400 FAILED_PRECONDITION: the client did not ask for an extension the agent requires. */
  extensionSupportRequired: (extension: string, message = `extension required: ${extension}`) =>
    a2aError("EXTENSION_SUPPORT_REQUIRED", message, { extension }),
  /** 400 FAILED_PRECONDITION: the A2A-Version is not one the server speaks. */
  versionNotSupported: (version: string, supported: readonly string[]) =>
    a2aError(
      "VERSION_NOT_SUPPORTED",
      `A2A version ${version} is not supported; supported: ${supported.join(", ")}`,
      { version, supported: supported.join(",") },
    ),
  /** 400 INVALID_ARGUMENT: the request's parameters are wrong. */
  invalidParams: (message: string, moreDetails: readonly ErrorDetail[] = []) =>
    a2aError("INVALID_PARAMS", message, {}, moreDetails),
  /** 400 INVALID_ARGUMENT: the request itself is malformed. */
  invalidRequest: (message: string, moreDetails: readonly ErrorDetail[] = []) =>
    a2aError("INVALID_REQUEST", message, {}, moreDetails),
} as const;

/**
 * Puts an A2A ErrorInfo first in an error's details: an existing ErrorInfo is
 * moved to the front; an error without one gets a generic reason from its code
 * (INVALID_PARAMS, METHOD_NOT_FOUND, INTERNAL_ERROR), or stays as it is when
 * none fits. Returns a new error; the one given is not changed.
 */
export function withA2AErrorInfo(error: RpcError, fallbackReason?: A2AErrorReason): RpcError {
  const i = error.details.findIndex((d) => d["@type"] === ERROR_INFO_TYPE);
  if (i === 0) return error;
  let details: ErrorDetail[];
  if (i > 0) {
    details = [error.details[i]!, ...error.details.slice(0, i), ...error.details.slice(i + 1)];
  } else {
    const reason = fallbackReason ?? genericReason(error.code);
    if (reason === undefined) return error;
    details = [errorInfo(reason, A2A_DOMAIN), ...error.details];
  }
  return new RpcError(error.code, error.message, details, { httpStatus: error.httpStatus, cause: error });
}

function genericReason(code: Code): A2AErrorReason | undefined {
  switch (code) {
    case Code.INVALID_ARGUMENT:
    case Code.OUT_OF_RANGE:
      return "INVALID_PARAMS";
    case Code.INTERNAL:
    case Code.UNKNOWN:
    case Code.DATA_LOSS:
      return "INTERNAL_ERROR";
    default:
      return undefined;
  }
}

/** "1.0.3" gives [1, 0]; "1" gives [1, 0]; anything else undefined. */
function majorMinor(version: string): [number, number] | undefined {
  const m = /^\s*v?(\d+)(?:\.(\d+))?(?:\.\d+)?(?:[-+][0-9A-Za-z.-]*)?\s*$/.exec(version);
  if (!m) return undefined;
  return [Number(m[1]), Number(m[2] ?? "0")];
}

/**
 * Whether an `A2A-Version` value is one of `supported`, comparing Major.Minor
 * only ("1.0.2" is "1.0").
 */
export function isA2AVersionSupported(version: string, supported: readonly string[]): boolean {
  const v = majorMinor(version);
  if (!v) return false;
  return supported.some((s) => {
    const w = majorMinor(s);
    return w !== undefined && w[0] === v[0] && w[1] === v[1];
  });
}

/** Parses `A2A-Extensions`: comma-separated, trimmed, de-duplicated, in first-seen order. */
export function parseA2AExtensions(header: string | null | undefined): string[] {
  if (!header) return [];
  const out: string[] = [];
  for (const part of header.split(",")) {
    const uri = part.trim();
    if (uri !== "" && !out.includes(uri)) out.push(uri);
  }
  return out;
}

const knownReasons: ReadonlySet<string> = new Set(Object.values(A2AErrorReason));

/**
 * The A2A error reason of an error: the reason of the first google.rpc.ErrorInfo
 * detail, scanning all details (SDKs put it first, last or alone; the domain
 * is not required, since SDKs differ), whose reason is an A2A one; undefined
 * for anything else (then use the error's `httpStatus` and `code`).
 */
export function a2aErrorReason(error: unknown): A2AErrorReason | undefined {
  if (!isRpcError(error)) return undefined;
  for (const d of error.details) {
    if (d["@type"] === ERROR_INFO_TYPE && typeof d["reason"] === "string" && knownReasons.has(d["reason"])) {
      return d["reason"] as A2AErrorReason;
    }
  }
  return undefined;
}

/** True when `error` is an RpcError whose details carry the A2A reason `reason`. */
export function isA2AError(error: unknown, reason: A2AErrorReason): boolean {
  return a2aErrorReason(error) === reason;
}
