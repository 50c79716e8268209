import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const runtimeSource = (file: string) => fileURLToPath(new URL(`./packages/runtime/src/${file}`, import.meta.url));

/**
 * The tests that call a generated client, run a second time over the same
 * client generated with `client=lean` (gen/lean, buf.gen.yaml): the imports of
 * `gen/**\/*_http_client.js` resolve to `gen/lean/...`, so the one suite
 * checks that both clients behave alike (bindings, SSE, errors, interceptors,
 * retries, v0.3 agents, the SDK's servers).
 */
const leanClientTests = [
  "test/runtime/client/**/*.test.ts",
  "test/runtime/jsonrpc/roundtrip.test.ts",
  "test/runtime/server/v0_3.test.ts",
  "test/runtime/server/unavailable.test.ts",
  "test/e2e/interop/our-*.test.ts",
  "test/e2e/interop/sse-errors.test.ts",
  "test/e2e/interop/stream-cancel.test.ts",
  "test/e2e/interop/v03-roundtrip.test.ts",
  "test/e2e/interop/example-three-bindings.test.ts",
];

// Generated code, the plugin and the tests import the runtime package
// (`a2a-http`); tests run it from its TypeScript source, so they never see a
// stale dist/, and everything shares one copy of its classes.
export default defineConfig({
  resolve: {
    alias: [
      { find: /^a2a-http$/, replacement: runtimeSource("index.ts") },
      { find: /^a2a-http\/client$/, replacement: runtimeSource("client/index.ts") },
      { find: /^a2a-http\/server$/, replacement: runtimeSource("server/index.ts") },
      { find: /^a2a-http\/node$/, replacement: runtimeSource("node.ts") },
      { find: /^a2a-http\/fastify$/, replacement: runtimeSource("fastify.ts") },
      { find: /^a2a-http\/jsonrpc$/, replacement: runtimeSource("jsonrpc/index.ts") },
      { find: /^a2a-http\/codegenv1$/, replacement: runtimeSource("codegenv1.ts") },
      { find: /^a2a-http\/routing$/, replacement: runtimeSource("routing.ts") },
      { find: /^a2a-http\/profile$/, replacement: runtimeSource("a2a.ts") },
      { find: /^a2a-http\/connect$/, replacement: runtimeSource("connect/index.ts") },
      { find: /^a2a-http\/json$/, replacement: runtimeSource("codegen/index.ts") },
      { find: /^a2a-http\/agent$/, replacement: runtimeSource("agent/index.ts") },
      { find: /^a2a-http\/stores$/, replacement: runtimeSource("stores.ts") },
      { find: /^a2a-http\/push$/, replacement: runtimeSource("push.ts") },
      { find: /^a2a-http\/otel$/, replacement: runtimeSource("otel/index.ts") },
    ],
  },
  test: {
    globalSetup: ["test/setup/shared.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    projects: [
      { extends: true, test: { name: "main", include: ["test/**/*.test.ts"] } },
      {
        extends: true,
        resolve: { alias: [{ find: /^(.*\/gen)\/((?:[\w-]+\/)*[\w-]+_http_client\.js)$/, replacement: "$1/lean/$2" }] },
        test: { name: "lean-client", include: leanClientTests },
      },
    ],
  },
});
