/**
 * Reports of an outage of the store, kept to a line now and then: while the
 * database is away, every retry, renewal, sweep and outbox poll meets the
 * same StoreUnavailableError, and a stack each (86 KB a minute, issue 39)
 * hides what matters. So one report per kind of fault (the driver's code or
 * message) per interval reaches `onError`, and the default log of one is a
 * single line without a stack. Every other error passes as it is.
 */
import type { Logger } from "../logger.js";
import { StoreUnavailableError } from "./store.js";

/** One report per kind of store fault per this long. */
export const FAULT_REPORT_INTERVAL_MS = 30_000;

/** `report`, with StoreUnavailableErrors let through once per kind per interval. */
export function throttleStoreFaults(report: (e: unknown) => void, intervalMs = FAULT_REPORT_INTERVAL_MS): (e: unknown) => void {
  const last = new Map<string, number>();
  return (e) => {
    if (!(e instanceof StoreUnavailableError)) return report(e);
    const kind = faultKind(e);
    const now = Date.now();
    const before = last.get(kind);
    if (before !== undefined && now - before < intervalMs) return;
    last.set(kind, now);
    report(e);
  };
}

/** The engine's default report: an outage as one line, anything else with its stack. */
export function defaultReport(logger: Logger): (e: unknown) => void {
  return (e) => {
    if (e instanceof StoreUnavailableError) {
      logger.warn({ fault: faultKind(e) }, `a2a-http agent: the task store cannot be reached (${faultKind(e)}); waiting for it`);
    } else {
      logger.error({ err: e }, "a2a-http agent");
    }
  };
}

/** What kind of fault: the driver's code (ECONNREFUSED, 57P01), else its message. */
function faultKind(e: StoreUnavailableError): string {
  const cause = e.cause as { code?: unknown; message?: unknown } | undefined;
  if (typeof cause?.code === "string") return cause.code;
  return typeof cause?.message === "string" ? cause.message.slice(0, 120) : "unknown";
}
