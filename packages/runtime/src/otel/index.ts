/**
 * `a2a-http/otel`: the runtime's traces and metrics on OpenTelemetry's API.
 * The rest of the runtime never imports `@opentelemetry/api` (an optional
 * peer dependency): `enableOpenTelemetry()` puts the implementation in the
 * core's hook (telemetry.ts), and until it is called nothing is recorded and
 * nothing costs. No `node:` imports: it runs on the edge runtimes too (where
 * a context manager, if any, is the host's).
 */
import type { MeterProvider, TextMapPropagator, TracerProvider } from "@opentelemetry/api";
import { installedTelemetry, installTelemetry } from "../telemetry.js";
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
 * docs/observability-signals.md). Without providers given, the global ones:
 * register an SDK (before or after this call) for anything to be recorded;
 * until one is, the runtime does nothing more than with telemetry off.
 * Returns a function that turns it off again. Calling it again replaces
 * the previous installation with one on the new options.
 */
export function enableOpenTelemetry(options: OpenTelemetryOptions = {}): () => void {
  const installed = new OtelTelemetry(INSTRUMENTATION_NAME, options);
  installTelemetry(installed);
  return () => {
    // Only its own: a later enableOpenTelemetry stays on.
    if (installedTelemetry() === installed) installTelemetry(undefined);
  };
}
