/**
 * The runtime's one hook for tracing and metrics. The core never imports
 * `@opentelemetry/api`: `enableOpenTelemetry()` (`a2a-http/otel`, otel/)
 * puts an implementation of {@link Telemetry} in `telemetry.on`, and every
 * hot path checks that one field; while it is undefined (the default) nothing
 * is recorded and nothing is allocated. No `node:` imports (the client and
 * the server core bundle for browsers and Workers), nothing but types and
 * one object, so that it costs a bundle a few bytes.
 *
 * What is passed across is facts the bindings and the engine already hold
 * (names, ids, codes, statuses); never a message's content, a header's
 * value, or a credential: the implementation cannot record what it is not
 * given.
 */

/** The binding a server call came on: `http` is HTTP+JSON. */
export type RpcSystem = "http" | "jsonrpc" | "grpc";

/** What a binding knows of a server call when it starts. */
export interface ServerCallStart {
  readonly system: RpcSystem;
  /** The proto service's full name, e.g. `lf.a2a.v1.A2AService`. */
  readonly service: string;
  /** The proto method's name, e.g. `SendMessage`. */
  readonly method: string;
  /**
   * A request header by lower-case name: the caller's `traceparent`,
   * `tracestate` and `baggage` are read, nothing else (a lookup, not a
   * Headers object, which some adapters build only when asked).
   */
  readonly header: (name: string) => string | undefined;
  /** The request's header names, for a propagator that looks through them all (W3C's do not). */
  readonly headerNames: () => Iterable<string>;
  /** The HTTP method (HTTP+JSON, JSON-RPC). */
  readonly httpMethod?: string | undefined;
  /** The matched path template (HTTP+JSON), never the path itself: it holds ids. */
  readonly route?: string | undefined;
  readonly streaming: boolean;
}

/**
 * A Headers' names, for {@link ServerCallStart.headerNames}: by `forEach`,
 * which every lib typing of Headers has (`keys()` needs DOM.Iterable, which
 * the package's own and its users' strict tsconfigs need not hold).
 */
export function headerNamesOf(headers: Headers): string[] {
  const names: string[] = [];
  headers.forEach((_value, name) => {
    names.push(name);
  });
  return names;
}

/** The ids of A2A a span is about (never content). */
export interface A2AIds {
  readonly tenant?: string | undefined;
  readonly taskId?: string | undefined;
  readonly contextId?: string | undefined;
}

/** A server call's span and measures, from its start to its answer (a stream's: its end). */
export interface ServerSpan {
  /** Runs `fn` with the span as the active context (what the handler and the clients it calls continue). */
  run<T>(fn: () => T): T;
  /** Adds the A2A ids the call acts on. */
  annotate(ids: A2AIds): void;
  /** A failure of the call: its google.rpc code is recorded (never its message). */
  fail(error: unknown): void;
  /**
   * Ends the call: `httpStatus` of the answer (HTTP bindings), `jsonRpcCode`
   * of a JSON-RPC error. Ending twice is a no-op.
   */
  end(httpStatus?: number, jsonRpcCode?: number): void;
  /**
   * The handler's call, in the span's context: a throw or rejection is
   * recorded ({@link fail}); a stream's messages are handed on, and the span
   * ends (with the stream's error, if any) when the stream does, not at
   * {@link end}.
   */
  handle(call: () => unknown): unknown;
}

/** An executor run's span: the executor runs inside it. */
export interface RunSpan {
  run<T>(fn: () => T): T;
  /** The run returned; `state` is the task's state then (a TaskState number). */
  end(state: number | undefined): void;
}

/** A captured trace context (opaque): what a push delivery continues. */
export type TraceContext = object;

/** How one push delivery attempt went. */
export type PushOutcome = "ok" | "retry" | "failed";

export interface Telemetry {
  /**
   * Whether anything would be recorded: false while the providers are the
   * API's no-ops (no SDK registered yet), when the runtime skips all of it
   * as if telemetry were off; true from the first time it is not.
   */
  recording(): boolean;
  /** A server call begins (a SERVER span, child of the caller's trace context). */
  serverCall(start: ServerCallStart): ServerSpan;
  /** An executor run starts on a task, from the request whose span is `parent` (if traced). */
  executorRun(parent: ServerSpan | undefined, ids: A2AIds, continued: boolean): RunSpan;
  /** The active trace context, to continue later (a push delivery queued now). */
  capture(): TraceContext;
  /**
   * One push delivery attempt, under `parent` (else the active context):
   * `send` gets the headers to add (`traceparent`...) and resolves with the
   * outcome and the HTTP status, if one came.
   */
  pushAttempt<T extends { outcome: PushOutcome; status?: number | undefined }>(
    parent: TraceContext | undefined,
    attempt: number,
    send: (headers: Record<string, string>) => Promise<T>,
  ): Promise<T>;
  /** One store operation (`tasks.commit`...), its span and duration; `op` is what it does, never a value. */
  storeOp<T>(op: string, call: () => Promise<T>): Promise<T>;
  /**
   * A client call's HTTP request, sent by `send` with the headers to add
   * (`traceparent`, `tracestate`, `baggage` of the active context): a CLIENT
   * span and rpc.client.duration.
   */
  clientCall(
    system: RpcSystem,
    service: string,
    method: string,
    send: (headers: Record<string, string>) => Promise<Response>,
  ): Promise<Response>;
  /** The active span's ids, for log lines. */
  ids(): { traceId: string; spanId: string } | undefined;
}

/** Where a request or handler context keeps its call's span (a property, cheaper than a WeakMap's entry per request). */
const SPAN: unique symbol = Symbol("a2a-http server span");

/** Ties a request or handler context to its call's span (for {@link spanOf}). */
export function bindSpan(target: object, span: ServerSpan): void {
  (target as { [SPAN]?: ServerSpan })[SPAN] = span;
}

/** The server span a request or handler context belongs to, if the call is traced. */
export function spanOf(target: object): ServerSpan | undefined {
  return (target as { [SPAN]?: ServerSpan })[SPAN];
}

let installed: Telemetry | undefined;

/** Installs `t` (undefined: none, the default); `enableOpenTelemetry` calls it. */
export function installTelemetry(t: Telemetry | undefined): void {
  installed = t;
}

/** What {@link installTelemetry} installed last, recording or not. */
export function installedTelemetry(): Telemetry | undefined {
  return installed;
}

/**
 * The one field hot paths read: the installed telemetry while it records,
 * else undefined (the default: nothing installed).
 */
export const telemetry: { readonly on: Telemetry | undefined } = {
  get on() {
    const t = installed;
    return t?.recording() ? t : undefined;
  },
};
