// OpenTelemetry from the standard environment, with nothing to configure in
// code: when OTEL_EXPORTER_OTLP_ENDPOINT (or a signal's own
// OTEL_EXPORTER_OTLP_TRACES_ENDPOINT / OTEL_EXPORTER_OTLP_METRICS_ENDPOINT) is
// set, the agent exports its traces and metrics over OTLP/HTTP to it;
// otherwise this file loads none of the OpenTelemetry SDK's packages and costs
// nothing. The variables it reads are OpenTelemetry's own (its SDK
// environment specification): OTEL_SDK_DISABLED, OTEL_SERVICE_NAME,
// OTEL_RESOURCE_ATTRIBUTES, OTEL_TRACES_EXPORTER and OTEL_METRICS_EXPORTER
// (otlp or none), OTEL_EXPORTER_OTLP_PROTOCOL (http/protobuf, the default, or
// http/json; also per signal), OTEL_EXPORTER_OTLP_HEADERS, OTEL_TRACES_SAMPLER
// and OTEL_TRACES_SAMPLER_ARG, OTEL_BSP_SCHEDULE_DELAY,
// OTEL_BSP_EXPORT_TIMEOUT, OTEL_METRIC_EXPORT_INTERVAL,
// OTEL_METRIC_EXPORT_TIMEOUT and OTEL_LOG_LEVEL.
//
// The SDK's packages (telemetryPackages below, about 20 MB) are not in the
// project's package.json, so that its production install (npm ci
// --omit=dev) stays small; this file imports them only when the environment
// asks for export, and when they are missing it says in one line what to
// run (telemetryInstallCommand) and the agent serves without export.
// src/opentelemetry.d.ts lets the project type-check without them (and this
// file has their own types once they are installed). The example agent of
// protoc-gen-a2a-http runs this very file; `protoc-gen-a2a-http scaffold
// --force` rewrites it.

/** An environment that asks for something this file cannot do (gRPC, an unknown exporter or sampler). */
export class TelemetryConfigError extends Error {
  override name = "TelemetryConfigError";
}

/** The SDK that runs, for {@link Telemetry.shutdown}. */
export interface Telemetry {
  /** Which signals are exported, and where, in one line (for the agent's log). */
  readonly description: string;
  /** Exports what is still buffered, then stops (bounded by `timeoutMs`, default 5 000). */
  shutdown(timeoutMs?: number): Promise<void>;
}

export interface TelemetryOptions {
  /** The service name when neither OTEL_SERVICE_NAME nor OTEL_RESOURCE_ATTRIBUTES's service.name gives one. */
  readonly serviceName: string;
  /** Where one line goes when the environment asks for export but the SDK is not installed. Default: console.warn. */
  readonly warn?: (line: string) => void;
  /** The environment. Default: process.env (the exporters and resource read process.env themselves). */
  readonly env?: NodeJS.ProcessEnv;
}

/**
 * The packages imported when the environment asks for export, at the versions
 * the example agent of protoc-gen-a2a-http runs and is tested with (its
 * devDependencies; test/plugin/scaffold/versions.test.ts checks they match).
 */
export const telemetryPackages = {
  "@opentelemetry/api": "1.10.0",
  "@opentelemetry/context-async-hooks": "3.1.1",
  "@opentelemetry/core": "3.1.1",
  "@opentelemetry/resources": "3.1.1",
  "@opentelemetry/sdk-trace": "3.1.1",
  "@opentelemetry/sdk-metrics": "3.1.1",
  "@opentelemetry/exporter-trace-otlp-proto": "0.301.2",
  "@opentelemetry/exporter-trace-otlp-http": "0.301.2",
  "@opentelemetry/exporter-metrics-otlp-proto": "0.301.2",
  "@opentelemetry/exporter-metrics-otlp-http": "0.301.2",
} as const;

/** What to run in the project to add them to its dependencies, exactly at those versions. */
export const telemetryInstallCommand = `npm install --save-exact ${Object.entries(telemetryPackages)
  .map(([name, version]) => `${name}@${version}`)
  .join(" ")}`;

type Signal = "TRACES" | "METRICS";
type Protocol = "http/protobuf" | "http/json";

/** What the environment asks of one signal: undefined for nothing. */
function exportOf(env: NodeJS.ProcessEnv, signal: Signal): Protocol | undefined {
  const exporterVar = `OTEL_${signal}_EXPORTER`;
  const exporters = (env[exporterVar]?.trim() || "otlp")
    .split(",")
    .map((e) => e.trim().toLowerCase())
    .filter((e) => e !== "");
  if (exporters.includes("none")) return undefined;
  const unknown = exporters.filter((e) => e !== "otlp");
  if (unknown.length > 0) throw new TelemetryConfigError(`${exporterVar}=${env[exporterVar]}: only otlp (or none) is supported here`);
  // The standard default exporter is otlp, but without an endpoint nobody asked for one.
  if (!env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim() && !env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim()) return undefined;
  const protocolVar = env[`OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`]?.trim()
    ? `OTEL_EXPORTER_OTLP_${signal}_PROTOCOL`
    : "OTEL_EXPORTER_OTLP_PROTOCOL";
  const protocol = env[protocolVar]?.trim() || "http/protobuf";
  if (protocol === "http/protobuf" || protocol === "http/json") return protocol;
  if (protocol === "grpc") {
    throw new TelemetryConfigError(
      `${protocolVar}=grpc is not supported: set it to http/protobuf (or http/json) and point the endpoint at the collector's OTLP/HTTP port (4318)`,
    );
  }
  throw new TelemetryConfigError(`${protocolVar}=${protocol}: give http/protobuf or http/json`);
}

/** A whole number of milliseconds from `name`, or `fallback`. */
function millis(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]?.trim();
  if (!raw) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 0) throw new TelemetryConfigError(`${name}=${raw} is not a whole number of milliseconds`);
  return n;
}

const samplers = ["always_on", "always_off", "traceidratio"];

/** What the environment asks for, checked before anything is imported; undefined for no export. */
function settingsOf(env: NodeJS.ProcessEnv) {
  if (env["OTEL_SDK_DISABLED"]?.trim().toLowerCase() === "true") return undefined;
  const traces = exportOf(env, "TRACES");
  const metrics = exportOf(env, "METRICS");
  if (!traces && !metrics) return undefined;
  const sampler = env["OTEL_TRACES_SAMPLER"]?.trim().toLowerCase() || "parentbased_always_on";
  if (!samplers.includes(sampler.replace(/^parentbased_/, ""))) {
    throw new TelemetryConfigError(
      `OTEL_TRACES_SAMPLER=${env["OTEL_TRACES_SAMPLER"]}: give always_on, always_off, traceidratio or parentbased_ with one of those`,
    );
  }
  const ratioRaw = env["OTEL_TRACES_SAMPLER_ARG"]?.trim();
  const ratio = ratioRaw ? Number(ratioRaw) : 1;
  if (sampler.endsWith("traceidratio") && !(ratio >= 0 && ratio <= 1)) {
    throw new TelemetryConfigError(`OTEL_TRACES_SAMPLER_ARG=${ratioRaw}: give a ratio from 0 to 1`);
  }
  const metricInterval = millis(env, "OTEL_METRIC_EXPORT_INTERVAL", 60000);
  return {
    traces,
    metrics,
    sampler,
    ratio,
    spanDelay: millis(env, "OTEL_BSP_SCHEDULE_DELAY", 5000),
    spanTimeout: millis(env, "OTEL_BSP_EXPORT_TIMEOUT", 30000),
    metricInterval,
    // The reader refuses a timeout longer than the interval (OTEL_METRIC_EXPORT_INTERVAL=1000 alone would fail).
    metricTimeout: Math.min(millis(env, "OTEL_METRIC_EXPORT_TIMEOUT", 30000), metricInterval),
    logLevel: env["OTEL_LOG_LEVEL"]?.trim(),
  };
}

/** True when the environment asks for export; throws TelemetryConfigError for what it cannot do. */
export function telemetryWanted(env: NodeJS.ProcessEnv = process.env): boolean {
  return settingsOf(env) !== undefined;
}

/**
 * Starts the OpenTelemetry SDK when the environment asks for export (see the
 * top of this file) and has the A2A runtime record into it
 * (enableOpenTelemetry of a2a-http/otel); resolves with undefined otherwise,
 * having imported no SDK package. Throws TelemetryConfigError for a setting it
 * cannot honour (OTLP over gRPC, another exporter, an unknown sampler).
 */
export async function startTelemetry(options: TelemetryOptions): Promise<Telemetry | undefined> {
  const env = options.env ?? process.env;
  const settings = settingsOf(env);
  if (!settings) return undefined;
  const { traces, metrics } = settings;
  let sdk: Awaited<ReturnType<typeof importSdk>>;
  try {
    sdk = await importSdk(traces, metrics);
  } catch (e) {
    if ((e as { code?: string }).code !== "ERR_MODULE_NOT_FOUND") throw e;
    (options.warn ?? console.warn)(
      `OpenTelemetry export is configured (OTEL_EXPORTER_OTLP_*) but its SDK is not installed, so nothing is exported: ` +
        telemetryInstallCommand,
    );
    return undefined;
  }
  const { api, core } = sdk;
  // The SDK reports failed exports through its diagnostic logger, silent unless asked.
  if (settings.logLevel) api.diag.setLogger(new api.DiagConsoleLogger(), core.diagLogLevelFromString(settings.logLevel));
  // Later merges win: the default's unknown_service, then the agent's name, then OTEL_SERVICE_NAME / OTEL_RESOURCE_ATTRIBUTES.
  const resource = sdk.resources
    .defaultResource()
    .merge(sdk.resources.resourceFromAttributes({ "service.name": options.serviceName }))
    .merge(sdk.resources.detectResources({ detectors: [sdk.resources.envDetector] }));
  const contextManager = new sdk.contextAsyncHooks.AsyncLocalStorageContextManager();
  contextManager.enable();
  api.context.setGlobalContextManager(contextManager);
  const propagator = new core.CompositePropagator({
    propagators: [new core.W3CTraceContextPropagator(), new core.W3CBaggagePropagator()],
  });
  api.propagation.setGlobalPropagator(propagator);
  let tracerProvider: InstanceType<typeof import("@opentelemetry/sdk-trace")["TracerProvider"]> | undefined;
  if (traces && sdk.trace && sdk.traceExporter) {
    tracerProvider = new sdk.trace.TracerProvider({
      resource,
      sampler: samplerOf(settings.sampler, settings.ratio, sdk.trace),
      spanProcessors: [
        new sdk.trace.BatchSpanProcessor({
          exporter: new sdk.traceExporter.OTLPTraceExporter(),
          scheduledDelayMillis: settings.spanDelay,
          exportTimeoutMillis: settings.spanTimeout,
        }),
      ],
    });
    api.trace.setGlobalTracerProvider(tracerProvider);
  }
  let meterProvider: InstanceType<typeof import("@opentelemetry/sdk-metrics")["MeterProvider"]> | undefined;
  if (metrics && sdk.metrics && sdk.metricExporter) {
    meterProvider = new sdk.metrics.MeterProvider({
      resource,
      readers: [
        new sdk.metrics.PeriodicExportingMetricReader({
          exporter: new sdk.metricExporter.OTLPMetricExporter(),
          exportIntervalMillis: settings.metricInterval,
          exportTimeoutMillis: settings.metricTimeout,
        }),
      ],
    });
    api.metrics.setGlobalMeterProvider(meterProvider);
  }
  const disable = sdk.a2a.enableOpenTelemetry({
    ...(tracerProvider ? { tracerProvider } : {}),
    ...(meterProvider ? { meterProvider } : {}),
    propagator,
  });
  const where = (signal: Signal) => env[`OTEL_EXPORTER_OTLP_${signal}_ENDPOINT`]?.trim() || env["OTEL_EXPORTER_OTLP_ENDPOINT"]?.trim();
  const description = [
    traces ? `traces to ${where("TRACES")} (${traces})` : "no traces",
    metrics ? `metrics to ${where("METRICS")} (${metrics})` : "no metrics",
  ].join(", ");
  let stopped: Promise<void> | undefined;
  return {
    description: `OpenTelemetry: ${description}`,
    shutdown: (timeoutMs = 5000) =>
      (stopped ??= (async () => {
        disable();
        let timer: NodeJS.Timeout | undefined;
        // A collector that does not answer must not hold the agent's exit.
        const late = new Promise<void>((ok) => (timer = setTimeout(ok, timeoutMs).unref()));
        const flushed = Promise.allSettled([tracerProvider?.shutdown(), meterProvider?.shutdown()]).then(() => undefined);
        await Promise.race([flushed, late]);
        clearTimeout(timer);
      })()),
  };
}

/** The SDK's modules, imported only now; a signal's exporter only for its protocol. */
async function importSdk(traces: Protocol | undefined, metrics: Protocol | undefined) {
  const [api, core, resources, contextAsyncHooks, a2a] = await Promise.all([
    import("@opentelemetry/api"),
    import("@opentelemetry/core"),
    import("@opentelemetry/resources"),
    import("@opentelemetry/context-async-hooks"),
    import("a2a-http/otel"),
  ]);
  const [trace, traceExporter, metricsSdk, metricExporter] = await Promise.all([
    traces ? import("@opentelemetry/sdk-trace") : undefined,
    traces === "http/protobuf"
      ? import("@opentelemetry/exporter-trace-otlp-proto")
      : traces === "http/json"
        ? import("@opentelemetry/exporter-trace-otlp-http")
        : undefined,
    metrics ? import("@opentelemetry/sdk-metrics") : undefined,
    metrics === "http/protobuf"
      ? import("@opentelemetry/exporter-metrics-otlp-proto")
      : metrics === "http/json"
        ? import("@opentelemetry/exporter-metrics-otlp-http")
        : undefined,
  ]);
  return { api, core, resources, contextAsyncHooks, a2a, trace, traceExporter, metrics: metricsSdk, metricExporter };
}

/** The sampler OTEL_TRACES_SAMPLER names (checked by settingsOf), with OTEL_TRACES_SAMPLER_ARG's ratio. */
function samplerOf(name: string, ratio: number, sdk: typeof import("@opentelemetry/sdk-trace")) {
  const root = name.endsWith("always_off")
    ? new sdk.AlwaysOffSampler()
    : name.endsWith("traceidratio")
      ? new sdk.TraceIdRatioBasedSampler(ratio)
      : new sdk.AlwaysOnSampler();
  return name.startsWith("parentbased_") ? new sdk.ParentBasedSampler({ root }) : root;
}
