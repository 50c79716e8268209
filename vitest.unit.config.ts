import { availableParallelism } from "node:os";
import { defineConfig, mergeConfig } from "vitest/config";
import base from "./vitest.config.js";

// `npm run test:unit`: the fast tests, in this process and its workers. Left
// out, for `npm test`: package builds (test/e2e/package), scaffolded projects
// that npm and tsx run (test/plugin/scaffold/scaffold.test.ts), the example agent
// killed and restarted on a store (test/runtime/agent/kill-restart.test.ts) and
// exporting to an OTLP receiver (test/e2e/otel/example-otlp.test.ts), two
// agents through a PostgreSQL restart in place (db-restart.test.ts) and under
// a low max_connections (db-exhaustion.test.ts) and frozen (db-freeze.test.ts),
// PGlite through a failed disk write (pglite-faults.test.ts), the
// engine's whole suite again on the SQL store, stores opened from their specs
// and several instances on one database (engine-sql, open-store, scale-out;
// the SQL store's own contract, sql-store.test.ts, stays), the googleapis corpus,
// the reliability load and fuzz runs, and the browser.
export default mergeConfig(
  base,
  defineConfig({
    test: {
      // Vitest keeps one CPU for itself by default, which on these 2-core
      // machines runs the files one at a time (141 s); these tests wait on
      // sockets and timers more than they compute, so two workers share the
      // cores well (72 s). `npm test` keeps the default: its processes
      // (edge runtimes, npm installs, load runs) do compute.
      maxWorkers: Math.max(2, availableParallelism() - 1),
      exclude: [
        "test/e2e/package/**",
        "test/plugin/scaffold/scaffold.test.ts",
        "test/runtime/agent/kill-restart.test.ts",
        "test/e2e/otel/example-otlp.test.ts",
        "test/runtime/agent/db-restart.test.ts",
        "test/runtime/agent/db-exhaustion.test.ts",
        "test/runtime/agent/db-freeze.test.ts",
        "test/runtime/agent/pglite-faults.test.ts",
        "test/runtime/agent/engine-sql.test.ts",
        "test/runtime/agent/open-store.test.ts",
        "test/runtime/agent/scale-out.test.ts",
        "test/plugin/corpus/**",
        "test/e2e/reliability/**",
        "test/e2e/openapi/browser.test.ts",
        "test/e2e/edge/**", // Bun, Deno and workerd processes (test/e2e/edge/README.md)
        "test/e2e/typescript/**", // tsc 7 and 5.4 over the A2A output and a googleapis sample
        "**/node_modules/**",
      ],
    },
  }),
);
