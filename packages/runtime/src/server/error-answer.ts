// What a handler's error becomes, for every binding: only the runtime's own
// RpcError instances are trusted; anything else goes to `onError` and
// becomes a 500 INTERNAL that says nothing about it. HTTP+JSON writes the
// result as a google.rpc.Status body (here too); JSON-RPC and gRPC map the
// RpcError to their own wire form.
import { withA2AErrorInfo } from "../a2a.js";
import { Code, RpcError, httpStatusFromCode, isRpcError, retryDelayOf } from "../errors.js";
import type { ServerErrorInfo } from "./options.js";

/** A binding's error handling, made once per handler. */
export interface ErrorAnswers {
  /** Hands an error to `onError`; a failing logger is ignored. */
  report(error: unknown, info: ServerErrorInfo): void;
  /**
   * The error to answer with: an RpcError as it is (under the A2A profile with
   * an A2A ErrorInfo first), anything else reported and replaced by INTERNAL.
   */
  toRpcError(error: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"]): RpcError;
  /**
   * The HTTP status and google.rpc.Status JSON text of an error, and the
   * `Retry-After` (whole seconds) its google.rpc.RetryInfo asks for; never
   * throws, whatever the handler put in it.
   */
  statusJson(error: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"]): StatusAnswer;
}

/** An error as HTTP+JSON answers it. */
export interface StatusAnswer {
  readonly status: number;
  readonly json: string;
  /** `Retry-After` in seconds, when the error carries a RetryInfo. */
  readonly retryAfter?: string;
}

/** The error handling of a handler with this `onError`, under the A2A profile or not. */
export function errorAnswers(onError: (error: unknown, info: ServerErrorInfo) => void, a2a: boolean): ErrorAnswers {
  function report(error: unknown, info: ServerErrorInfo): void {
    try {
      onError(error, info);
    } catch {
      // A failing logger must not take the server down.
    }
  }

  const internalError = () => {
    const err = new RpcError(Code.INTERNAL, "internal error");
    return a2a ? withA2AErrorInfo(err) : err;
  };

  function toRpcError(e: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"]): RpcError {
    if (!isRpcError(e)) {
      report(e, { rpc, phase });
      return internalError();
    }
    try {
      return a2a ? withA2AErrorInfo(e) : e;
    } catch (x) {
      // e.g. details that are not a list.
      report(x, { rpc, phase });
      return internalError();
    }
  }

  function statusJson(e: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"]): StatusAnswer {
    const err = toRpcError(e, rpc, phase);
    try {
      const status = errorStatus(err);
      const body = err.toStatusBody();
      body.error.code = status;
      if (!Array.isArray(body.error.details)) body.error.details = [];
      const json = JSON.stringify(body);
      const delay = retryDelayOf(err);
      // RFC 9110's Retry-After counts whole seconds: a shorter wait asks for one.
      return delay === undefined ? { status, json } : { status, json, retryAfter: String(Math.max(1, Math.ceil(delay / 1000))) };
    } catch (x) {
      // e.g. a detail holding a BigInt or a cycle.
      report(x, { rpc, phase });
      return { status: 500, json: JSON.stringify(internalError().toStatusBody()) };
    }
  }

  return { report, toRpcError, statusJson };
}

/**
 * What a stream's failure is once its signal fired (the client went away,
 * the server gave up): CANCELLED, unless the handler threw an RpcError of its
 * own; the handler's other failures are then only the cancel's echo.
 */
export function streamFailure(error: unknown, signal: AbortSignal): unknown {
  return signal.aborted && !isRpcError(error) ? new RpcError(Code.CANCELLED, "request canceled") : error;
}

/** An error's HTTP status if it is one an error can have (400..599), else the code's. */
function errorStatus(err: RpcError): number {
  const s = err.httpStatus;
  if (Number.isInteger(s) && s >= 400 && s <= 599) return s;
  const fromCode = httpStatusFromCode(err.code);
  return fromCode >= 400 ? fromCode : 500;
}
