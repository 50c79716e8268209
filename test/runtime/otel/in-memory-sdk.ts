// The OpenTelemetry SDK the otel tests record into, in memory: spans kept by
// an in-memory exporter, metrics collected on demand, W3C propagators, the
// AsyncLocalStorage context manager; and a2a-http/otel enabled on them for
// the test file (useInMemorySdk), with `disable` and `enable` for the tests
// that turn it off for a while.
import { context } from "@opentelemetry/api";
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks";
import { CompositePropagator, W3CBaggagePropagator, W3CTraceContextPropagator } from "@opentelemetry/core";
import { MeterProvider, MetricReader } from "@opentelemetry/sdk-metrics";
import { InMemorySpanExporter, SimpleSpanProcessor, TracerProvider } from "@opentelemetry/sdk-trace";
import { afterAll, afterEach, beforeAll } from "vitest";
import { enableOpenTelemetry } from "a2a-http/otel";

/** Collects on demand. */
class TestReader extends MetricReader {
  protected async onForceFlush(): Promise<void> {}
  protected async onShutdown(): Promise<void> {}
}

export const spans = new InMemorySpanExporter();
export const tracerProvider = new TracerProvider({ spanProcessors: [new SimpleSpanProcessor({ exporter: spans })] });
export const reader = new TestReader();
export const meterProvider = new MeterProvider({ readers: [reader] });
export const propagator = new CompositePropagator({ propagators: [new W3CTraceContextPropagator(), new W3CBaggagePropagator()] });

let off: () => void = () => {};

/** Enables a2a-http/otel on the providers above (again, after `disable`). */
export function enable(): void {
  off = enableOpenTelemetry({ tracerProvider, meterProvider, propagator });
}

/** Turns a2a-http/otel off. */
export function disable(): void {
  off();
}

/** For the test file: the context manager and a2a-http/otel on before all, off after all; spans forgotten after each test. */
export function useInMemorySdk(): void {
  beforeAll(() => {
    context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable());
    enable();
  });
  afterAll(() => {
    disable();
    context.disable();
  });
  afterEach(() => spans.reset());
}
