import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

// Generated code imports `protoc-gen-a2a-http/runtime`; tests run it from
// src/, so they never see a stale dist/.
export default defineConfig({
  resolve: {
    alias: { "protoc-gen-a2a-http/runtime": fileURLToPath(new URL("./src/runtime/index.ts", import.meta.url)) },
  },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
