// OpenTelemetry's SDK packages are not in package.json (src/telemetry.ts
// imports them only when the OTEL_* environment asks for export, and says what
// to install when they are missing), so that the project type-checks and
// builds without them, this declares them as modules of type any. A package
// that is installed keeps its own types: TypeScript uses a wildcard
// declaration like this one only for what it cannot find.
declare module "@opentelemetry/*";
