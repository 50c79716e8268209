import { isJsonObject } from "./json-object.js";

/** The google.rpc.Code values. */
export enum Code {
  OK = 0,
  CANCELLED = 1,
  UNKNOWN = 2,
  INVALID_ARGUMENT = 3,
  DEADLINE_EXCEEDED = 4,
  NOT_FOUND = 5,
  ALREADY_EXISTS = 6,
  PERMISSION_DENIED = 7,
  RESOURCE_EXHAUSTED = 8,
  FAILED_PRECONDITION = 9,
  ABORTED = 10,
  OUT_OF_RANGE = 11,
  UNIMPLEMENTED = 12,
  INTERNAL = 13,
  UNAVAILABLE = 14,
  DATA_LOSS = 15,
  UNAUTHENTICATED = 16,
}

// google/rpc/code.proto; FAILED_PRECONDITION is 400 on purpose, not 412.
const httpStatusByCode: Record<Code, number> = {
  [Code.OK]: 200,
  [Code.CANCELLED]: 499,
  [Code.UNKNOWN]: 500,
  [Code.INVALID_ARGUMENT]: 400,
  [Code.DEADLINE_EXCEEDED]: 504,
  [Code.NOT_FOUND]: 404,
  [Code.ALREADY_EXISTS]: 409,
  [Code.PERMISSION_DENIED]: 403,
  [Code.RESOURCE_EXHAUSTED]: 429,
  [Code.FAILED_PRECONDITION]: 400,
  [Code.ABORTED]: 409,
  [Code.OUT_OF_RANGE]: 400,
  [Code.UNIMPLEMENTED]: 501,
  [Code.INTERNAL]: 500,
  [Code.UNAVAILABLE]: 503,
  [Code.DATA_LOSS]: 500,
  [Code.UNAUTHENTICATED]: 401,
};

/** The HTTP status for a google.rpc.Code; unknown codes are 500. */
export function httpStatusFromCode(code: Code): number {
  return httpStatusByCode[code] ?? 500;
}

/** The google.rpc.Code for an HTTP status, for answers that carry no Status body. */
export function codeFromHttpStatus(status: number): Code {
  switch (status) {
    case 400:
      return Code.INVALID_ARGUMENT;
    case 401:
      return Code.UNAUTHENTICATED;
    case 403:
      return Code.PERMISSION_DENIED;
    case 404:
      return Code.NOT_FOUND;
    case 409:
      return Code.ABORTED;
    case 429:
      return Code.RESOURCE_EXHAUSTED;
    case 499:
      return Code.CANCELLED;
    case 501:
      return Code.UNIMPLEMENTED;
    case 503:
      return Code.UNAVAILABLE;
    case 504:
      return Code.DEADLINE_EXCEEDED;
    default:
      return status >= 200 && status < 300 ? Code.OK : status < 500 && status >= 400 ? Code.FAILED_PRECONDITION : Code.UNKNOWN;
  }
}

/**
 * The codes' enum names by number. Checked against the enum by the compiler
 * (each name is its number's key), so the two cannot part; a bundle that
 * reads names holds this list, not the enum's object.
 */
export const CODE_NAMES = [
  "OK",
  "CANCELLED",
  "UNKNOWN",
  "INVALID_ARGUMENT",
  "DEADLINE_EXCEEDED",
  "NOT_FOUND",
  "ALREADY_EXISTS",
  "PERMISSION_DENIED",
  "RESOURCE_EXHAUSTED",
  "FAILED_PRECONDITION",
  "ABORTED",
  "OUT_OF_RANGE",
  "UNIMPLEMENTED",
  "INTERNAL",
  "UNAVAILABLE",
  "DATA_LOSS",
  "UNAUTHENTICATED",
] as const satisfies { readonly [N in Code]: CodeKey<N> };

/** The enum key of code `N`. */
type CodeKey<N extends Code> = { [K in keyof typeof Code]: (typeof Code)[K] extends N ? K : never }[keyof typeof Code];

/** The enum name of a code ("NOT_FOUND"), or "UNKNOWN" for a value outside the enum. */
export function codeName(code: Code): string {
  return CODE_NAMES[code] ?? "UNKNOWN";
}

/** A google.rpc.Status detail in its JSON form, e.g. a google.rpc.ErrorInfo. */
export interface ErrorDetail {
  readonly "@type": string;
  readonly [key: string]: unknown;
}

/** Whether a value is a detail as error answers carry them: a JSON object with a string `@type`. */
export function isErrorDetail(v: unknown): v is ErrorDetail {
  return isJsonObject(v) && typeof v["@type"] === "string";
}

/** The JSON body of an error answer (AIP-193). */
export interface StatusBody {
  error: {
    code: number;
    status: string;
    message: string;
    details: ErrorDetail[];
  };
}

/**
 * An error with a google.rpc.Code, a message and google.rpc.Status details.
 * Handlers throw it to answer with an error; clients throw it when the server
 * answered with one.
 */
export class RpcError extends Error {
  override name = "RpcError";
  /** The HTTP status: from the code, unless the answer said otherwise. */
  readonly httpStatus: number;
  readonly details: ErrorDetail[];

  constructor(
    readonly code: Code,
    message: string,
    details: readonly ErrorDetail[] = [],
    options?: { httpStatus?: number; cause?: unknown },
  ) {
    super(message, options?.cause === undefined ? undefined : { cause: options.cause });
    this.details = [...details];
    this.httpStatus = options?.httpStatus ?? httpStatusFromCode(code);
  }

  /** The code's enum name, e.g. "NOT_FOUND". */
  get status(): string {
    return codeName(this.code);
  }

  /** The google.rpc.ErrorInfo detail's reason, if there is one. */
  get reason(): string | undefined {
    const info = this.details.find((d) => d["@type"] === ERROR_INFO_TYPE);
    return typeof info?.["reason"] === "string" ? info["reason"] : undefined;
  }

  /** The AIP-193 JSON body for this error. */
  toStatusBody(): StatusBody {
    return {
      error: { code: this.httpStatus, status: this.status, message: this.message, details: this.details },
    };
  }
}

/**
 * True for instances of this package's {@link RpcError}. Only real instances
 * count: an object that merely calls itself "RpcError" could carry any message,
 * code or details, and a server must not send those to the client.
 */
export function isRpcError(e: unknown): e is RpcError {
  return e instanceof RpcError;
}

export const ERROR_INFO_TYPE = "type.googleapis.com/google.rpc.ErrorInfo";
export const BAD_REQUEST_TYPE = "type.googleapis.com/google.rpc.BadRequest";

/** A google.rpc.ErrorInfo detail. */
export function errorInfo(reason: string, domain: string, metadata: Record<string, string> = {}): ErrorDetail {
  return { "@type": ERROR_INFO_TYPE, reason, domain, metadata };
}

/** A google.rpc.BadRequest detail with one violation per field. */
export function badRequest(violations: readonly { field: string; description: string }[]): ErrorDetail {
  return { "@type": BAD_REQUEST_TYPE, fieldViolations: violations.map((v) => ({ ...v })) };
}

export const RESOURCE_INFO_TYPE = "type.googleapis.com/google.rpc.ResourceInfo";

/** A google.rpc.ResourceInfo detail: which resource the error is about (e.g. the task a call made before it failed). */
export function resourceInfo(resourceType: string, resourceName: string, description = ""): ErrorDetail {
  return { "@type": RESOURCE_INFO_TYPE, resourceType, resourceName, ...(description ? { description } : {}) };
}

export const RETRY_INFO_TYPE = "type.googleapis.com/google.rpc.RetryInfo";

/**
 * A google.rpc.RetryInfo detail: the call may be tried again after `delayMs`.
 * Every binding carries it (HTTP+JSON also as `Retry-After`, JSON-RPC in the
 * error's `data`), so a client can tell a wait-and-retry error on each.
 */
export function retryInfo(delayMs: number): ErrorDetail {
  return { "@type": RETRY_INFO_TYPE, retryDelay: `${Math.max(0, delayMs) / 1000}s` };
}

/** The delay an error's RetryInfo asks for, in ms; undefined when it has none (or an unreadable one). */
export function retryDelayOf(error: RpcError): number | undefined {
  const info = error.details.find((d) => d["@type"] === RETRY_INFO_TYPE);
  const delay = info?.["retryDelay"];
  // google.protobuf.Duration's JSON: seconds with up to nine decimals and an "s".
  const m = typeof delay === "string" ? /^(\d+(?:\.\d{1,9})?)s$/.exec(delay) : null;
  return m ? Math.round(Number(m[1]) * 1000) : undefined;
}
