// The registry form of the scaffold command (docs/scaffold.md, recipe
// scaffold-registry), run before the packages are published: `npm pack` of
// both packages, served by a local registry (local-registry.ts) that sends
// npm to the public registry for everything else. The command scaffolds from
// the registry's packages, the project depends on the registry's caret
// ranges (so it can be moved and committed), installs from that registry and
// serves the echo agent.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startLocalRegistry, type LocalRegistry } from "./local-registry.js";
import { docRecipes, recipe } from "./recipes.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
const manifest = (dir: string) =>
  JSON.parse(readFileSync(join(root, "packages", dir, "package.json"), "utf8")) as { name: string; version: string };
const runtime = manifest("runtime");
const plugin = manifest("plugin");
const work = mkdtempSync(join(tmpdir(), "a2a-http-registry-"));
let registry: LocalRegistry | undefined;
let env: NodeJS.ProcessEnv;

beforeAll(async () => {
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs);
  await run("npm", ["pack", "-w", runtime.name, "-w", plugin.name, "--pack-destination", tarballs], { cwd: root, maxBuffer: 16 << 20 });
  registry = await startLocalRegistry([
    { manifest: runtime, tarball: join(tarballs, `${runtime.name}-${runtime.version}.tgz`) },
    { manifest: plugin, tarball: join(tarballs, `${plugin.name}-${plugin.version}.tgz`) },
  ]);
  // npx keeps what it installed in <cache>/_npx by the specs' names, so a
  // cache of its own (sharing the downloads of the user's) makes it install
  // this build, not one an earlier run left there.
  const { stdout: userCache } = await run("npm", ["config", "get", "cache"]);
  const cache = join(work, "npm-cache");
  mkdirSync(cache);
  symlinkSync(join(userCache.trim(), "_cacache"), join(cache, "_cacache"));
  env = {
    ...process.env,
    npm_config_registry: `${registry.url}/`,
    npm_config_cache: cache,
    npm_config_prefer_offline: "true",
    npm_config_audit: "false",
    npm_config_fund: "false",
    npm_config_update_notifier: "false",
  };
}, 120_000);

afterAll(async () => {
  await registry?.close();
  rmSync(work, { recursive: true, force: true });
});

function start(dir: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn("npm", ["start"], {
    cwd: dir,
    env: { ...env, HOST: "127.0.0.1", PORT: "0", GRPC_PORT: "0" },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no "listening on" within 60 s:\n${out}`)), 60_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/\S+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child });
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`npm start exited with ${code}:\n${out}`));
    });
  });
}

test("the docs' registry command scaffolds from the published packages; the project installs from the registry and serves", async () => {
  const command = recipe(docRecipes(root), "scaffold-registry").trim();
  expect(command).toBe(`npx -y -p ${runtime.name}@${runtime.version} -p ${plugin.name}@${plugin.version} ${plugin.name} scaffold my-agent`);
  const folder = join(work, "user");
  mkdirSync(folder);
  const scaffolded = await run("bash", ["-euc", command], { cwd: folder, env, maxBuffer: 16 << 20 });
  expect(scaffolded.stdout).toContain(`the registry (^${runtime.version})`);
  // npx resolved both packages on this registry (their tarballs may come from
  // the npm cache, which holds content by the integrity the registry gave).
  expect(registry!.served).toEqual(expect.arrayContaining([`/${runtime.name}`, `/${plugin.name}`]));

  const agent = join(folder, "my-agent");
  const pkg = JSON.parse(readFileSync(join(agent, "package.json"), "utf8"));
  expect(pkg.dependencies[runtime.name]).toBe(`^${runtime.version}`);
  expect(pkg.devDependencies[plugin.name]).toBe(`^${plugin.version}`);

  await run("npm", ["install"], { cwd: agent, env, maxBuffer: 16 << 20 });
  const lock = JSON.parse(readFileSync(join(agent, "package-lock.json"), "utf8"));
  // The install took a2a-http from this registry: this build's tarball, by its integrity.
  const ours = `sha512-${createHash("sha512")
    .update(readFileSync(join(work, "tarballs", `${runtime.name}-${runtime.version}.tgz`)))
    .digest("base64")}`;
  expect(lock.packages[`node_modules/${runtime.name}`]).toMatchObject({ version: runtime.version, integrity: ours });

  const { url, child } = await start(agent);
  try {
    const card = await fetch(`${url}/.well-known/agent-card.json`);
    expect(card.status).toBe(200);
    const answer = await fetch(`${url}/message:send`, {
      method: "POST",
      headers: { "content-type": "application/a2a+json", "a2a-version": "1.0" },
      body: JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] } }),
    });
    expect(await answer.text()).toMatch(/"state":"TASK_STATE_COMPLETED"[\s\S]*"text":"echo: hello"/);
  } finally {
    if (child.pid !== undefined && child.exitCode === null) process.kill(-child.pid, "SIGTERM");
  }
}, 300_000);
