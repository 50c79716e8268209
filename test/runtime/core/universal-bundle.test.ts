// The generated client and the Hono adapters, and the runtime's universal
// entry points, bundled with esbuild as a browser or Worker build would bundle
// them: platform `browser` and `neutral`, nothing external (no `node:*`), so a
// `node:` import anywhere in the graph fails the build. The root `a2a-http`
// once re-exported the Fastify glue, and every browser bundle of a generated
// client broke on `node:http` (issue 29); the task engine once imported its
// push sender's node:http and node:dns.
import type { Metafile } from "esbuild";
import { describe, expect, test } from "vitest";
import { bundle, CLIENT_ENTRY, LEAN_CLIENT_ENTRY, SDK_CLIENT_ENTRY } from "../../../scripts/bundle-size.js";

/** What a browser app or a Worker imports: generated files, and the subpaths that promise to run everywhere. */
const entries: Record<string, string> = {
  "a2a-http/agent with the memory store, and the generated agent": `export { createAgentHandlers, createMemoryStore } from "a2a-http/agent";
export { createA2AServiceAgent } from "./gen/a2a_http_agent.js";`,
  "the generated client": `${CLIENT_ENTRY}
export { createLibraryServiceClient } from "./gen/acme/library/v1/library_http_client.js";`,
  "the generated client=lean client": `${LEAN_CLIENT_ENTRY}
export { createLibraryServiceClient } from "./gen/lean/acme/library/v1/library_http_client.js";`,
  "the generated Hono adapters (HTTP+JSON and JSON-RPC)": `export { a2aServiceHono, a2aServiceJsonRpcHono } from "./gen/a2a_http_hono.js";`,
  "the generated v0.3 client and Hono adapter": `export { createA2AServiceClient } from "./gen/a2a-v0_3_http_client.js";
export { a2aServiceHono } from "./gen/a2a-v0_3_http_hono.js";`,
  "a2a-http, /client, /server, /jsonrpc, /codegenv1": `export * as root from "a2a-http";
export * as client from "a2a-http/client";
export * as server from "a2a-http/server";
export * as jsonrpc from "a2a-http/jsonrpc";
export * as codegen from "a2a-http/codegenv1";`,
};

const runtimeSrc = "packages/runtime/src/";
/** The runtime's modules for Node only: Node http and Fastify glue, the push sender and its SSRF guard, the SQL store, the CLI. */
const nodeOnly = new RegExp(
  `${runtimeSrc}(server/(node|fastify)\\.ts|node\\.ts|fastify\\.ts|push\\.ts|agent/(push|webhook-guard)\\.ts|agent/sql/|stores\\.ts|cli\\.ts)`,
);

/** Every `node:` (or bare Node built-in) import in the bundle's graph, with the file that made it. */
function nodeImports(metafile: Metafile): string[] {
  return Object.entries(metafile.inputs).flatMap(([file, input]) =>
    input.imports.filter((i) => i.path.startsWith("node:") || i.external).map((i) => `${file} -> ${i.path}`),
  );
}

describe("bundles for browsers and Workers, with no node: import", () => {
  for (const platform of ["browser", "neutral"] as const) {
    for (const [name, contents] of Object.entries(entries)) {
      test(`${name}, platform ${platform}`, async () => {
        let out: Awaited<ReturnType<typeof bundle>>;
        try {
          out = await bundle(contents, platform);
        } catch (e) {
          // esbuild's failure names the module it could not resolve ("node:http") and who imported it.
          const errors = (e as { errors?: { text: string; location?: { file: string } | null }[] }).errors ?? [];
          throw new Error(errors.map((x) => `${x.location?.file ?? "?"}: ${x.text}`).join("\n") || String(e));
        }
        expect(out.errors).toEqual([]);
        expect(nodeImports(out.metafile)).toEqual([]);
        const inputs = Object.keys(out.metafile.inputs);
        // The Node, Fastify, push and SQL modules are other hosts' business: not even resolved
        // (nor the engine, outside the engine's own bundle).
        const elsewhere = name.includes("a2a-http/agent") ? nodeOnly : new RegExp(`${nodeOnly.source}|${runtimeSrc}agent/`);
        expect(inputs.filter((f) => elsewhere.test(f))).toEqual([]);
      });
    }
  }

  test("the generated client's bundle holds no server code", async () => {
    const { metafile } = await bundle(entries["the generated client"]!, "browser");
    const runtime = Object.keys(metafile.inputs).filter((f) => f.includes("packages/runtime/src/"));
    expect(runtime.filter((f) => /\/server\/|\/jsonrpc\/server/.test(f))).toEqual([]);
    // Nor what only an answer needs: REQUIRED fields written at their defaults (a reflective walk, with field_behavior's descriptor).
    const output = Object.values(metafile.outputs)[0]!.inputs;
    expect(
      runtime.filter((f) => /transcoding\/required|gen\/google\/api\/field_behavior/.test(f) && (output[f]?.bytesInOutput ?? 0) > 0),
    ).toEqual([]);
  });
});

/**
 * The generated A2A client's browser bundle against @a2a-js/sdk's client
 * (`ClientFactory`), both built here with the same settings: the ratio of
 * their gzip -9 sizes is computed in this test, not an absolute size, so a
 * new SDK release or esbuild version moves both sides. Issue 43's goal is
 * 0.8x; the budget below is the ceiling that holds today (2.41x on
 * 2026-12-07 with eventsource-parser, 2.46x before that day's cuts: protobuf-es's reflection and the
 * embedded descriptors are most of the difference, bench/README.md "The
 * client's bundle"), lowered as the client loses them, never raised.
 */
const CLIENT_BUDGET = 2.45;

test(`the generated client's browser bundle is at most ${CLIENT_BUDGET}x @a2a-js/sdk's client (gzip -9)`, async () => {
  const [ours, sdk] = await Promise.all([bundle(CLIENT_ENTRY, "browser"), bundle(SDK_CLIENT_ENTRY, "browser")]);
  // Both bundles hold what they claim: a misnamed export would bundle almost nothing.
  expect(sdk.bytes).toBeGreaterThan(50_000);
  expect(ours.gzip / sdk.gzip).toBeLessThanOrEqual(CLIENT_BUDGET);
});

/**
 * The client generated with `client=lean` against @a2a-js/sdk's client
 * (gzip -9), both built here with the same settings, the ratio computed in
 * this test. It holds no byte of protobuf-es or of the embedded descriptors:
 * what protobuf-es it imports is types. Issue 43's goal, 0.8x, met on
 * 2026-12-07 (0.798x: 19,830 B against 24,842 B, bench/README.md "The lean
 * client"); lowered, never raised.
 */
const LEAN_CLIENT_BUDGET = 0.8;

test(`the client=lean client's browser bundle is at most ${LEAN_CLIENT_BUDGET}x @a2a-js/sdk's client (gzip -9), without protobuf-es`, async () => {
  const [lean, sdk] = await Promise.all([bundle(LEAN_CLIENT_ENTRY, "browser"), bundle(SDK_CLIENT_ENTRY, "browser")]);
  expect(sdk.bytes).toBeGreaterThan(50_000);
  // Both bindings, SSE, v0.3 and the route table are in: a client that lost them would be small for nothing.
  expect(lean.bytes).toBeGreaterThan(40_000);
  const output = Object.values(lean.metafile.outputs)[0]!.inputs;
  const reflective = Object.entries(output).filter(([f, i]) => /@bufbuild\/protobuf|_pb\.ts$/.test(f) && i.bytesInOutput > 0);
  expect(reflective.map(([f]) => f)).toEqual([]);
  expect(lean.gzip / sdk.gzip).toBeLessThanOrEqual(LEAN_CLIENT_BUDGET);
});
