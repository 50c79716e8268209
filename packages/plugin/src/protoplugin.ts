import { createRequire, Module } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);

/**
 * protoplugin's index loads its built-in transpiler, and with it all of the
 * TypeScript compiler (9 MB to compile: 150 ms of every run on a quiet machine,
 * 500 ms on a busy one), though this plugin passes its own transpiler
 * (transpile.ts, which loads TypeScript only when it runs) and a target=ts run
 * transpiles nothing. Until protoplugin loads it lazily itself, a stand-in in
 * the module cache does: it loads the real module on first use, so anything
 * else in the process that relies on protoplugin's transpiler still gets it.
 */
const builtInTranspiler = join(dirname(require.resolve("@bufbuild/protoplugin")), "transpile.js");
if (require.cache[builtInTranspiler] === undefined) {
  const standIn = new Module(builtInTranspiler);
  standIn.filename = builtInTranspiler;
  standIn.loaded = true;
  standIn.exports = {
    transpile(...args: unknown[]) {
      delete require.cache[builtInTranspiler];
      return (require(builtInTranspiler) as { transpile: (...a: unknown[]) => unknown }).transpile(...args);
    },
  };
  require.cache[builtInTranspiler] = standIn;
}

/**
 * @bufbuild/protoplugin, loaded through its CommonJS build. Its ESM build
 * imports the TypeScript compiler as ESM, which makes Node scan all 9 MB of
 * typescript.js for named exports: about a second of start-up on every
 * `buf generate`, against a plain `require` (what protoc-gen-es does).
 * Descriptors are plain data, so the CommonJS and ESM copies of
 * @bufbuild/protobuf interoperate.
 */
export const protoplugin = require("@bufbuild/protoplugin") as typeof import("@bufbuild/protoplugin");
