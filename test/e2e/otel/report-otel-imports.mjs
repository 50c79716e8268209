// Preloaded (--import) into the example agent by example-otlp.test.ts: writes
// one stderr line per OpenTelemetry module the process resolves, so that a
// test sees which ones it loaded. Node's synchronous module hooks see every
// import, static or dynamic, ahead of tsx's own.
import { registerHooks } from "node:module";

registerHooks({
  resolve(specifier, context, nextResolve) {
    const resolved = nextResolve(specifier, context);
    if (resolved.url.includes("/@opentelemetry/")) process.stderr.write(`otel-module: ${resolved.url}\n`);
    return resolved;
  },
});
