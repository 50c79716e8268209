/**
 * The example agent's OpenTelemetry from the standard OTEL_* environment: the
 * scaffold's own file (what a scaffolded agent gets as src/telemetry.ts), so
 * that one copy is written and tested. Without OTEL_EXPORTER_OTLP_ENDPOINT it
 * imports no SDK package. See docs/observability.md.
 */
export { startTelemetry, TelemetryConfigError, telemetryWanted, type Telemetry } from "../packages/plugin/templates/scaffold/telemetry.js";
