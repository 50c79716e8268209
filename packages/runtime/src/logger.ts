/**
 * Where the runtime writes what it has to say off the request path (errors a
 * handler threw, push deliveries given up, which store is open): a
 * {@link Logger}, the shape pino's loggers have (`logger.error({ err }, "msg")`),
 * so that a pino logger, or anything with those three methods, can be passed
 * as the `logger` option. Imports nothing from `node:`.
 *
 * Two are here: {@link consoleLogger}, the default, which prints what the
 * runtime printed before it had a logger (the message, then the error), and
 * {@link jsonLogger}, one JSON object per line (`LOG_FORMAT=json` in the
 * example and the scaffold, {@link loggerFromEnv}).
 */
import { telemetry } from "./telemetry.js";

/**
 * What the runtime logs through. `fields` are structured facts about the
 * event (by convention `err` for an error, as pino names it); `msg` says what
 * happened in a few words. A pino logger is one; so is `console`, which
 * prints the fields and then the message.
 */
export interface Logger {
  info(fields: object, msg?: string): void;
  warn(fields: object, msg?: string): void;
  error(fields: object, msg?: string): void;
}

type Level = "info" | "warn" | "error";

/**
 * The default: the console, as the runtime wrote before it had a logger.
 * An event with an `err` prints as `<msg>: <the error>` (console.error and
 * console.warn show its stack); one without, as its message alone; the other
 * fields are left out (the JSON logger has them). `info` goes to
 * `console.log`, `warn` to `console.warn`, `error` to `console.error`.
 */
export const consoleLogger: Logger = Object.freeze({
  info: (fields: object, msg?: string) => toConsole("info", fields, msg),
  warn: (fields: object, msg?: string) => toConsole("warn", fields, msg),
  error: (fields: object, msg?: string) => toConsole("error", fields, msg),
});

function toConsole(level: Level, fields: object, msg: string | undefined): void {
  const out = level === "info" ? console.log : level === "warn" ? console.warn : console.error;
  const err = (fields as { err?: unknown }).err;
  if (err === undefined) out(msg ?? "");
  else if (msg === undefined) out(err);
  else out(`${msg}:`, err);
}

/** Options of {@link jsonLogger}. */
export interface JsonLoggerOptions {
  /** Where each line goes (without its newline). Default `console.log` (stdout). */
  readonly write?: (line: string) => void;
  /** Fields on every line, e.g. `{ service: "my-agent" }`. */
  readonly base?: Readonly<Record<string, unknown>>;
  /** The clock, for tests. Default `Date.now`. */
  readonly now?: () => number;
}

/**
 * One JSON object per event, on one line: `time` (ISO 8601), `level`
 * (`info`, `warn`, `error`), `msg`, `trace_id` and `span_id` of the active
 * span when OpenTelemetry is enabled (`a2a-http/otel`), then the base fields
 * and the event's. An
 * `err` that is an Error becomes `{ type, message, stack }` (and its `code`
 * and `cause` when it has them), as JSON.stringify would give `{}`. A field
 * JSON cannot hold (a cycle, a BigInt) is written as its string.
 */
export function jsonLogger(options: JsonLoggerOptions = {}): Logger {
  const write = options.write ?? ((line: string) => console.log(line));
  const now = options.now ?? Date.now;
  const base = options.base ?? {};
  const emit = (level: Level, fields: object, msg: string | undefined) => {
    const event: Record<string, unknown> = { time: new Date(now()).toISOString(), level };
    if (msg !== undefined) event["msg"] = msg;
    // With telemetry on (telemetry.ts), the line names the span it was written in.
    const ids = telemetry.on?.ids();
    if (ids !== undefined) {
      event["trace_id"] = ids.traceId;
      event["span_id"] = ids.spanId;
    }
    for (const [k, v] of Object.entries(base)) event[k] = v;
    for (const [k, v] of Object.entries(fields)) event[k] = v instanceof Error ? errorFields(v, 0) : v;
    let line: string;
    try {
      line = JSON.stringify(event, (_key, value: unknown) => (typeof value === "bigint" ? value.toString() : value));
    } catch {
      // A cycle: each field on its own, the ones JSON refuses as strings.
      const safe: Record<string, unknown> = {};
      for (const [k, v] of Object.entries(event)) safe[k] = jsonOrString(v);
      line = JSON.stringify(safe);
    }
    write(line);
  };
  return {
    info: (fields, msg) => emit("info", fields, msg),
    warn: (fields, msg) => emit("warn", fields, msg),
    error: (fields, msg) => emit("error", fields, msg),
  };
}

function errorFields(e: Error, depth: number): Record<string, unknown> {
  const out: Record<string, unknown> = { type: e.name, message: e.message };
  const code = (e as { code?: unknown }).code;
  if (code !== undefined) out["code"] = code;
  if (e.stack !== undefined) out["stack"] = e.stack;
  if (e.cause !== undefined && depth < 3) out["cause"] = e.cause instanceof Error ? errorFields(e.cause, depth + 1) : jsonOrString(e.cause);
  return out;
}

function jsonOrString(v: unknown): unknown {
  try {
    JSON.stringify(v);
    return v;
  } catch {
    return String(v);
  }
}

/**
 * The logger an environment asks for: {@link jsonLogger} when `LOG_FORMAT` is
 * `json`, else {@link consoleLogger}. Pass `process.env` on Node (this
 * module does not read it itself, so that it runs where there is none).
 */
export function loggerFromEnv(env: Readonly<Record<string, string | undefined>>, options?: JsonLoggerOptions): Logger {
  return env["LOG_FORMAT"]?.trim().toLowerCase() === "json" ? jsonLogger(options) : consoleLogger;
}
