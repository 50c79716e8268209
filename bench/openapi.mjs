#!/usr/bin/env node
// What openapi=true adds to a plugin run: the plugin in-process on a2a.proto
// (profile=a2a, every other file as by default) without the option (the
// baseline), with openapi=true, and with openapi=json,openapi=yaml;
// alternating runs, medians of many. Run after `npm run build`:
//
//   node bench/openapi.mjs [--quick]
import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { create, fromBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const quick = process.argv.includes("--quick");
const { plugin, diagnostics } = await import(join(root, "packages", "plugin", "dist", "plugin.js"));
diagnostics.warn = () => {};

const set = fromBinary(FileDescriptorSetSchema, readFileSync(join(root, "test", "fixtures", "valid.binpb")));
const request = (parameter) =>
  create(CodeGeneratorRequestSchema, {
    fileToGenerate: ["a2a.proto"],
    protoFile: set.file,
    parameter,
    compilerVersion: { major: 5, minor: 29, patch: 0 },
  });
const cases = {
  baseline: request("target=ts,profile=a2a"),
  "openapi=true": request("target=ts,profile=a2a,openapi=true"),
  "json+yaml": request("target=ts,profile=a2a,openapi=json,openapi=yaml"),
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};

for (const r of Object.values(cases)) for (let i = 0; i < 20; i++) plugin.run(r); // warm-up
const rounds = quick ? 30 : 200;
const times = Object.fromEntries(Object.keys(cases).map((k) => [k, []]));
for (let i = 0; i < rounds; i++) {
  for (const [name, r] of Object.entries(cases)) {
    const t = performance.now();
    const res = plugin.run(r);
    times[name].push(performance.now() - t);
    if (res.error) throw new Error(res.error);
  }
}
const base = median(times.baseline);
for (const [name, xs] of Object.entries(times)) {
  const m = median(xs);
  console.log(`${name.padEnd(14)} ${m.toFixed(2)} ms per run  ${(m / base).toFixed(2)}x baseline  (+${(m - base).toFixed(2)} ms)`);
}
