/**
 * What the scaffold's src/telemetry.ts (and so example/telemetry.ts) reads
 * from OpenTelemetry's environment, in-process: when export is asked for,
 * and the settings it refuses in one line rather than ignoring. That it then
 * exports, and loads nothing without it, is example-otlp.test.ts's.
 */
import { describe, expect, it } from "vitest";
import { TelemetryConfigError, startTelemetry, telemetryWanted } from "../../../example/telemetry.js";

const endpoint = { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318" };

describe("telemetryWanted", () => {
  it.each([
    [{}, false],
    [endpoint, true],
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces" }, true],
    [{ OTEL_EXPORTER_OTLP_METRICS_ENDPOINT: "http://127.0.0.1:4318/v1/metrics" }, true],
    [{ ...endpoint, OTEL_SDK_DISABLED: "true" }, false],
    [{ ...endpoint, OTEL_SDK_DISABLED: "false" }, true],
    [{ ...endpoint, OTEL_TRACES_EXPORTER: "none", OTEL_METRICS_EXPORTER: "none" }, false],
    [{ ...endpoint, OTEL_TRACES_EXPORTER: "none" }, true],
    // A traces endpoint alone with traces off: nothing left to export.
    [{ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: "http://127.0.0.1:4318/v1/traces", OTEL_TRACES_EXPORTER: "none" }, false],
    [{ OTEL_TRACES_EXPORTER: "otlp" }, false],
  ] as const)("%j: %s", (env, wanted) => {
    expect(telemetryWanted(env)).toBe(wanted);
  });

  it.each([
    [{ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: set it to http/protobuf"],
    [{ ...endpoint, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: "grpc" }, "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=grpc is not supported"],
    [{ ...endpoint, OTEL_EXPORTER_OTLP_PROTOCOL: "thrift" }, "OTEL_EXPORTER_OTLP_PROTOCOL=thrift: give http/protobuf or http/json"],
    [{ ...endpoint, OTEL_TRACES_EXPORTER: "zipkin" }, "OTEL_TRACES_EXPORTER=zipkin: only otlp (or none) is supported here"],
  ] as const)("%j is refused: %s", (env, message) => {
    expect(() => telemetryWanted(env)).toThrow(TelemetryConfigError);
    expect(() => telemetryWanted(env)).toThrow(message);
  });
});

describe("startTelemetry", () => {
  it("resolves with undefined, starting nothing, without the environment", async () => {
    expect(await startTelemetry({ serviceName: "x", env: {} })).toBeUndefined();
  });

  it.each([
    [{ ...endpoint, OTEL_TRACES_SAMPLER: "sometimes" }, "OTEL_TRACES_SAMPLER=sometimes: give always_on"],
    [
      { ...endpoint, OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" },
      "OTEL_TRACES_SAMPLER_ARG=2: give a ratio from 0 to 1",
    ],
    [{ ...endpoint, OTEL_BSP_SCHEDULE_DELAY: "5s" }, "OTEL_BSP_SCHEDULE_DELAY=5s is not a whole number of milliseconds"],
  ] as const)("%j is refused: %s", async (env, message) => {
    await expect(startTelemetry({ serviceName: "x", env })).rejects.toThrow(message);
  });
});
