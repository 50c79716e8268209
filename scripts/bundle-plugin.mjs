#!/usr/bin/env node
// Bundles the plugin's generator (packages/plugin/dist/bin/generate.js, what
// protoc and buf run) with everything it imports into one module,
// dist/bin/generate.bundle.js, after `tsc -b`: start-up then compiles one
// file and one copy of protobuf-es instead of resolving and loading about 180
// modules, two builds of protobuf-es among them (issue 43: 0.14 s of each run).
// TypeScript and yaml stay outside (loaded only for target=js/dts and
// openapi=yaml). The command line falls back to the modules when the bundle is
// missing or older than the build (packages/plugin/src/bin/protoc-gen-a2a-http.ts).
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";

const dist = join(dirname(fileURLToPath(import.meta.url)), "..", "packages", "plugin", "dist");

/** The two places where the modules load around the bundle's one copy of protoplugin. */
const oneCopy = {
  name: "one-copy-of-protoplugin",
  setup(b) {
    // protoplugin.ts loads protoplugin's CommonJS build to keep its built-in
    // transpiler (all of TypeScript) from loading; in the bundle its ESM build
    // is the one copy, beside the ESM protobuf-es the rest imports.
    b.onLoad({ filter: /[\\/]plugin[\\/]dist[\\/]protoplugin\.js$/ }, () => ({
      contents: 'import * as protoplugin from "@bufbuild/protoplugin"; export { protoplugin };',
      loader: "js",
      resolveDir: dist,
    }));
    // That built-in transpiler is never called: the plugin passes its own (transpile.ts).
    b.onLoad({ filter: /[\\/]@bufbuild[\\/]protoplugin[\\/]dist[\\/]esm[\\/]transpile\.js$/ }, () => ({
      contents: 'export function transpile() { throw new Error("protoc-gen-a2a-http: protoplugin\'s own transpiler is not bundled"); }',
      loader: "js",
    }));
  },
};

await build({
  entryPoints: [join(dist, "bin", "generate.js")],
  outfile: join(dist, "bin", "generate.bundle.js"),
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  external: ["typescript", "yaml"],
  plugins: [oneCopy],
  logLevel: "warning",
});
