// The end-to-end smoke `npm run toolchains` runs on each pinned Node (22, 24,
// 26; scripts/toolchains.mjs puts that Node first on the PATH, so npm, tsx and
// the agent run on it too): the packages packed, an agent scaffolded from the
// installed plugin (with @types/node and node:<major>-slim of the Node it ran
// on) and installed (without npm's install-script warning), generated,
// type-checked (TypeScript 7) and tested by its own `npm test`, started,
// SendMessage answered; then the SQL store on PGlite as the docs tell a user
// to add it (`npm install @electric-sql/pglite`, the registry's latest, with
// npm's default peer resolution), a task kept across a restart.
//
// Not part of `npm test` (its name is not *.test.ts): vitest.toolchains.config.ts runs it.
import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
const version = (JSON.parse(readFileSync(join(root, "packages", "runtime", "package.json"), "utf8")) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), "a2a-http-toolchain-"));
const host = join(work, "host");
const agent = join(work, "agent");
const children = new Set<ChildProcess>();
afterAll(() => {
  for (const c of children) stop(c);
  rmSync(work, { recursive: true, force: true });
});

const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
const npm = (cwd: string, ...args: string[]) => run("npm", args, { cwd, env: npmEnv, maxBuffer: 16 << 20 });
const install = (cwd: string, ...args: string[]) => npm(cwd, "install", "--prefer-offline", ...args);

test("runs on the Node that scripts/toolchains.mjs pinned, and npm does too", async () => {
  const want = process.env["A2A_TOOLCHAIN_NODE"];
  expect(want, "A2A_TOOLCHAIN_NODE names the pinned version (npm run toolchains sets it)").toBeTruthy();
  expect(process.version).toBe(`v${want}`);
  const { stdout } = await npm(root, "exec", "--", "node", "--version");
  expect(stdout.trim()).toBe(`v${want}`);
});

beforeAll(async () => {
  const tarballs = join(work, "tarballs");
  mkdirSync(tarballs, { recursive: true });
  await npm(root, "pack", "-w", "a2a-http", "-w", "protoc-gen-a2a-http", "--pack-destination", tarballs);
  mkdirSync(host);
  writeFileSync(join(host, "package.json"), JSON.stringify({ name: "host", private: true, type: "module" }));
  await install(host, join(tarballs, `a2a-http-${version}.tgz`), join(tarballs, `protoc-gen-a2a-http-${version}.tgz`));
}, 300_000);

/** Starts `npm start` in its own process group; resolves with the URL it prints. */
function start(env: Record<string, string>): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn("npm", ["start"], {
    cwd: agent,
    env: { ...npmEnv, HOST: "127.0.0.1", PORT: "0", GRPC_PORT: "0", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  children.add(child);
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
    child.on("exit", (code) => reject(new Error(`npm start exited with ${code}:\n${out}`)));
  });
}

/** Stops a started agent: its process group (npm, its shell and node), by pid. */
function stop(child: ChildProcess): Promise<void> {
  children.delete(child);
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise<void>((ok) => child.once("exit", () => ok()));
  try {
    process.kill(-child.pid, "SIGTERM");
  } catch {
    return Promise.resolve(); // already gone
  }
  return exited;
}

const headers = { "A2A-Version": "1.0", "Content-Type": "application/a2a+json" };
type TaskJson = { id: string; status: { state: string }; artifacts: { parts: { text: string }[] }[] };

async function send(url: string, text: string): Promise<TaskJson> {
  const res = await fetch(`${url}/message:send`, {
    method: "POST",
    headers,
    body: JSON.stringify({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } }),
  });
  expect(res.status).toBe(200);
  return ((await res.json()) as { task: TaskJson }).task;
}

test("a scaffolded agent installs, generates, type-checks, passes its npm test, starts and answers SendMessage", async () => {
  const { stdout } = await run(join(host, "node_modules", ".bin", "protoc-gen-a2a-http"), ["scaffold", agent, "--framework", "hono"], {
    cwd: host,
  });
  expect(stdout).toContain("come from the tarballs");
  // The project is for the Node it was scaffolded on: that line's @types/node and Docker image.
  const pkg = JSON.parse(readFileSync(join(agent, "package.json"), "utf8")) as { devDependencies: Record<string, string> };
  const major = process.versions.node.split(".")[0];
  expect(pkg.devDependencies["@types/node"]!.split(".")[0]).toBe(major);
  expect(readFileSync(join(agent, "Dockerfile"), "utf8")).toContain(`FROM node:${major}-slim AS build\n`);
  // Its allowScripts covers every install script in its tree: npm 11 warns of none.
  const installed = await install(agent);
  expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/install-scripts|allowScripts/);
  await npm(agent, "run", "generate");
  await npm(agent, "run", "typecheck");
  const tested = await npm(agent, "test");
  // TAP on Node 22, the spec reporter's summary on 24 and later.
  expect(tested.stdout).toMatch(/[#ℹ] pass 2\n[#ℹ] fail 0\n/);
  const { url, child } = await start({});
  try {
    const task = await send(url, "hello");
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]!.parts[0]!.text).toBe("echo: hello");
  } finally {
    await stop(child);
  }
}, 300_000);

test("the SQL store on PGlite: `npm install @electric-sql/pglite` installs the latest, and a task outlives a restart", async () => {
  await npm(agent, "install", "@electric-sql/pglite");
  const pglite = JSON.parse(readFileSync(join(agent, "node_modules", "@electric-sql", "pglite", "package.json"), "utf8")) as {
    version: string;
  };
  console.log(`${process.version}: @electric-sql/pglite ${pglite.version} installed beside a2a-http`);
  const env = { A2A_STORE: join(agent, "data") };
  let id: string;
  {
    const { url, child } = await start(env);
    try {
      const task = await send(url, "kept");
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      id = task.id;
    } finally {
      await stop(child);
    }
  }
  const { url, child } = await start(env);
  try {
    const res = await fetch(`${url}/tasks/${id}`, { headers });
    expect(res.status).toBe(200);
    const task = (await res.json()) as TaskJson;
    expect(task.status.state).toBe("TASK_STATE_COMPLETED");
    expect(task.artifacts[0]!.parts[0]!.text).toBe("echo: kept");
  } finally {
    await stop(child);
  }
}, 300_000);
