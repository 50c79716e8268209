// Fuzzing whole requests against the three adapters of the A2A service and
// the library test proto (generic profile): no 5xx, no hang (1 s), a
// google.rpc.Status on every error, the same status and the same handler
// input on all three, and the handler only for requests that are valid.
// FUZZ_CASES and FUZZ_SEED change the run (`npm run fuzz` runs long).
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { fuzzFleet, startFleet, type Fleet } from "./fuzz.js";
import { reportFigure } from "./report.js";

const CASES = Number(process.env["FUZZ_CASES"] ?? 3000);
const SEED = Number(process.env["FUZZ_SEED"] ?? 14);
const TIME_LIMIT_MS = Number(process.env["FUZZ_TIME_LIMIT_MS"] ?? 60_000);

const services = [
  { kind: "a2a" as const, routes: A2AServiceRoutes },
  { kind: "library-none" as const, routes: LibraryServiceRoutes },
];

describe.each(services)("fuzzing $kind on express, fastify and hono", ({ kind, routes }) => {
  let fleet: Fleet;
  beforeAll(async () => {
    fleet = await startFleet(kind, routes);
  });
  afterAll(() => fleet.close());

  test(
    `${CASES} random requests (seed ${SEED}) hold every property`,
    async () => {
      const t0 = Date.now();
      const { cases, failures, byStatus, byKind } = await fuzzFleet(fleet, routes, {
        cases: CASES,
        seed: SEED,
        timeLimitMs: TIME_LIMIT_MS,
      });
      const ms = Date.now() - t0;
      console.log(
        `fuzz ${kind}: ${cases} cases x 3 frameworks in ${ms} ms, ${failures.length} failing; statuses ${JSON.stringify(byStatus)}; ${JSON.stringify(byKind)}`,
      );
      for (const f of failures.slice(0, 5)) console.log(JSON.stringify(f.request).slice(0, 400), f.failures);
      reportFigure(`fuzz-${kind}`, { cases, requests: cases * 3, failures: failures.length, seed: SEED, ms, byStatus, byKind });
      expect(failures.slice(0, 5)).toEqual([]);
      expect(cases).toBeGreaterThan(0);
    },
    TIME_LIMIT_MS + 30_000,
  );
});
