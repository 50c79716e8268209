// How big a browser or Worker bundle of our code is, built the way such a
// build bundles it: esbuild, ESM, minified, nothing external (so a `node:`
// import anywhere in the graph fails the build), the runtime from its
// TypeScript source; the size as bytes and as gzip -9. One definition for
// test/runtime/core/universal-bundle.test.ts (which checks the graph and the
// client's budget) and bench/bundle.mjs (which reports the sizes).
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { build, type Metafile, type Platform, type Plugin } from "esbuild";

const root = join(import.meta.dirname, "..");

/** The generated A2A client as a browser app uses it: both bindings (`transport`), v0.3 agents, the card's transport pick. */
export const CLIENT_ENTRY = `export { createA2AServiceClient } from "./gen/a2a_http_client.js";
export { pickTransport } from "a2a-http/client";`;

/** The same client generated with `client=lean` (gen/lean): no protobuf-es descriptors or reflection. */
export const LEAN_CLIENT_ENTRY = `export { createA2AServiceClient } from "./gen/lean/a2a_http_client.js";
export { pickTransport } from "a2a-http/client";`;

/** What it is measured against: @a2a-js/sdk's client, `ClientFactory` with its default transports (JSON-RPC and HTTP+JSON). */
export const SDK_CLIENT_ENTRY = `export { ClientFactory } from "@a2a-js/sdk/client";`;

/** A Worker serving the generated Hono adapters (HTTP+JSON and JSON-RPC) over the task engine and its memory store. */
export const HONO_WORKER_ENTRY = `export { a2aServiceHono, a2aServiceJsonRpcHono } from "./gen/a2a_http_hono.js";
export { createAgentHandlers, createMemoryStore } from "a2a-http/agent";
export { createA2AServiceAgent } from "./gen/a2a_http_agent.js";`;

/** The same Worker's floor: Hono itself, one route. */
export const BARE_HONO_ENTRY = `import { Hono } from "hono";
export const app = new Hono().get("/", (c) => c.json({}));`;

export interface Bundle {
  readonly errors: readonly unknown[];
  readonly metafile: Metafile;
  /** Minified bytes. */
  readonly bytes: number;
  /** The same, gzip -9. */
  readonly gzip: number;
}

/**
 * `contents` (an entry module, resolved from the repository's root) bundled for `platform`. Throws esbuild's failure.
 * `leaveOut`: imports left external, to weigh the rest alone (bench/bundle.mjs: our code without protobuf-es).
 */
export async function bundle(contents: string, platform: Platform, leaveOut?: RegExp): Promise<Bundle> {
  const result = await build({
    stdin: { contents, resolveDir: root, loader: "ts", sourcefile: "entry.ts" },
    bundle: true,
    write: false,
    format: "esm",
    platform,
    // The runtime from its TypeScript source, as every test sees it (never a stale dist/).
    conditions: ["a2a-http-source"],
    // neutral resolves no main fields by default; packages without `exports` need these, as a Worker build has them.
    ...(platform === "neutral" ? { mainFields: ["module", "main"] } : {}),
    metafile: true,
    minify: true,
    logLevel: "silent",
    ...(leaveOut ? { plugins: [external(leaveOut)] } : {}),
  });
  const out = result.outputFiles![0]!.contents;
  return { errors: result.errors, metafile: result.metafile!, bytes: out.byteLength, gzip: gzipSync(out, { level: 9 }).byteLength };
}

function external(filter: RegExp): Plugin {
  return { name: "leave-out", setup: (b) => b.onResolve({ filter }, (a) => ({ path: a.path, external: true })) };
}

/** The parts a bundle's minified bytes come from, by what they are (see `partOf`), largest first. */
export function bundleParts(metafile: Metafile): [part: string, bytes: number][] {
  const parts = new Map<string, number>();
  for (const output of Object.values(metafile.outputs)) {
    for (const [file, input] of Object.entries(output.inputs)) {
      const part = partOf(file);
      parts.set(part, (parts.get(part) ?? 0) + input.bytesInOutput);
    }
  }
  return [...parts].sort((a, b) => b[1] - a[1]);
}

function partOf(file: string): string {
  const pkg = /node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(file)?.[1];
  if (pkg === "@bufbuild/protobuf") return "protobuf-es (reflection, registry, descriptor.proto)";
  if (pkg !== undefined) return pkg;
  if (/_http_json\.ts$/.test(file)) return "generated JSON codecs (_http_json.ts)";
  if (/_pb\.ts$/.test(file)) return "generated descriptors (_pb.ts)";
  if (/^gen\/lean\//.test(file)) return "generated lean client (route and message tables)";
  if (/^gen\//.test(file)) return "generated route tables and client (_http.ts, _http_client.ts)";
  if (file.startsWith("packages/runtime/src/a2a-v03/")) return "runtime: v0.3 peers (a2a-v03/)";
  if (/^packages\/runtime\/src\/client\/lean-/.test(file)) return "runtime: lean ProtoJSON (client/lean-*.ts)";
  if (file.startsWith("packages/runtime/src/")) return "runtime: the rest (packages/runtime/src)";
  return file;
}
