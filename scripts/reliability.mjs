#!/usr/bin/env node
// Runs the reliability suite (test/e2e/reliability, plus the hardening and
// hostile-server tests) and prints its figures; `readme` also rewrites the
// block between the reliability markers of docs/reliability.md with them.
//
//   node scripts/reliability.mjs fuzz     long fuzzing (FUZZ_CASES, default 50,000 per service)
//   node scripts/reliability.mjs soak     10 s of load and 5,000 aborted streams per framework
//   node scripts/reliability.mjs readme   the figures of `npm test`'s sizes with a 10 s load, into docs/reliability.md
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const mode = process.argv[2] ?? "readme";
const modes = {
  fuzz: {
    files: ["test/e2e/reliability/fuzz.test.ts", "test/e2e/reliability/codec-fuzz.test.ts"],
    env: { FUZZ_CASES: process.env.FUZZ_CASES ?? "50000", FUZZ_TIME_LIMIT_MS: process.env.FUZZ_TIME_LIMIT_MS ?? "1200000" },
  },
  soak: {
    files: ["test/e2e/reliability/load.test.ts", "test/e2e/reliability/streams.test.ts"],
    env: { LOAD_SECONDS: process.env.LOAD_SECONDS ?? "10", ABORT_STREAMS: process.env.ABORT_STREAMS ?? "5000" },
  },
  readme: {
    files: ["test/e2e/reliability", "test/runtime/server/hardening.test.ts", "test/runtime/client/hostile.test.ts"],
    env: { LOAD_SECONDS: process.env.LOAD_SECONDS ?? "10" },
  },
};
const run = modes[mode];
if (!run) {
  console.error(`unknown mode ${JSON.stringify(mode)}; use one of: ${Object.keys(modes).join(", ")}`);
  process.exit(2);
}

const dir = mkdtempSync(join(tmpdir(), "reliability-"));
const report = join(dir, "figures.jsonl");
writeFileSync(report, "");
const t0 = Date.now();
// One file at a time, so that the figures of one check are not the load of another. Through
// scripts/vitest.mjs: vitest 5 needs Node 22.12+, the pinned Node 24 when this one is older.
const res = spawnSync(process.execPath, [join(import.meta.dirname, "vitest.mjs"), "run", "--no-file-parallelism", ...run.files], {
  stdio: "inherit",
  env: { ...process.env, ...run.env, RELIABILITY_REPORT: report },
});
const figures = readFileSync(report, "utf8")
  .split("\n")
  .filter(Boolean)
  .map((l) => JSON.parse(l));
rmSync(dir, { recursive: true, force: true });
const byName = Object.fromEntries(figures.map((f) => [f.name, f]));
const seconds = ((Date.now() - t0) / 1000).toFixed(0);

const n = (x) => (typeof x === "number" ? x.toLocaleString("en-US") : "–");
const fw = ["express", "fastify", "hono"];
const rows = [];
for (const kind of ["a2a", "library-none"]) {
  const f = byName[`fuzz-${kind}`];
  if (f) {
    const k = f.byKind ?? {};
    rows.push(
      `| fuzzing whole requests, ${kind === "a2a" ? "A2A service" : "library proto (generic profile)"}, seed ${f.seed} | ${n(f.cases)} cases × 3 frameworks (${n(f.requests)} requests): ${n(f.failures)} failures; ${n(k["served"])} served by the adapters, ${n(k["refused by node's HTTP parser"] ?? 0)} refused by node's HTTP parser, ${n(k["outside the mount"] ?? 0)} climbing out of the mount; ${n(k["answered on a second try"] ?? 0)} answered only on a second try (no answer within 1 s on the first) |`,
    );
  }
}
for (const kind of ["a2a", "library"]) {
  const f = byName[`codec-${kind}`];
  if (f)
    rows.push(
      `| fuzzing router, query and body codecs in process, ${kind} | ${n(f.cases)} cases: ${n(f.failures)} failures (${n(f.routed)} routed, ${n(f.refused)} refused with INVALID_ARGUMENT) |`,
    );
}
const aborts = fw.map((x) => byName[`abort-${x}`]).filter(Boolean);
if (aborts.length) {
  rows.push(
    `| streams aborted by the client at random points | ${aborts.map((a, i) => `${fw[i]}: ${n(a.started)} started, ${n(a.signals)} signals fired, ${n(a.closed)} iterators closed, heap +${a.heapGrowthMB} MB after GC`).join("; ")} |`,
  );
}
const slow = fw.map((x) => byName[`slow-reader-${x}`]).filter(Boolean);
if (slow.length) {
  rows.push(
    `| a reader that stops reading (1 KiB events) | ${slow.map((a, i) => `${fw[i]}: handler held after ${n(a.eventsBeforeStall)} events, ${n(a.eventsInNext500ms)} more in the next 500 ms, heap ${a.heapGrowthMB >= 0 ? "+" : ""}${a.heapGrowthMB} MB`).join("; ")} |`,
  );
}
const loads = fw.map((x) => byName[`load-${x}`]).filter(Boolean);
if (loads.length) {
  rows.push(
    `| load: 200 concurrent unary calls + 50 concurrent streams | ${loads.map((a, i) => `${fw[i]}: ${a.seconds} s, ${n(a.calls)} calls, ${n(a.streams)} streams, ${n(a.events)} events checked by sequence; ${n(a.errors)} errors, ${n(a.lost)} lost, ${n(a.duplicated)} duplicated`).join("; ")} |`,
  );
}
const hostile = byName["hostile"];
if (hostile) rows.push(`| hostile servers for the client | ${hostile.summary} |`);

const table = ["| check | result |", "|---|---|", ...rows].join("\n");
console.log(`\n${table}\n\n${figures.length} figures in ${seconds} s; vitest exit code ${res.status}`);

if (mode === "readme") {
  if (res.status !== 0) {
    console.error("the suite failed: docs/reliability.md left as it is");
    process.exit(res.status ?? 1);
  }
  const begin = "<!-- reliability:begin (written by `npm run reliability`, do not edit) -->";
  const end = "<!-- reliability:end -->";
  const readme = readFileSync("docs/reliability.md", "utf8");
  const i = readme.indexOf(begin);
  const j = readme.indexOf(end);
  if (i < 0 || j < i) {
    console.error("docs/reliability.md has no reliability markers");
    process.exit(1);
  }
  const stamp = `Node ${process.version}, ${new Date().toISOString().slice(0, 10)}, this machine (2 shared cores), ${seconds} s for the run.`;
  writeFileSync("docs/reliability.md", readme.slice(0, i + begin.length) + "\n" + table + "\n\n" + stamp + "\n" + readme.slice(j));
  console.log("docs/reliability.md updated");
}
process.exit(res.status ?? 1);
