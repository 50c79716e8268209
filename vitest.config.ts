import { defineConfig } from "vitest/config";

// "source" makes `protoc-gen-a2a-http/runtime` (imported by generated code)
// resolve to src/ instead of dist/, so tests never run stale builds.
export default defineConfig({
  resolve: { conditions: ["source", "module", "node", "import", "default"] },
  ssr: { resolve: { conditions: ["source", "module", "node", "import", "default"], externalConditions: ["source"] } },
  test: {
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
