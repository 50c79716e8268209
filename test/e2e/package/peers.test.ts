// The runtime's optional peer dependencies, as a user installs them: the
// packed a2a-http with every optional peer at the oldest version its range
// allows, then at `latest` (the registry's dist-tag), into an empty project
// with npm's default peer resolution (no --legacy-peer-deps, no --force: a
// peer range that refuses a version fails the install with ERESOLVE). Each
// project then runs peers-app.ts on what it installed: the generated adapters
// on Express, Fastify and Hono, gRPC's binding through connect-es, the SQL
// store on PGlite and (with DATABASE_URL) on PostgreSQL through pg.
//
// The registry is asked which versions a range holds (`npm view`), so this
// fails the day a peer's `latest` leaves its range: widen the range once the
// new line passes here.
import { execFile } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createScratchDatabase } from "../../scratch-database.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
const runtime = JSON.parse(readFileSync(join(root, "packages", "runtime", "package.json"), "utf8")) as {
  version: string;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};
const work = mkdtempSync(join(tmpdir(), "a2a-http-peers-"));
const tarball = join(work, `a2a-http-${runtime.version}.tgz`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

// npm's defaults, whatever the user's config says.
const npmEnv = {
  ...process.env,
  npm_config_legacy_peer_deps: "false",
  npm_config_force: "false",
  npm_config_audit: "false",
  npm_config_fund: "false",
  npm_config_update_notifier: "false",
};
const npm = (cwd: string, ...args: string[]) => run("npm", args, { cwd, env: npmEnv, maxBuffer: 16 << 20 });

/** The versions of `name` the registry has in `range` (releases only, as npm view lists them), oldest first. */
async function versionsIn(name: string, range: string): Promise<string[]> {
  const { stdout } = await npm(work, "view", `${name}@${range}`, "version", "--json");
  const v = JSON.parse(stdout) as string | string[];
  const parts = (s: string) => s.split(".").map(Number);
  return (Array.isArray(v) ? v : [v]).sort((a, b) => {
    const [x, y] = [parts(a), parts(b)];
    return x[0]! - y[0]! || x[1]! - y[1]! || x[2]! - y[2]!;
  });
}

const peers = Object.keys(runtime.peerDependencies).sort();
const latest: Record<string, string> = {};
const oldest: Record<string, string> = {};
let postgres: { url: string; drop(): Promise<void> }[] = [];

beforeAll(async () => {
  await npm(root, "pack", "-w", "a2a-http", "--pack-destination", work);
  for (const name of peers) {
    const inRange = await versionsIn(name, runtime.peerDependencies[name]!);
    oldest[name] = inRange[0]!;
    latest[name] = (await npm(work, "view", `${name}@latest`, "version")).stdout.trim();
  }
  const { build } = await import("esbuild");
  await build({
    entryPoints: [join(import.meta.dirname, "peers-app.ts")],
    outfile: join(work, "app.mjs"),
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    packages: "external",
    logLevel: "silent",
  });
}, 120_000);

afterAll(async () => {
  for (const db of postgres) await db.drop();
  postgres = [];
});

test("every peer is optional, and each range names its release line", () => {
  expect(peers).toEqual([
    "@connectrpc/connect",
    "@electric-sql/pglite",
    "@hono/node-server",
    "@opentelemetry/api",
    "express",
    "fastify",
    "hono",
    "pg",
  ]);
  for (const name of peers) expect(runtime.peerDependenciesMeta[name]?.optional, name).toBe(true);
});

const url = process.env["DATABASE_URL"];

describe.each(["oldest", "latest"] as const)("the packed runtime with every optional peer at its %s version", (end) => {
  const dir = join(work, end);

  test("installs with npm's default peer resolution", async () => {
    const want = end === "oldest" ? oldest : latest;
    mkdirSync(dir);
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: `peers-${end}`, private: true, type: "module" }));
    const started = Date.now();
    await npm(dir, "install", "--no-audit", "--no-fund", tarball, ...peers.map((p) => `${p}@${want[p]}`));
    console.log(
      `a2a-http with its peers at ${end} installed in ${((Date.now() - started) / 1000).toFixed(1)} s: ` +
        peers.map((p) => `${p}@${want[p]}`).join(", "),
    );
    for (const name of peers) {
      const installed = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as { version: string };
      expect(installed.version, name).toBe(want[name]);
    }
    // `npm ls` exits non-zero on an invalid or missing peer.
    await npm(dir, "ls", "--all");
  }, 300_000);

  if (!url && process.env["CI"] === "true") {
    test("PostgreSQL: DATABASE_URL must be set under CI=true", () => expect.fail("DATABASE_URL is not set: CI runs the PostgreSQL tests"));
  }

  test(`serves SendMessage on Express (also with a2a-http/otel enabled), Fastify, Hono and connect-es, and keeps tasks on PGlite${url ? " and PostgreSQL" : " (PostgreSQL: skipped, DATABASE_URL is not set)"}`, async () => {
    const db = url ? await createScratchDatabase(url, "a2a_peers") : undefined;
    if (db) postgres.push(db);
    // In the project, so that its imports resolve to what the project installed.
    cpSync(join(work, "app.mjs"), join(dir, "app.mjs"));
    const args = [join(dir, "app.mjs"), join(dir, "store"), ...(db ? [db.url] : [])];
    const { stdout } = await run(process.execPath, args, { cwd: dir, timeout: 120_000 });
    const answered = JSON.parse(stdout.trim().split("\n").pop()!) as Record<string, string>;
    const echo = "TASK_STATE_COMPLETED echo: hello";
    expect(answered).toEqual({
      express: echo,
      otel: echo,
      fastify: echo,
      hono: echo,
      connect: echo,
      pglite: echo,
      ...(db ? { pg: echo } : {}),
    });
  }, 180_000);

  if (end === "latest") {
    test("PGlite 0.6 refuses the oldest project's PGlite 0.5 directory with one line that says why and what to do", async () => {
      const older = join(work, "oldest", "store");
      const open = `import("a2a-http/stores").then((m) => m.openStore(${JSON.stringify(older)}, { log: () => {} })).then(() => console.log("opened"), (e) => console.log(e.name, e.reason, e.message))`;
      const { stdout } = await run(process.execPath, ["--input-type=module", "-e", open], { cwd: dir, timeout: 60_000 });
      expect(stdout).toBe(
        `StoreError open cannot open the PGlite data directory ${older}: PGlite failed to initialize properly (it holds PostgreSQL 18 data, which only a PGlite release running PostgreSQL 18 opens: 0.5 runs 18, 0.6 runs 19; install that line of @electric-sql/pglite, or give a new directory)\n`,
      );
    }, 60_000);
  }
});
