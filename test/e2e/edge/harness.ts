/**
 * What the edge tests share: where each runtime's binary is (installed from
 * npm into test/e2e/edge/node_modules by `npm run edge:install`, never at test
 * time), the esbuild bundles the runtimes load, and starting and stopping
 * their processes by pid on free 127.0.0.1 ports.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { existsSync } from "node:fs";
import { copyFile, mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { build } from "esbuild";

const here = import.meta.dirname;
const root = join(here, "..", "..");

export type RuntimeName = "bun" | "deno" | "workerd";

/**
 * Each runtime's platform package (an optionalDependency of `bun`, `deno`,
 * `workerd`) and the binary inside it, by `${platform}-${arch}`; `-musl` for
 * a Linux without glibc. A platform missing here has no build of that runtime.
 */
const binaries: Record<RuntimeName, Record<string, string>> = {
  bun: {
    "linux-x64": "@oven/bun-linux-x64/bin/bun",
    "linux-x64-musl": "@oven/bun-linux-x64-musl/bin/bun",
    "linux-arm64": "@oven/bun-linux-aarch64/bin/bun",
    "linux-arm64-musl": "@oven/bun-linux-aarch64-musl/bin/bun",
    "darwin-x64": "@oven/bun-darwin-x64/bin/bun",
    "darwin-arm64": "@oven/bun-darwin-aarch64/bin/bun",
    "freebsd-x64": "@oven/bun-freebsd-x64/bin/bun",
    "freebsd-arm64": "@oven/bun-freebsd-aarch64/bin/bun",
    "win32-x64": "@oven/bun-windows-x64/bin/bun.exe",
    "win32-arm64": "@oven/bun-windows-aarch64/bin/bun.exe",
  },
  deno: {
    "linux-x64": "@deno/linux-x64-glibc/deno",
    "linux-arm64": "@deno/linux-arm64-glibc/deno",
    "darwin-x64": "@deno/darwin-x64/deno",
    "darwin-arm64": "@deno/darwin-arm64/deno",
    "win32-x64": "@deno/win32-x64/deno.exe",
    "win32-arm64": "@deno/win32-arm64/deno.exe",
  },
  workerd: {
    "linux-x64": "@cloudflare/workerd-linux-64/bin/workerd",
    "linux-arm64": "@cloudflare/workerd-linux-arm64/bin/workerd",
    "darwin-x64": "@cloudflare/workerd-darwin-64/bin/workerd",
    "darwin-arm64": "@cloudflare/workerd-darwin-arm64/bin/workerd",
    "win32-x64": "@cloudflare/workerd-windows-64/bin/workerd.exe",
  },
};

function platformKey(): string {
  const key = `${process.platform}-${process.arch}`;
  const glibc = (process.report?.getReport() as { header?: { glibcVersionRuntime?: string } } | undefined)?.header?.glibcVersionRuntime;
  return process.platform === "linux" && !glibc ? `${key}-musl` : key;
}

/** A runtime's binary, or why there is none: no build for this platform (skip), or not installed (fail under CI=true). */
export type Runtime =
  | { readonly name: RuntimeName; readonly binary: string }
  | { readonly name: RuntimeName; readonly binary?: undefined; readonly skip: boolean; readonly reason: string };

export function findRuntime(name: RuntimeName): Runtime {
  const key = platformKey();
  const rel = binaries[name][key];
  if (!rel) return { name, skip: true, reason: `${name} has no build for ${key}` };
  const binary = join(here, "node_modules", rel);
  if (existsSync(binary)) return { name, binary };
  return {
    name,
    skip: process.env.CI !== "true",
    reason: `${binary} is missing: run \`npm run edge:install\` (.ci/run does)`,
  };
}

/**
 * Bundles `entry` (a file of test/e2e/edge) into one ES module, everything in it
 * and nothing external: a `node:` import anywhere fails the build, as the
 * runtime's universal entries and the engine promise none.
 */
async function bundle(entry: string, outfile: string): Promise<void> {
  await build({
    entryPoints: [join(here, entry)],
    outfile,
    bundle: true,
    format: "esm",
    platform: "neutral",
    // neutral resolves no main fields by default; packages without `exports` need them.
    mainFields: ["module", "main"],
    // The runtime from its TypeScript source, as every test sees it (never a stale dist/).
    conditions: ["a2a-http-source"],
    absWorkingDir: root,
    logLevel: "silent",
  });
}

/** `n` distinct ports free at the time of asking (for workerd, which cannot report ports it picked itself). */
async function freePorts(n: number): Promise<number[]> {
  const servers = Array.from({ length: n }, () => createServer());
  const ports = await Promise.all(
    servers.map(
      (s) =>
        new Promise<number>((ok, fail) => s.once("error", fail).listen(0, "127.0.0.1", () => ok((s.address() as { port: number }).port))),
    ),
  );
  await Promise.all(servers.map((s) => new Promise((ok) => s.close(ok))));
  return ports;
}

/** A runtime's process, with everything it wrote. */
interface Running {
  readonly child: ChildProcess;
  readonly output: () => string;
  /** Settles with the exit code once the process has exited and its output is all read. */
  readonly closed: Promise<number | null>;
  stop(): Promise<void>;
}

/** Starts `binary args`; `stop()` ends it by pid (SIGTERM, then SIGKILL after 2 s) and waits for its exit. */
function start(binary: string, args: readonly string[], cwd: string): Running {
  const child = spawn(binary, args, {
    cwd,
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, NO_COLOR: "1", DENO_NO_UPDATE_CHECK: "1" },
  });
  let out = "";
  child.stdout!.setEncoding("utf8").on("data", (d: string) => (out += d));
  child.stderr!.setEncoding("utf8").on("data", (d: string) => (out += d));
  const closed = new Promise<number | null>((ok) => {
    child.once("close", (code) => ok(code));
    child.once("error", (e) => {
      out += String(e);
      ok(null);
    });
  });
  const running = () => child.exitCode === null && child.signalCode === null && child.pid !== undefined;
  return {
    child,
    output: () => out,
    closed,
    async stop() {
      if (!running()) return;
      process.kill(child.pid!, "SIGTERM");
      const killer = setTimeout(() => running() && process.kill(child.pid!, "SIGKILL"), 2000);
      await closed;
      clearTimeout(killer);
    },
  };
}

/** Waits for `check` to hold, polling every 50 ms; fails after `ms` with the process output. */
export async function until<T>(what: string, ms: number, check: () => Promise<T | undefined> | T | undefined, run?: Running): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const exited = run && (run.child.exitCode !== null || run.child.signalCode !== null);
    const value = exited ? undefined : await check();
    if (value !== undefined) return value;
    if (exited || Date.now() > deadline) {
      throw new Error(
        `${what}: ${exited ? "the process exited" : `not within ${ms} ms`}${run ? `\n--- its output ---\n${run.output()}` : ""}`,
      );
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** The port a Bun or Deno `serve` printed as `{"port":n}`. */
const printedPort = (run: Running) => () => {
  const m = /\{"port":(\d+)\}/.exec(run.output());
  return m ? Number(m[1]) : undefined;
};

/** Whether an HTTP server answers at `url` yet. */
const answers = (url: string) => async () => {
  try {
    await (await fetch(url)).arrayBuffer();
    return true;
  } catch {
    return undefined;
  }
};

/** The example agent served by a runtime, and a way to run the generated client inside that runtime. */
export interface Launched {
  /** The agent's URL (HTTP+JSON at its root, JSON-RPC at /jsonrpc). */
  readonly agentUrl: string;
  /** Runs client-run.ts in the runtime against the agent at `url`; its results. */
  runClient(url: string): Promise<unknown>;
  /** Everything the runtime wrote so far. */
  output(): string;
  stop(): Promise<void>;
}

/** How each runtime loads a bundle of main.ts, with no more rights than loopback network access. */
const commands: Record<"bun" | "deno", (mode: readonly string[]) => string[]> = {
  bun: (mode) => ["main.js", ...mode],
  deno: (mode) => ["run", "--allow-net=127.0.0.1", "--no-prompt", "main.js", ...mode],
};

/** Bundles the agent (and the client) for `runtime`, starts it on free ports, and waits until it listens. */
export async function launch(name: RuntimeName, binary: string): Promise<Launched> {
  // A fresh directory for the bundle (and workerd's config, which embeds it by relative path).
  const dir = await mkdtemp(join(tmpdir(), `a2a-edge-${name}-`));
  let run: Running | undefined;
  try {
    if (name === "workerd") {
      await bundle("worker.ts", join(dir, "worker.js"));
      const config = join(dir, "workerd.capnp");
      await copyFile(join(here, "workerd.capnp"), config);
      const [agentPort, clientPort] = await freePorts(2);
      const agentUrl = `http://127.0.0.1:${agentPort}`;
      const clientUrl = `http://127.0.0.1:${clientPort}`;
      const args = ["serve", config, "--socket-addr", `agent=127.0.0.1:${agentPort}`, "--socket-addr", `client=127.0.0.1:${clientPort}`];
      const r = (run = start(binary, args, dir));
      await until("workerd listening", 15_000, answers(`${clientUrl}/`), r);
      return {
        agentUrl,
        output: r.output,
        async runClient(url) {
          const answer = await fetch(`${clientUrl}/?agent=${encodeURIComponent(url)}`);
          const body = await answer.text();
          if (!answer.ok) throw new Error(`the client Worker answered ${answer.status}: ${body}`);
          return JSON.parse(body);
        },
        stop: () => r.stop().finally(() => removeDir(dir)),
      };
    }
    await bundle("main.ts", join(dir, "main.js"));
    const command = commands[name];
    const r = (run = start(binary, command(["serve"]), dir));
    const port = await until(`${name} listening`, 15_000, printedPort(r), r);
    return {
      agentUrl: `http://127.0.0.1:${port}`,
      output: r.output,
      async runClient(url) {
        const c = start(binary, command(["client", url]), dir);
        const killer = setTimeout(() => void c.stop(), 20_000);
        const code = await c.closed;
        clearTimeout(killer);
        if (code !== 0) throw new Error(`${name} client exited with ${code}:\n${c.output()}`);
        return JSON.parse(c.output());
      },
      stop: () => r.stop().finally(() => removeDir(dir)),
    };
  } catch (e) {
    await run?.stop();
    await removeDir(dir);
    throw e;
  }
}

const removeDir = (dir: string) => rm(dir, { recursive: true, force: true });
