// The A2A profile: every rule of the A2A protocol that the bindings share
// (HTTP+JSON, JSON-RPC, gRPC, the client, the plugin's emitters), written
// once: media types, the version and extension headers, the tenant, which
// rpc subscribes and how, the names v0.3 and the spec text use, and the error
// table with each reason's google.rpc (= gRPC) code, HTTP status and JSON-RPC
// code.
import type { RouteBinding } from "./route-binding.js";
import { Code, ERROR_INFO_TYPE, RpcError, errorInfo, httpStatusFromCode, isRpcError, type ErrorDetail } from "./errors.js";

/** The ErrorInfo domain of A2A errors. */
export const A2A_DOMAIN = "a2a-protocol.org";

/** The A2A protocol versions a server accepts unless told otherwise. */
export const A2A_DEFAULT_VERSIONS: readonly string[] = ["1.0"];

/** The version a request without `A2A-Version` speaks (A2A spec §3.6.1). */
export const A2A_VERSION_WHEN_MISSING = "0.3";

/** The header (and, for HTTP+JSON and JSON-RPC, query parameter) naming the version a request speaks (§3.6.1). */
export const A2A_VERSION_HEADER = "A2A-Version";

/** The header listing the extensions a client asks for (§3.2.6). */
export const A2A_EXTENSIONS_HEADER = "A2A-Extensions";

/**
 * lf.a2a.v1.TaskState numbers (fixed by the proto; an additive change cannot
 * renumber them). With isTerminal and isInterrupted, the one rule of what a
 * state means for a run and a stream, which the engine, the stores and the
 * v0.3 translation (its `final`) share.
 */
export const TaskState = {
  UNSPECIFIED: 0,
  SUBMITTED: 1,
  WORKING: 2,
  COMPLETED: 3,
  FAILED: 4,
  CANCELED: 5,
  INPUT_REQUIRED: 6,
  REJECTED: 7,
  AUTH_REQUIRED: 8,
} as const;
export type TaskState = (typeof TaskState)[keyof typeof TaskState];

/** COMPLETED, FAILED, CANCELED, REJECTED: nothing follows. */
export function isTerminal(state: number): boolean {
  return state === TaskState.COMPLETED || state === TaskState.FAILED || state === TaskState.CANCELED || state === TaskState.REJECTED;
}

/** INPUT_REQUIRED, AUTH_REQUIRED: the task waits for the client. */
export function isInterrupted(state: number): boolean {
  return state === TaskState.INPUT_REQUIRED || state === TaskState.AUTH_REQUIRED;
}

/**
 * Whether the agent's turn on the task is over in this state: it ended
 * (terminal) or waits for the client (interrupted). A stream that gives this
 * state ends with it (v0.3 says `final`), the executor's run is done, and the
 * task takes a follow-up. (The anchors differ: a2a-go's IsFinal counts
 * INPUT_REQUIRED but not AUTH_REQUIRED; A2A's streams end on both.)
 */
export function endsTurn(state: number): boolean {
  return isTerminal(state) || isInterrupted(state);
}

/**
 * Where an agent's card is served: the well-known path of v1.0 and v0.3
 * (§8.2), and v0.2's, where clients built on the 0.2 SDKs still look.
 */
export const A2A_AGENT_CARD_PATHS: readonly string[] = ["/.well-known/agent-card.json", "/.well-known/agent.json"];

/** The media type A2A bodies are sent with by default (spec §11.1). */
export const A2A_MEDIA_TYPE = "application/a2a+json";

/** The media type A2A takes beside {@link A2A_MEDIA_TYPE}, and JSON-RPC's own (§9.1). */
export const JSON_MEDIA_TYPE = "application/json";

/** The media type of a Content-Type value: the part before any parameter, trimmed, lower case. */
export function mediaTypeOf(contentType: string): string {
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase();
}

/** Whether an A2A request body may have this media type (see {@link mediaTypeOf}): JSON, or A2A's JSON. */
export function isA2ABodyType(mediaType: string): boolean {
  return mediaType === JSON_MEDIA_TYPE || mediaType === A2A_MEDIA_TYPE;
}

/**
 * The version a request speaks: its `A2A-Version` header, else (HTTP+JSON and
 * JSON-RPC; pass "" for gRPC) its first `A2A-Version` query parameter, the
 * name compared case-insensitively as header names are, else
 * {@link A2A_VERSION_WHEN_MISSING}. Blank values count as missing.
 */
export function requestedA2AVersion(header: string | null | undefined, rawQuery: string): string {
  const fromHeader = header?.trim();
  if (fromHeader) return fromHeader;
  if (rawQuery === "") return A2A_VERSION_WHEN_MISSING;
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    if (name.toLowerCase() === "a2a-version") return value.trim() || A2A_VERSION_WHEN_MISSING;
  }
  return A2A_VERSION_WHEN_MISSING;
}

/**
 * Whether a requested version is one of `supported` ({@link isA2AVersionSupported}),
 * with the verdicts remembered (clients send one or two distinct values; a
 * bound keeps junk from growing the memory).
 */
export function a2aVersionMatcher(supported: readonly string[]): (version: string) => boolean {
  const verdicts = new Map<string, boolean>();
  return (version) => {
    let ok = verdicts.get(version);
    if (ok === undefined) {
      ok = isA2AVersionSupported(version, supported);
      if (verdicts.size < 64) verdicts.set(version, ok);
    }
    return ok;
  };
}

/**
 * A server's version check over the versions it serves: the
 * VERSION_NOT_SUPPORTED error for a requested version it does not serve,
 * else undefined.
 */
export function a2aVersionCheck(supported: readonly string[]): (version: string) => RpcError | undefined {
  const served = a2aVersionMatcher(supported);
  return (version) => (served(version) ? undefined : A2AErrors.versionNotSupported(version, supported));
}

/**
 * The name of the `{tenant}` path variable that prefixes A2A's tenant-scoped
 * bindings (`/{tenant}/tasks/...`) and of the request field it fills.
 */
export const A2A_TENANT = "tenant";

/**
 * The rpcs that subscribe to a task, by proto name: `SubscribeToTask` (v1.0)
 * and `TaskSubscription` (v0.3). Their proto binds them to GET, the spec text
 * to POST: servers take both ({@link withSubscribePostTwins}) and clients
 * POST (without a body).
 */
export const A2A_SUBSCRIBE_METHODS: readonly string[] = ["SubscribeToTask", "TaskSubscription"];

/** Whether an rpc (its proto name, `descriptor.name`) subscribes to a task (see {@link A2A_SUBSCRIBE_METHODS}). */
export function isA2ASubscribeMethod(protoName: string): boolean {
  return A2A_SUBSCRIBE_METHODS.includes(protoName);
}

/**
 * A route table with a POST twin (body "*", an empty body allowed) beside each
 * GET binding of a subscribe rpc that has no POST at the same template.
 */
export function withSubscribePostTwins(routes: readonly RouteBinding[]): RouteBinding[] {
  const out = [...routes];
  for (const r of routes) {
    if (r.method !== "GET" || !isA2ASubscribeMethod(r.descriptor.name)) continue;
    const hasPost = routes.some((o) => o.rpc === r.rpc && o.method === "POST" && o.template === r.template);
    if (!hasPost) out.push({ ...r, method: "POST", body: "*" });
  }
  return out;
}

/**
 * JSON-RPC method names the spec text spells otherwise than the proto, each
 * with the proto's name: §9.4.7 has no final "s" on
 * ListTaskPushNotificationConfigs (the v0.3 proto's own name has none).
 */
export const A2A_JSONRPC_METHOD_ALIASES: ReadonlyMap<string, string> = new Map([
  ["ListTaskPushNotificationConfig", "ListTaskPushNotificationConfigs"],
]);

/**
 * Proto packages of A2A from before v1.0, with the version their peers
 * speak: the v0.3 proto's package is `a2a.v1`; its clients send no
 * `A2A-Version` (read as 0.3), so generated servers accept 0.3 there and
 * generated clients send it.
 */
export const A2A_LEGACY_PACKAGE_VERSIONS: ReadonlyMap<string, string> = new Map([["a2a.v1", "0.3"]]);

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

/**
 * The A2A error table (spec v1.0.1 §5.4): each reason's google.rpc code, which
 * is also its gRPC status code and gives its HTTP status
 * ({@link httpStatusFromCode}, noted on each line), and its JSON-RPC code.
 */
const errorTable: Record<A2AErrorReason, { readonly code: Code; readonly jsonRpc: number }> = {
  TASK_NOT_FOUND: { code: Code.NOT_FOUND, jsonRpc: -32001 }, // 404
  TASK_NOT_CANCELABLE: { code: Code.FAILED_PRECONDITION, jsonRpc: -32002 }, // 400 (v1.0.0: 409)
  PUSH_NOTIFICATION_NOT_SUPPORTED: { code: Code.FAILED_PRECONDITION, jsonRpc: -32003 }, // 400
  UNSUPPORTED_OPERATION: { code: Code.FAILED_PRECONDITION, jsonRpc: -32004 }, // 400
  CONTENT_TYPE_NOT_SUPPORTED: { code: Code.INVALID_ARGUMENT, jsonRpc: -32005 }, // 400 (v1.0.0: 415)
  INVALID_AGENT_RESPONSE: { code: Code.INTERNAL, jsonRpc: -32006 }, // 500 (v1.0.0: 502)
  EXTENDED_AGENT_CARD_NOT_CONFIGURED: { code: Code.FAILED_PRECONDITION, jsonRpc: -32007 }, // 400
  EXTENSION_SUPPORT_REQUIRED: { code: Code.FAILED_PRECONDITION, jsonRpc: -32008 }, // 400
  VERSION_NOT_SUPPORTED: { code: Code.FAILED_PRECONDITION, jsonRpc: -32009 }, // 400
  // The generic reasons carry JSON-RPC 2.0's own codes.
  INVALID_PARAMS: { code: Code.INVALID_ARGUMENT, jsonRpc: -32602 }, // 400
  INVALID_REQUEST: { code: Code.INVALID_ARGUMENT, jsonRpc: -32600 }, // 400
  METHOD_NOT_FOUND: { code: Code.NOT_FOUND, jsonRpc: -32601 }, // 404
  INTERNAL_ERROR: { code: Code.INTERNAL, jsonRpc: -32603 }, // 500
};

/** The google.rpc code of an A2A error reason, also its gRPC status code. */
export function a2aCode(reason: A2AErrorReason): Code {
  return errorTable[reason].code;
}

/** The HTTP status of an A2A error reason (that of its code). */
export function a2aHttpStatus(reason: A2AErrorReason): number {
  return httpStatusFromCode(errorTable[reason].code);
}

/** The JSON-RPC code of an A2A error reason: -32001 (TASK_NOT_FOUND) to -32009, or one of JSON-RPC 2.0's. */
export function a2aJsonRpcCode(reason: A2AErrorReason): number {
  return errorTable[reason].jsonRpc;
}

const reasonByJsonRpcCode = new Map<number, A2AErrorReason>(
  Object.entries(errorTable).map(([reason, row]) => [row.jsonRpc, reason as A2AErrorReason]),
);

/** The A2A error reason of a JSON-RPC error code, or undefined for a code outside the table. */
export function a2aReasonOfJsonRpcCode(code: number): A2AErrorReason | undefined {
  return reasonByJsonRpcCode.get(code);
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
  return new RpcError(errorTable[reason].code, message, [errorInfo(reason, A2A_DOMAIN, metadata), ...moreDetails]);
}

/** Factories for the A2A error types (spec v1.0.1 §5.4), for handlers to throw. */
export const A2AErrors = {
  /**
   * 404 NOT_FOUND: no such task (also used for a missing push config). The
   * message is fixed text and the id goes in the ErrorInfo metadata: a
   * caller's id is never echoed into a message, where a hostile one would
   * reach logs and a client's text matching (a2a-tck 0.3 fails any error whose
   * text holds "501", which a random uuid in the id does about 1 time in 150).
   */
  taskNotFound: (taskId: string, message = "task not found") => a2aError("TASK_NOT_FOUND", message, { taskId }),
  /** 400 FAILED_PRECONDITION: the task cannot be canceled in its state. */
  taskNotCancelable: (taskId: string, message = `task ${taskId} cannot be canceled`) =>
    a2aError("TASK_NOT_CANCELABLE", message, { taskId }),
  /** 400 FAILED_PRECONDITION: the agent does not do push notifications. */
  pushNotificationNotSupported: (message = "push notifications are not supported") => a2aError("PUSH_NOTIFICATION_NOT_SUPPORTED", message),
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
    a2aError("VERSION_NOT_SUPPORTED", `A2A version ${version} is not supported; supported: ${supported.join(", ")}`, {
      version,
      supported: supported.join(","),
    }),
  /** 400 INVALID_ARGUMENT: the request's parameters are wrong. */
  invalidParams: (message: string, moreDetails: readonly ErrorDetail[] = []) => a2aError("INVALID_PARAMS", message, {}, moreDetails),
  /** 400 INVALID_ARGUMENT: the request itself is malformed. */
  invalidRequest: (message: string, moreDetails: readonly ErrorDetail[] = []) => a2aError("INVALID_REQUEST", message, {}, moreDetails),
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

// Made on first use: a Set built at load time would stay in every bundle that imports this module (esbuild keeps `new Set(...)`).
let knownReasons: ReadonlySet<string> | undefined;

/**
 * The A2A error reason of an error: the reason of the first google.rpc.ErrorInfo
 * detail, scanning all details (SDKs put it first, last or alone; the domain
 * is not required, since SDKs differ), whose reason is an A2A one; undefined
 * for anything else (then use the error's `httpStatus` and `code`).
 */
export function a2aErrorReason(error: unknown): A2AErrorReason | undefined {
  if (!isRpcError(error)) return undefined;
  for (const d of error.details) {
    if (
      d["@type"] === ERROR_INFO_TYPE &&
      typeof d["reason"] === "string" &&
      (knownReasons ??= new Set(Object.values(A2AErrorReason))).has(d["reason"])
    ) {
      return d["reason"] as A2AErrorReason;
    }
  }
  return undefined;
}

/** True when `error` is an RpcError whose details carry the A2A reason `reason`. */
export function isA2AError(error: unknown, reason: A2AErrorReason): boolean {
  return a2aErrorReason(error) === reason;
}

/**
 * The A2A versions the generated code of a proto package speaks unless told
 * otherwise: a legacy package's version ({@link A2A_LEGACY_PACKAGE_VERSIONS}),
 * else {@link A2A_DEFAULT_VERSIONS}. Generated servers of a legacy package
 * serve these and its generated clients send the first, so the rule stays
 * here rather than in each generated file.
 */
export function a2aVersionsOfPackage(protoPackage: string): readonly string[] {
  const legacy = A2A_LEGACY_PACKAGE_VERSIONS.get(protoPackage);
  return legacy === undefined ? A2A_DEFAULT_VERSIONS : [legacy];
}
