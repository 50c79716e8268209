/**
 * The runtime's {@link Telemetry} on OpenTelemetry's API: the spans, their
 * names and attributes (the semantic conventions for RPC and HTTP, and
 * `a2a.*` for A2A's ids), the trace context read from and written to
 * headers, and the metrics of instruments.ts. Only ids, names, codes and
 * statuses reach an attribute: never a message's content, a header's value
 * or a credential. docs/observability-signals.md lists every name.
 */
import {
  context as contexts,
  createNoopMeter,
  type MeterProvider,
  metrics,
  ProxyTracerProvider,
  propagation,
  type TracerProvider,
  type Attributes,
  type Context,
  INVALID_SPAN_CONTEXT,
  ROOT_CONTEXT,
  type SpanContext,
  type Span,
  SpanKind,
  type SpanOptions,
  SpanStatusCode,
  type TextMapGetter,
  type TextMapPropagator,
  type TextMapSetter,
  type Tracer,
  trace,
} from "@opentelemetry/api";
import { TaskState } from "../a2a.js";
import { Code, codeName, isRpcError } from "../errors.js";
import {
  installedTelemetry,
  type A2AIds,
  type PushOutcome,
  type RpcSystem,
  type RunSpan,
  type ServerCallStart,
  type ServerSpan,
  type Telemetry,
  type TraceContext,
} from "../telemetry.js";
import { type Instruments, instruments } from "./instruments.js";

/** The API's own no-ops: what the globals are until an SDK registers. */
const NOOP_TRACER_PROVIDER = new ProxyTracerProvider().getDelegate();
const NOOP_METER_CLASS = createNoopMeter().constructor as new () => unknown;

/** Reads the caller's trace headers from a call's start. */
const headersGetter: TextMapGetter<ServerCallStart> = {
  get: (carrier, key) => carrier.header(key),
  keys: (carrier) => [...carrier.headerNames()],
};

/** Writes trace headers into a plain object. */
const recordSetter: TextMapSetter<Record<string, string>> = {
  set: (carrier, key, value) => {
    carrier[key] = value;
  },
};

/** A task's kept trace context ({@link OtelTelemetry.taskTrace}): W3C's traceparent, and tracestate if any. */
interface KeptTrace {
  traceparent: string;
  tracestate?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;

/** The kept trace's fields, or undefined for text that is not one (a row written by hand, say). */
function parseKept(taskTrace: string): KeptTrace | undefined {
  try {
    const kept = JSON.parse(taskTrace) as Partial<KeptTrace> | null;
    if (typeof kept?.traceparent !== "string" || !TRACEPARENT.test(kept.traceparent)) return undefined;
    return typeof kept.tracestate === "string"
      ? { traceparent: kept.traceparent, tracestate: kept.tracestate }
      : { traceparent: kept.traceparent };
  } catch {
    return undefined;
  }
}

const keptGetter: TextMapGetter<KeptTrace> = {
  get: (carrier, key) => (key === "traceparent" ? carrier.traceparent : key === "tracestate" ? carrier.tracestate : undefined),
  keys: (carrier) => Object.keys(carrier),
};

const STATE_NAMES = new Map<number, string>(Object.entries(TaskState).map(([name, n]) => [n, name]));

/** An error's google.rpc code: an RpcError's own, a number as it is, INTERNAL for anything else (what the bindings answer). */
function codeOf(error: unknown): Code {
  if (typeof error === "number") return error as Code;
  if (isRpcError(error)) return error.code;
  // connect-es's ConnectError carries the same numbers.
  const code = (error as { code?: unknown } | null)?.code;
  if (typeof code === "number" && Number.isInteger(code) && code > 0 && code <= 16) return code as Code;
  return Code.INTERNAL;
}

function idAttributes(ids: A2AIds, into: Attributes): void {
  if (ids.tenant) into["a2a.tenant"] = ids.tenant;
  if (ids.taskId) into["a2a.task.id"] = ids.taskId;
  if (ids.contextId) into["a2a.context.id"] = ids.contextId;
}

/**
 * A stream's messages handed on, `closed` called once when it ends (done,
 * failed, or returned early). One `then` per message: not an async
 * function's promises, and not the call's context per message (what a
 * handler does in one is its own).
 */
class ObservedStream implements AsyncIterable<unknown>, AsyncIterator<unknown> {
  private it: AsyncIterator<unknown> | undefined;
  private open = true;

  constructor(
    private readonly messages: AsyncIterable<unknown>,
    private readonly closed: (error: unknown) => void,
  ) {}

  [Symbol.asyncIterator](): AsyncIterator<unknown> {
    this.it = this.messages[Symbol.asyncIterator]();
    return this;
  }

  next(): Promise<IteratorResult<unknown>> {
    return this.it!.next().then(this.onResult, this.onError);
  }

  return(value?: unknown): Promise<IteratorResult<unknown>> {
    this.close(undefined);
    const it = this.it!;
    return it.return ? it.return(value) : Promise.resolve({ done: true, value });
  }

  private readonly onResult = (r: IteratorResult<unknown>): IteratorResult<unknown> => {
    if (r.done) this.close(undefined);
    return r;
  };

  private readonly onError = (e: unknown): never => {
    this.close(e);
    throw e;
  };

  private close(error: unknown): void {
    if (!this.open) return;
    this.open = false;
    this.closed(error);
  }
}

class OtelServerSpan implements ServerSpan {
  readonly ctx: Context;
  private readonly started = performance.now();
  private code: Code = Code.OK;
  private ended = false;
  /** Set while a stream's messages are handed on: the span ends with the stream. */
  private streaming = false;
  private answered: { httpStatus: number | undefined; jsonRpcCode: number | undefined } | undefined;

  constructor(
    private readonly o: OtelTelemetry,
    readonly span: Span,
    parent: Context,
    private readonly start: ServerCallStart,
  ) {
    this.ctx = trace.setSpan(parent, span);
  }

  run<T>(fn: () => T): T {
    return contexts.with(this.ctx, fn);
  }

  annotate(ids: A2AIds): void {
    // Span attributes only (ids would make the metrics' cardinality unbounded): nothing to do unless recorded.
    if (!this.span.isRecording()) return;
    const a: Attributes = {};
    idAttributes(ids, a);
    this.span.setAttributes(a);
  }

  link(taskTrace: string): void {
    if (!this.span.isRecording()) return;
    const sc = this.o.keptSpanContext(taskTrace);
    // addLink is the API's since 1.9: with an older one, no link.
    if (sc !== undefined) this.span.addLink?.({ context: sc, attributes: { "a2a.link": "task" } });
  }

  fail(error: unknown): void {
    // The first failure is the call's; what follows (a cleanup's) is not.
    if (this.code === Code.OK) this.code = codeOf(error);
  }

  end(httpStatus?: number, jsonRpcCode?: number): void {
    this.answered = { httpStatus, jsonRpcCode };
    if (!this.streaming) this.finish();
  }

  handle(call: () => unknown): unknown {
    let result: unknown;
    try {
      result = this.run(call);
    } catch (e) {
      this.fail(e);
      throw e;
    }
    if (result instanceof Promise) {
      return result.catch((e: unknown) => {
        this.fail(e);
        throw e;
      });
    }
    if (this.start.streaming && result !== null && typeof result === "object" && Symbol.asyncIterator in result) {
      return this.stream(result as AsyncIterable<unknown>);
    }
    return result;
  }

  private stream(messages: AsyncIterable<unknown>): AsyncIterable<unknown> {
    this.streaming = true;
    const method = { "rpc.method": this.start.method };
    this.o.m.activeStreams.add(1, method);
    return new ObservedStream(messages, (error) => {
      if (error !== undefined) this.fail(error);
      this.o.m.activeStreams.add(-1, method);
      this.streaming = false;
      if (this.answered !== undefined) this.finish();
    });
  }

  private finish(): void {
    if (this.ended) return;
    this.ended = true;
    const { httpStatus, jsonRpcCode } = this.answered ?? { httpStatus: undefined, jsonRpcCode: undefined };
    const { system } = this.start;
    // Only what the end adds: the span cleans every attribute it is given, and those of its start it has already.
    const a: Attributes = {};
    a["rpc.response.status_code"] = codeName(this.code);
    if (system === "grpc") a["rpc.grpc.status_code"] = this.code;
    if (httpStatus !== undefined) a["http.response.status_code"] = httpStatus;
    if (jsonRpcCode !== undefined) a["rpc.jsonrpc.error_code"] = jsonRpcCode;
    const failed = this.code !== Code.OK || jsonRpcCode !== undefined || (httpStatus !== undefined && httpStatus >= 500);
    if (failed) {
      a["error.type"] = this.code !== Code.OK ? codeName(this.code) : String(jsonRpcCode ?? httpStatus);
      this.span.setStatus({ code: SpanStatusCode.ERROR, message: a["error.type"] as string });
    }
    this.span.setAttributes(a);
    this.span.end();
    this.measure(performance.now() - this.started, a);
  }

  /**
   * One duration per call, by the conventions of its binding: HTTP's for
   * HTTP+JSON, RPC's for JSON-RPC and gRPC; with the few attributes a metric
   * is split by (each record hashes its attributes).
   */
  private measure(ms: number, a: Attributes): void {
    const m: Attributes = { "rpc.method": this.start.method, "rpc.response.status_code": a["rpc.response.status_code"] };
    if (a["error.type"] !== undefined) m["error.type"] = a["error.type"];
    if (this.start.system === "http") {
      m["http.request.method"] = this.start.httpMethod;
      m["http.route"] = this.start.route;
      m["http.response.status_code"] = a["http.response.status_code"];
      this.o.m.httpServer.record(ms / 1000, m);
    } else {
      m["rpc.system"] = this.start.system;
      m["rpc.service"] = this.start.service;
      this.o.m.rpcServer.record(ms, m);
    }
  }
}

/** The telemetry enableOpenTelemetry installs. */
export class OtelTelemetry implements Telemetry {
  private readonly tracer: Tracer;
  private readonly propagator: Pick<TextMapPropagator, "inject" | "extract">;
  m: Instruments;
  /** Set once something records: from then on, {@link recording} is this field. */
  private live: boolean;

  constructor(
    private readonly scope: string,
    private readonly options: { tracerProvider?: TracerProvider; meterProvider?: MeterProvider; propagator?: TextMapPropagator },
  ) {
    this.tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(scope);
    this.propagator = options.propagator ?? propagation;
    this.m = this.makeInstruments();
    this.live = options.tracerProvider !== undefined || options.meterProvider !== undefined || !this.noopGlobals();
  }

  /** The instruments on the meter provider's meter; its engine gauges report while this is the installed telemetry. */
  private makeInstruments(): Instruments {
    const meter = (this.options.meterProvider ?? metrics.getMeterProvider()).getMeter(this.scope);
    return instruments(meter, () => installedTelemetry() === this);
  }

  /** Whether the global providers are still the API's no-ops (no SDK registered). */
  private noopGlobals(): boolean {
    const tp = trace.getTracerProvider();
    const noTraces = tp instanceof ProxyTracerProvider && tp.getDelegate() === NOOP_TRACER_PROVIDER;
    return noTraces && metrics.getMeterProvider().getMeter(this.scope) instanceof NOOP_METER_CLASS;
  }

  // A provider's or propagator's failure (a user's own, say) must not fail the
  // request it would have traced: the span is then a non-recording one, and
  // the trace headers are left out.

  private startSpan(name: string, options: SpanOptions, parent?: Context): Span {
    try {
      return this.tracer.startSpan(name, options, parent);
    } catch {
      return trace.wrapSpanContext(INVALID_SPAN_CONTEXT);
    }
  }

  private extract(start: ServerCallStart): Context {
    const active = contexts.active();
    try {
      return this.propagator.extract(active, start, headersGetter);
    } catch {
      return active;
    }
  }

  private inject(ctx: Context, headers: Record<string, string>): void {
    try {
      this.propagator.inject(ctx, headers, recordSetter);
    } catch {
      // No trace headers.
    }
  }

  recording(): boolean {
    if (this.live) return true;
    if (this.noopGlobals()) return false;
    // An SDK was registered since: its meter (the global meter provider is not a proxy, as the tracer provider is).
    this.m = this.makeInstruments();
    this.live = true;
    return true;
  }

  serverCall(start: ServerCallStart): ServerSpan {
    const parent = this.extract(start);
    const a: Attributes = { "rpc.service": start.service, "rpc.method": start.method };
    if (start.system !== "http") a["rpc.system"] = start.system;
    if (start.system === "jsonrpc") a["rpc.jsonrpc.version"] = "2.0";
    if (start.httpMethod !== undefined) a["http.request.method"] = start.httpMethod;
    if (start.route !== undefined) a["http.route"] = start.route;
    // HTTP's convention names a server span by method and route; RPC's by service and method.
    const name =
      start.system === "http" && start.route !== undefined ? `${start.httpMethod} ${start.route}` : `${start.service}/${start.method}`;
    const span = this.startSpan(name, { kind: SpanKind.SERVER, attributes: a }, parent);
    return new OtelServerSpan(this, span, parent, start);
  }

  executorRun(parent: ServerSpan | undefined, ids: A2AIds, continued: boolean): RunSpan {
    const base = parent instanceof OtelServerSpan ? parent.ctx : contexts.active();
    const a: Attributes = { "a2a.run.continued": continued };
    idAttributes(ids, a);
    const span = this.startSpan("a2a.executor.run", { kind: SpanKind.INTERNAL, attributes: a }, base);
    const ctx = trace.setSpan(base, span);
    const started = performance.now();
    if (!continued) this.m.tasksStarted.add(1);
    let ended = false;
    return {
      run: (fn) => contexts.with(ctx, fn),
      end: (state) => {
        if (ended) return;
        ended = true;
        const name = state === undefined ? "UNKNOWN" : (STATE_NAMES.get(state) ?? String(state));
        span.setAttribute("a2a.task.state", name);
        if (state === TaskState.FAILED) span.setStatus({ code: SpanStatusCode.ERROR, message: "FAILED" });
        span.end();
        const by = { "a2a.task.state": name };
        this.m.tasksEnded.add(1, by);
        this.m.runDuration.record((performance.now() - started) / 1000, by);
      },
    };
  }

  capture(): TraceContext {
    return contexts.active();
  }

  taskTrace(): string | undefined {
    const sc = trace.getActiveSpan()?.spanContext();
    if (sc === undefined || !trace.isSpanContextValid(sc)) return undefined;
    const flags = (sc.traceFlags & 0xff).toString(16).padStart(2, "0");
    const state = sc.traceState?.serialize();
    const traceparent = `00-${sc.traceId}-${sc.spanId}-${flags}`;
    return JSON.stringify(state ? { traceparent, tracestate: state } : { traceparent });
  }

  restore(taskTrace: string): TraceContext {
    const sc = this.keptSpanContext(taskTrace);
    return sc === undefined ? ROOT_CONTEXT : trace.setSpanContext(ROOT_CONTEXT, sc);
  }

  /**
   * The remote span context a kept trace names: read by the propagator (W3C's
   * parses tracestate too), else from the traceparent alone (a propagator of
   * another format); undefined when it names none.
   */
  keptSpanContext(taskTrace: string): SpanContext | undefined {
    const kept = parseKept(taskTrace);
    if (kept === undefined) return undefined;
    try {
      const sc = trace.getSpanContext(this.propagator.extract(ROOT_CONTEXT, kept, keptGetter));
      if (sc !== undefined && trace.isSpanContextValid(sc)) return sc;
    } catch {
      // The propagator failed: the traceparent alone.
    }
    const [, traceId, spanId, flags] = TRACEPARENT.exec(kept.traceparent)!;
    const sc: SpanContext = { traceId: traceId!, spanId: spanId!, traceFlags: Number.parseInt(flags!, 16), isRemote: true };
    return trace.isSpanContextValid(sc) ? sc : undefined;
  }

  async pushAttempt<T extends { outcome: PushOutcome; status?: number | undefined }>(
    parent: TraceContext | undefined,
    attempt: number,
    send: (headers: Record<string, string>) => Promise<T>,
  ): Promise<T> {
    const base = (parent as Context | undefined) ?? contexts.active();
    const span = this.startSpan(
      "a2a.push.deliver",
      { kind: SpanKind.CLIENT, attributes: { "http.request.method": "POST", "a2a.push.attempt": attempt } },
      base,
    );
    const headers: Record<string, string> = {};
    const ctx = trace.setSpan(base, span);
    this.inject(ctx, headers);
    const started = performance.now();
    let outcome: PushOutcome = "failed";
    try {
      const r = await contexts.with(ctx, () => send(headers));
      outcome = r.outcome;
      if (r.status !== undefined) span.setAttribute("http.response.status_code", r.status);
      return r;
    } finally {
      span.setAttribute("a2a.push.outcome", outcome);
      if (outcome !== "ok") span.setStatus({ code: SpanStatusCode.ERROR, message: outcome });
      span.end();
      this.m.pushAttempts.add(1, { "a2a.push.outcome": outcome });
      this.m.pushDuration.record((performance.now() - started) / 1000, { "a2a.push.outcome": outcome });
    }
  }

  async storeOp<T>(op: string, call: () => Promise<T>): Promise<T> {
    const a: Attributes = { "db.system.name": "postgresql", "db.operation.name": op };
    const span = this.startSpan(`store ${op}`, { kind: SpanKind.CLIENT, attributes: a });
    const started = performance.now();
    try {
      return await contexts.with(trace.setSpan(contexts.active(), span), call);
    } catch (e) {
      const type = e instanceof Error ? e.name : "Error";
      a["error.type"] = type;
      span.setStatus({ code: SpanStatusCode.ERROR, message: type });
      throw e;
    } finally {
      if (a["error.type"] !== undefined) span.setAttribute("error.type", a["error.type"]);
      span.end();
      this.m.storeDuration.record((performance.now() - started) / 1000, a);
    }
  }

  async clientCall(
    system: RpcSystem,
    service: string,
    method: string,
    send: (headers: Record<string, string>) => Promise<Response>,
  ): Promise<Response> {
    const a: Attributes = { "rpc.service": service, "rpc.method": method };
    if (system !== "http") a["rpc.system"] = system;
    const span = this.startSpan(`${service}/${method}`, { kind: SpanKind.CLIENT, attributes: a });
    const ctx = trace.setSpan(contexts.active(), span);
    const headers: Record<string, string> = {};
    this.inject(ctx, headers);
    const started = performance.now();
    try {
      const res = await send(headers);
      a["http.response.status_code"] = res.status;
      if (res.status >= 400) a["error.type"] = String(res.status);
      return res;
    } catch (e) {
      a["error.type"] = codeName(codeOf(e));
      throw e;
    } finally {
      if (a["error.type"] !== undefined) span.setStatus({ code: SpanStatusCode.ERROR, message: a["error.type"] as string });
      span.setAttributes(a);
      span.end();
      this.m.rpcClient.record(performance.now() - started, a);
    }
  }

  ids(): { traceId: string; spanId: string } | undefined {
    const span = trace.getActiveSpan();
    if (span === undefined) return undefined;
    const sc = span.spanContext();
    return trace.isSpanContextValid(sc) ? { traceId: sc.traceId, spanId: sc.spanId } : undefined;
  }
}
