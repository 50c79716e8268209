/**
 * The SQL store's faults as the engine reads them: an error that says the
 * database cannot be reached now (a connection refused, lost or timed out; a
 * server shutting down or out of connections) becomes StoreUnavailableError,
 * which the engine waits out (task-writer.ts) and a request answers as
 * UNAVAILABLE (503); every other error stays what it is. Only errors known to
 * be the connection's are mapped: a bug must fail, never be retried forever.
 */
import { StaleVersionError, StoreFullError, StoreUnavailableError, type AgentStore } from "../store.js";
import { telemetry, type Telemetry } from "../../telemetry.js";
import { isServerError } from "./faults.js";

/** Node's codes for a connection that could not be made or was lost. */
const CONNECTION_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "EPIPE",
  "ETIMEDOUT",
  "EHOSTUNREACH",
  "ENETUNREACH",
  "ENOTFOUND",
  "EAI_AGAIN",
]);
/** pg's words for the same (it throws plain Errors for them). */
const CONNECTION_MESSAGES =
  /connection terminated|connection timeout|timeout exceeded when trying to connect|query read timeout|not queryable|connection (is )?closed/i;
/** Refused before it began: nothing of the statement can have been written. */
const NOT_STARTED = /ECONNREFUSED|ENOTFOUND|EAI_AGAIN|EHOSTUNREACH|ENETUNREACH|timeout exceeded when trying to connect/i;

/**
 * The error a store call answers: StoreUnavailableError for a connection
 * fault or a server that cannot serve now (SQLSTATE class 08, 57P: shutting
 * down, 53300: too many connections, 57014: the statement timeout, a PANIC:
 * the database crashed and restarts), else `e` itself.
 */
export function storeFault(e: unknown): unknown {
  if (e instanceof StoreUnavailableError || e instanceof StaleVersionError || e instanceof StoreFullError) return e;
  const { code, message, severity } = (e ?? {}) as { code?: unknown; message?: unknown; severity?: unknown };
  // The database crashed (a WAL write failed: a full disk) and restarts: what was being committed may or may not be.
  if (severity === "PANIC") return new StoreUnavailableError(true, e);
  if (typeof code === "string" && (code.startsWith("08") || code.startsWith("57P") || code === "53300" || code === "57014")) {
    // The server's own word: refused (57P, 53300) or cancelled at the statement timeout (57014) means nothing was done;
    // a connection exception may come mid-commit.
    return new StoreUnavailableError(!isServerError(e) || code.startsWith("08"), e);
  }
  if (isServerError(e)) return e;
  const text = typeof message === "string" ? message : "";
  const connection = (typeof code === "string" && CONNECTION_CODES.has(code)) || CONNECTION_MESSAGES.test(text);
  if (!connection) return e;
  return new StoreUnavailableError(!NOT_STARTED.test(`${String(code)} ${text}`), e);
}

type Methods = Record<string, unknown>;

/**
 * `obj` with each of its methods' rejections passed through {@link storeFault};
 * with telemetry on, each call in a span named `<group>.<method>` (what it
 * does, never a value: telemetry.ts).
 */
function mapped<T extends object>(obj: T, group: string): T {
  const out: Methods = {};
  for (const [name, value] of Object.entries(obj)) {
    if (typeof value !== "function") {
      out[name] = value;
      continue;
    }
    const method = value as (...args: unknown[]) => unknown;
    const op = `${group}.${name}`;
    out[name] = (...args: unknown[]) => {
      const t = telemetry.on;
      const r = t === undefined ? method.apply(obj, args) : traced(t, op, () => method.apply(obj, args));
      return r instanceof Promise
        ? r.catch((e: unknown) => {
            throw storeFault(e);
          })
        : r;
    };
  }
  return out as T;
}

/** A call that may answer a promise, in its span when it does. */
function traced(t: Telemetry, op: string, call: () => unknown): unknown {
  let pending = false;
  let sync: { value: unknown } | { thrown: unknown } | undefined;
  const r = t.storeOp(op, () => {
    try {
      const v = call();
      if (v instanceof Promise) {
        pending = true;
        return v;
      }
      sync = { value: v };
    } catch (e) {
      sync = { thrown: e };
    }
    return Promise.resolve();
  });
  if (pending) return r;
  if (sync !== undefined && "thrown" in sync) throw sync.thrown;
  return sync?.value;
}

/** The store with its connection faults answered as StoreUnavailableError (the listening side reconnects by itself). */
export function withUnavailableFaults(store: AgentStore): AgentStore {
  const shared = store.shared;
  return {
    ...store,
    tasks: mapped(store.tasks, "tasks"),
    pushConfigs: mapped(store.pushConfigs, "pushConfigs"),
    ...(shared
      ? { shared: { ...mapped(shared, "shared"), watch: shared.watch.bind(shared), outbox: mapped(shared.outbox, "outbox") } }
      : {}),
  };
}
