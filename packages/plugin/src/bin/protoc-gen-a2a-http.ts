// protoc and buf run the plugin with no arguments and a CodeGeneratorRequest
// on stdin; `scaffold` and `--help` are for people.
import { statSync } from "node:fs";

const [command] = process.argv.slice(2);
if (command === "scaffold") {
  const { runScaffoldCli } = await import("../scaffold/cli.js");
  process.exitCode = runScaffoldCli(process.argv.slice(3));
} else if (command === "--help" || command === "-h" || command === "help") {
  const { usage } = await import("../help.js");
  process.stdout.write(usage() + "\n");
} else if ((command !== undefined && command !== "--version" && command !== "-v") || (command === undefined && process.stdin.isTTY)) {
  // A person at a terminal: protoc would pipe a request in, so waiting for one
  // would only hang. Unknown arguments are a mistake too.
  const { usage } = await import("../help.js");
  const what = command === undefined ? "no CodeGeneratorRequest on stdin (it is a terminal)" : `unknown command "${command}"`;
  process.stderr.write(`protoc-gen-a2a-http: ${what}\n\n${usage()}\n`);
  process.exitCode = 2;
} else {
  await import(generatorModule());
}

/**
 * The generator, bundled into one module by scripts/bundle-plugin.mjs: one
 * copy of protobuf-es where the modules load two (protoplugin's CommonJS
 * build and the ESM one the rest imports), and no resolving of a hundred
 * module paths; 0.14 s of every run's start-up. The modules themselves when
 * there is no bundle, or when a `tsc -b` since has rebuilt them or the
 * runtime's modules the bundle holds (their build info is newer): a stale
 * bundle would generate from old code. A package from npm has no build
 * info, and its bundle is always current.
 */
function generatorModule(): string {
  const mtime = (path: string) => statSync(new URL(path, import.meta.url), { throwIfNoEntry: false })?.mtimeMs;
  const bundle = mtime("./generate.bundle.js");
  const built = ["../../tsconfig.tsbuildinfo", "../../../runtime/tsconfig.tsbuildinfo"].map(mtime);
  return bundle !== undefined && built.every((t) => t === undefined || bundle >= t) ? "./generate.bundle.js" : "./generate.js";
}
