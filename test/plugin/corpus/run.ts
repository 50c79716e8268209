// `npm run corpus`: this plugin over every package of google-proto-files with
// HttpRules, and every generated file type-checked under strict NodeNext beside
// protoc-gen-es's output. Prints packages, services, rpcs, bindings, failures,
// warnings (rpcs left out, unreachable bindings, templates Envoy rejects),
// overlapping templates, type errors and the time of each step. Exits 1 when a
// package fails or a file of ours does not type-check.
//
//   npm run corpus [-- --no-typecheck] [-- --only <package prefix>]
import { performance } from "node:perf_hooks";
import {
  buildSet,
  corpusPackages,
  generatePackage,
  httpProtoFiles,
  protocGenEsFiles,
  SetIndex,
  typeCheck,
  type GeneratedPackage,
} from "./corpus.js";

const args = process.argv.slice(2);
const typecheck = !args.includes("--no-typecheck");
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

let t = performance.now();
const files = httpProtoFiles();
const set = buildSet(files);
const index = new SetIndex(set);
const packages = corpusPackages(set, files).filter((p) => only === undefined || p.name.startsWith(only));
const ruled = packages.reduce((n, p) => n + p.files.length, 0);
console.log(`corpus: ${ruled} files with HttpRules in ${packages.length} packages; buf build and decode ${s(performance.now() - t)}`);

t = performance.now();
const results: GeneratedPackage[] = packages.map((p) => generatePackage(index, p));
const generateTime = performance.now() - t;
const sum = (k: "services" | "rpcs" | "bindings") => results.reduce((n, r) => n + r[k], 0);
const failed = results.filter((r) => r.error !== undefined);
const warnings = results.flatMap((r) => r.warnings);
const overlaps = results.reduce(
  (n, r) => n + r.files.reduce((m, f) => m + (f.content.match(/^ \* - .* both match /gm)?.length ?? 0), 0),
  0,
);
const slowest = [...results].sort((a, b) => b.ms - a.ms).slice(0, 3);
console.log(
  `generated: ${results.length - failed.length} of ${results.length} packages, ${sum("services")} services, ${sum("rpcs")} rpcs, ${sum("bindings")} bindings, ${results.reduce((n, r) => n + r.files.length, 0)} files in ${s(generateTime)} (slowest: ${slowest.map((r) => `${r.pkg.name} ${s(r.ms)}`).join(", ")})`,
);
console.log(`failed packages: ${failed.length}`);
for (const r of failed) console.log(`  ${r.pkg.name}: ${r.error}`);
const kinds: [string, RegExp][] = [
  ["streaming rpcs left out", /rpc, which HTTP\/JSON cannot carry/],
  ["unreachable same-shape bindings left out", /can never be reached/],
  ["templates Envoy rejects (segments after **)", /after "\*\*"/],
];
console.log(`warnings: ${warnings.length}`);
for (const [label, re] of kinds) {
  const lines = warnings.filter((w) => re.test(w));
  console.log(`  ${label}: ${lines.length}`);
  for (const w of lines) console.log(`    ${w.replace(/^protoc-gen-a2a-http: warning: /, "")}`);
}
const other = warnings.filter((w) => !kinds.some(([, re]) => re.test(w)));
for (const w of other) console.log(`  other: ${w}`);
console.log(`overlapping template pairs (documented in the route files' comments): ${overlaps}`);

let typeErrors = 0;
if (typecheck) {
  t = performance.now();
  const ok = results.filter((r) => r.error === undefined && r.files.length > 0);
  // A batch of packages shares one program (their imports overlap); batches keep memory bounded.
  const batchFiles = 100;
  let batch: GeneratedPackage[] = [];
  let checked = 0;
  const flush = () => {
    if (batch.length === 0) return;
    const ours = batch.flatMap((r) => r.files);
    const es = protocGenEsFiles(
      index,
      batch.flatMap((r) => r.pkg.files),
    );
    const out = typeCheck(ours, es);
    checked += ours.length;
    if (out !== "") {
      typeErrors += out.split("\n").filter((l) => / error TS\d+:/.test(l)).length;
      console.log(out);
    }
    process.stdout.write(`  type-checked ${checked} files (${s(performance.now() - t)})\n`);
    batch = [];
  };
  for (const r of ok) {
    batch.push(r);
    if (batch.reduce((n, b) => n + b.pkg.files.length, 0) >= batchFiles) flush();
  }
  flush();
  console.log(`type errors in our files: ${typeErrors} (${checked} files, ${s(performance.now() - t)} with protoc-gen-es)`);
}
process.exitCode = failed.length > 0 || typeErrors > 0 ? 1 : 0;
