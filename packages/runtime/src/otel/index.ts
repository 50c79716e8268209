/**
 * `a2a-http/otel`: the runtime's traces and metrics on OpenTelemetry's API.
 * The rest of the runtime never imports `@opentelemetry/api` (an optional
 * peer dependency): `enableOpenTelemetry()` puts the implementation in the
 * core's hook (telemetry.ts), and until it is called nothing is recorded and
 * nothing costs. No `node:` imports: it runs on the edge runtimes too (where
 * a context manager, if any, is the host's).
 */
import { metrics, propagation, trace, type MeterProvider, type TextMapPropagator, type TracerProvider } from "@opentelemetry/api";
import { telemetry } from "../telemetry.js";
import { instruments } from "./instruments.js";
import { OtelTelemetry } from "./signals.js";

/** The instrumentation scope's name: what a backend shows as the library the signals came from. */
export const INSTRUMENTATION_NAME = "a2a-http";

/** Options of {@link enableOpenTelemetry}: each defaults to OpenTelemetry's global one. */
export interface OpenTelemetryOptions {
  readonly tracerProvider?: TracerProvider;
  readonly meterProvider?: MeterProvider;
  /** Reads the caller's trace context and writes ours (`traceparent`, `tracestate`, `baggage`). */
  readonly propagator?: TextMapPropagator;
}

/**
 * Traces and measures the servers, the task engine, push delivery, the SQL
 * store and the generated client through OpenTelemetry (the signals:
 * docs/observability.md). Without providers given, the global ones:
 * register an SDK (before or after this call) for anything to be recorded.
 * Returns a function that turns it off again. Calling it again replaces
 * the previous installation with one on the new options.
 */
export function enableOpenTelemetry(options: OpenTelemetryOptions = {}): () => void {
  const tracer = (options.tracerProvider ?? trace.getTracerProvider()).getTracer(INSTRUMENTATION_NAME);
  const meter = (options.meterProvider ?? metrics.getMeterProvider()).getMeter(INSTRUMENTATION_NAME);
  const installed = new OtelTelemetry(tracer, options.propagator ?? propagation, instruments(meter));
  telemetry.on = installed;
  return () => {
    // Only its own: a later enableOpenTelemetry stays on.
    if (telemetry.on === installed) telemetry.on = undefined;
  };
}
