// Fuzzing the framework-free parts in process: the router, the path and
// query codec and the JSON body codec of the A2A and library route tables.
// Each may refuse input only with RpcError INVALID_ARGUMENT (any other throw
// would be a 500), and stays fast on hostile sizes.
import { describe, expect, test } from "vitest";
import fc from "fast-check";
import { Code, RpcError, createRouter, type RouteBinding } from "a2a-http";
import { checkRequired, decodeRequest, parseJsonBody } from "../../../packages/runtime/src/transcoding/index.js";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { requestArbitrary } from "./fuzz.js";
import { reportFigure } from "./report.js";

const RUNS = Number(process.env["FUZZ_CASES"] ?? 3000);
const SEED = Number(process.env["FUZZ_SEED"] ?? 14);

/** Runs `f`; an RpcError INVALID_ARGUMENT, or the element cap's 413 (transcoding/bounds.ts), is a refusal; anything else thrown fails. */
function refusesCleanly(f: () => unknown): "ok" | "refused" {
  try {
    f();
    return "ok";
  } catch (e) {
    if (e instanceof RpcError && (e.code === Code.INVALID_ARGUMENT || (e.code === Code.RESOURCE_EXHAUSTED && e.httpStatus === 413)))
      return "refused";
    throw e;
  }
}

const tables: [string, readonly RouteBinding[]][] = [
  ["a2a", A2AServiceRoutes],
  ["library", LibraryServiceRoutes],
];

describe.each(tables)("%s routes in process", (name, routes) => {
  const router = createRouter(routes);
  test(`${RUNS} random requests through router, query, body and required-field codecs`, () => {
    const counts = { ok: 0, refused: 0, routed: 0 };
    fc.assert(
      fc.property(requestArbitrary(routes), (req) => {
        const q = req.target.indexOf("?");
        const rawPath = q >= 0 ? req.target.slice(0, q) : req.target;
        const rawQuery = q >= 0 ? req.target.slice(q + 1).split("#")[0]! : "";
        let found: ReturnType<typeof router.match>;
        if (refusesCleanly(() => (found = router.match(req.method, rawPath))) === "refused") return void counts.refused++;
        if (found === undefined || "allow" in found) return void counts.ok++;
        const match = found;
        counts.routed++;
        const route = routes[match.index]!;
        const text = typeof req.body === "string" ? req.body : new TextDecoder().decode(req.body);
        const outcome = refusesCleanly(() => {
          const body = route.body === "" || text.trim() === "" ? undefined : parseJsonBody(text);
          const message = decodeRequest(
            route,
            { variables: match.variables as Record<string, string>, query: route.body === "*" ? "" : rawQuery, body },
            { commaLists: name === "a2a" },
          );
          checkRequired(route.input, message);
        });
        counts[outcome]++;
      }),
      { numRuns: RUNS, seed: SEED },
    );
    reportFigure(`codec-${name}`, { cases: RUNS, failures: 0, ...counts });
    expect(counts.routed).toBeGreaterThan(RUNS / 10);
  });

  test("raw text, any bytes: parseJsonBody and router.match refuse only with INVALID_ARGUMENT", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 200 }), fc.constantFrom("GET", "POST", "DELETE"), (text, method) => {
        refusesCleanly(() => parseJsonBody(text));
        refusesCleanly(() => router.match(method, "/" + text));
      }),
      { numRuns: RUNS, seed: SEED },
    );
  });
});

describe("hostile sizes stay fast", () => {
  const list = A2AServiceRoutes.find((r) => r.rpc === "listTasks")!;
  const router = createRouter(A2AServiceRoutes);
  test("10,000 query parameters, repeated or unknown", () => {
    for (const query of [
      Array.from({ length: 10_000 }, (_, i) => `x${i}=${i}`).join("&"),
      Array.from({ length: 10_000 }, () => "contextId=a").join("&"),
      Array.from({ length: 10_000 }, () => "historyLength=1").join("&"),
    ]) {
      const t0 = performance.now();
      refusesCleanly(() => decodeRequest(list, { variables: {}, query, body: undefined }, { commaLists: true }));
      expect(performance.now() - t0).toBeLessThan(1_000);
    }
  });

  test("a 100,000-segment path and a 1 MB segment", () => {
    for (const path of ["/" + "a/".repeat(100_000) + "tasks", "/tasks/" + "x".repeat(1_000_000), "/" + "%2e%2e/".repeat(50_000)]) {
      const t0 = performance.now();
      refusesCleanly(() => router.match("GET", path));
      expect(performance.now() - t0).toBeLessThan(1_000);
    }
  });

  test("100,000 levels of nesting in a Struct field", () => {
    const send = A2AServiceRoutes.find((r) => r.rpc === "sendMessage")!;
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const text = `{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"a":${deep}}}}`;
    expect(refusesCleanly(() => decodeRequest(send, { variables: {}, query: "", body: parseJsonBody(text) }))).toBe("refused");
  });
});
