// The packages as a user gets them: `npm pack` of a2a-http and
// protoc-gen-a2a-http, installed into an empty project outside the
// repository (with TypeScript 7 in it), then
// - the README's buf and protoc recipes on the README's user proto, type-checked
//   under strict NodeNext;
// - the default target and target=dts with TypeScript 7 in the project;
// - one scaffolded agent per framework: npm install, typecheck before and after
//   `npm run generate`, its own `npm test`, npm start, the card and SendMessage
//   (the echo executor's COMPLETED task) on the three bindings, and A2A v0.3's
//   clients (@a2a-js/sdk 0.3.14 from this repository) on JSON-RPC and REST;
// - the production install of the Hono agent (npm ci --omit=dev: the 12 MB
//   budget), serving from its build, without the optional peers pg and PGlite
//   and without OpenTelemetry's SDK, which asked for it names the command that
//   installs it; once that command has run in the project, the production
//   install has the SDK and, with OTEL_EXPORTER_OTLP_ENDPOINT, exports its
//   spans to a receiver;
// - the runtime's bin, `a2a-http migrate`, from the installed tarball: without
//   pg or PGlite it names the package to install; with them it migrates a
//   directory and (with DATABASE_URL) a PostgreSQL database.
// Installs share the user's npm cache (--prefer-offline), which `npm ci` of this
// repository has filled; the first run on a machine downloads what is missing.
import { writeStrictTsconfig } from "../strict-tsconfig.js";
import { execFile, spawn, spawnSync, type ChildProcess } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { fromJson } from "@bufbuild/protobuf";
import type { Message as V03Message, Task as V03Task } from "a2a-sdk-v03";
import { A2AClient, ClientFactory, RestTransportFactory } from "a2a-sdk-v03/client";
import { A2AService, SendMessageRequestSchema } from "../../../gen/a2a_pb.js";
import { A2AService as A2AServiceV03, Role as RoleV03 } from "../../../gen/a2a-v0_3_pb.js";
import { createScratchDatabase } from "../../scratch-database.js";
import { docRecipes, recipe, shellRecipes } from "./recipes.js";
import { startOtlpReceiver } from "../otel/otlp-receiver.js";
import { telemetryInstallCommand, telemetryPackages } from "../../../packages/plugin/templates/scaffold/telemetry.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
const tsc = join(root, "node_modules", "typescript", "bin", "tsc");
const version = (JSON.parse(readFileSync(join(root, "packages", "runtime", "package.json"), "utf8")) as { version: string }).version;
const work = mkdtempSync(join(tmpdir(), "a2a-http-package-"));
const tarballs = join(work, "tarballs");
const host = join(work, "host");
const recipes = docRecipes(root);
// Four projects' node_modules and more: on a loaded machine, more than the default 30 s hook timeout.
afterAll(() => rmSync(work, { recursive: true, force: true }), 300_000);

const npmEnv = { ...process.env, npm_config_audit: "false", npm_config_fund: "false", npm_config_update_notifier: "false" };
const npm = (cwd: string, ...args: string[]) => run("npm", args, { cwd, env: npmEnv, maxBuffer: 16 << 20 });
const install = (cwd: string, ...args: string[]) => npm(cwd, "install", "--prefer-offline", "--no-audit", "--no-fund", ...args);

/** What the project's own tsconfig would say for NodeNext, as strict as it gets. */
function writeProjectTsconfig(dir: string, include: string[]) {
  writeStrictTsconfig(join(dir, "tsconfig.strict.json"), include);
}

async function typecheck(dir: string): Promise<string> {
  try {
    await run(process.execPath, [tsc, "-p", join(dir, "tsconfig.strict.json")], { cwd: dir });
    return "";
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${err.stdout ?? ""}${err.stderr ?? ""}`;
  }
}

function files(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const p = join(dir, n);
    return statSync(p).isDirectory() ? files(p).map((f) => `${n}/${f}`) : [n];
  });
}

function du(dir: string): number {
  let total = 0;
  for (const name of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, name.name);
    if (name.isDirectory()) total += du(p);
    else if (name.isFile()) total += statSync(p).size;
  }
  return total;
}

beforeAll(async () => {
  mkdirSync(tarballs, { recursive: true });
  await npm(root, "pack", "-w", "a2a-http", "-w", "protoc-gen-a2a-http", "--pack-destination", tarballs);
  mkdirSync(host);
  writeFileSync(join(host, "package.json"), JSON.stringify({ name: "host", private: true, type: "module" }));
  await install(
    host,
    join(tarballs, `a2a-http-${version}.tgz`),
    join(tarballs, `protoc-gen-a2a-http-${version}.tgz`),
    "@bufbuild/buf@1.75.0",
    "@bufbuild/protoc-gen-es@2.17.0",
    "@bufbuild/protobuf@2.17.0",
    "express@5.3.0",
    "@types/express@5.0.6",
    "@types/node@20.19.43",
    "typescript@7.0.2",
  );
  for (const [path, text] of recipes) {
    if (shellRecipes.includes(path) || path === "package.json") continue;
    mkdirSync(dirname(join(host, path)), { recursive: true });
    writeFileSync(join(host, path), text);
  }
  // The package.json recipe is what to add to one's own.
  const pkg = JSON.parse(readFileSync(join(host, "package.json"), "utf8")) as Record<string, unknown>;
  writeFileSync(join(host, "package.json"), JSON.stringify({ ...pkg, ...JSON.parse(recipe(recipes, "package.json")) }, null, 2));
  writeProjectTsconfig(host, ["src"]);
}, 300_000);

describe("the packed packages", () => {
  test("have the same version, and the plugin depends on exactly its runtime", () => {
    const plugin = JSON.parse(readFileSync(join(host, "node_modules", "protoc-gen-a2a-http", "package.json"), "utf8"));
    const runtime = JSON.parse(readFileSync(join(host, "node_modules", "a2a-http", "package.json"), "utf8"));
    expect(plugin.version).toBe(version);
    expect(runtime.version).toBe(version);
    expect(plugin.dependencies["a2a-http"]).toBe(version);
    expect(Object.keys(runtime.dependencies).sort()).toEqual(["@bufbuild/protobuf", "eventsource-parser", "ipaddr.js"]);
    // The SQL store's drivers are optional peers: an agent on the memory store installs neither.
    expect(runtime.peerDependencies).toMatchObject({ pg: "^8.0.3", "@electric-sql/pglite": "^0.5.0 || ^0.6.0" });
    expect(runtime.peerDependenciesMeta).toMatchObject({ pg: { optional: true }, "@electric-sql/pglite": { optional: true } });
    expect(runtime.bin).toEqual({ "a2a-http": "bin/a2a-http.js" });
    expect(existsSync(join(host, "node_modules", "pg"))).toBe(false);
    expect(existsSync(join(host, "node_modules", "@electric-sql"))).toBe(false);
  });

  test("the docs' buf recipe generates code that type-checks under strict NodeNext (with the server and client recipes)", async () => {
    expect(Object.keys(JSON.parse(readFileSync(join(host, "package.json"), "utf8")).dependencies)).toContain("a2a-http");
    rmSync(join(host, "src", "gen"), { recursive: true, force: true });
    await run(join(host, "node_modules", ".bin", "buf"), ["generate"], { cwd: host });
    const out = files(join(host, "src", "gen"));
    expect(out).toContain("acme/greeter/v1/greeter_http_express.ts");
    expect(out).toContain("google/api/annotations_pb.ts");
    expect(await typecheck(host)).toBe("");
  }, 120_000);

  test("the docs' protoc recipe too", async () => {
    rmSync(join(host, "src", "gen"), { recursive: true, force: true });
    await run("bash", ["-euc", recipe(recipes, "protoc")], { cwd: host });
    expect(files(join(host, "src", "gen"))).toContain("google/api/field_behavior_pb.ts");
    expect(await typecheck(host)).toBe("");
  }, 120_000);

  test("from the tarball (dist/): every subpath loads in Node; the root, /client, /server, /jsonrpc, /codegenv1, /agent and the generated client bundle for browsers with no node: import", async () => {
    // Without the a2a-http-source condition: the exports map's dist/ files, as users resolve them.
    const subpaths = [
      "",
      "/client",
      "/server",
      "/node",
      "/fastify",
      "/jsonrpc",
      "/agent",
      "/push",
      "/stores",
      "/codegenv1",
      "/routing",
      "/json",
    ];
    const load = subpaths.map((p) => `await import("a2a-http${p}");`).join(" ");
    await run(process.execPath, ["--input-type=module", "-e", load], { cwd: host });
    // The buf recipe's output (the tests above write it; run alone, this one does).
    if (!existsSync(join(host, "src", "gen", "acme", "greeter", "v1", "greeter_http_client.ts"))) {
      await run(join(host, "node_modules", ".bin", "buf"), ["generate"], { cwd: host });
    }
    const { build } = await import("esbuild");
    const result = await build({
      stdin: {
        contents: [
          ...["", "/client", "/server", "/jsonrpc", "/codegenv1", "/agent"].map((p, i) => `export * as m${i} from "a2a-http${p}";`),
          `export { createGreeterServiceClient } from "./src/gen/acme/greeter/v1/greeter_http_client.js";`,
        ].join("\n"),
        resolveDir: host,
        loader: "ts",
      },
      bundle: true,
      write: false,
      format: "esm",
      platform: "browser",
      metafile: true,
      logLevel: "silent",
    });
    const nodeImports = Object.values(result.metafile.inputs).flatMap((i) =>
      i.imports.filter((x) => x.path.startsWith("node:") || x.external),
    );
    expect(nodeImports).toEqual([]);
    expect(Object.keys(result.metafile.inputs).some((f) => f.includes("node_modules/a2a-http/dist/client/wire-client.js"))).toBe(true);
  }, 120_000);

  test("the default target (js+dts) and target=dts work with TypeScript 7 in the project", async () => {
    const ts = JSON.parse(readFileSync(join(host, "node_modules", "typescript", "package.json"), "utf8"));
    expect(ts.version).toBe("7.0.2");
    writeFileSync(
      join(host, "buf.gen.ts7.yaml"),
      [
        "version: v2",
        "clean: true",
        "plugins:",
        "  - local: protoc-gen-a2a-http",
        "    out: out-default",
        "    opt: [server=express]",
        "  - local: protoc-gen-a2a-http",
        "    out: out-dts",
        "    opt: [target=dts, server=express]",
        "",
      ].join("\n"),
    );
    await run(join(host, "node_modules", ".bin", "buf"), ["generate", "--template", "buf.gen.ts7.yaml"], { cwd: host });
    expect(files(join(host, "out-default"))).toEqual(
      expect.arrayContaining(["acme/greeter/v1/greeter_http.js", "acme/greeter/v1/greeter_http.d.ts"]),
    );
    expect(readFileSync(join(host, "out-default", "acme/greeter/v1/greeter_http.js"), "utf8")).toContain('from "./greeter_pb.js"');
    expect(files(join(host, "out-dts")).filter((f) => !f.endsWith(".d.ts"))).toEqual([]);
    expect(files(join(host, "out-dts"))).toContain("acme/greeter/v1/greeter_http_express.d.ts");
  }, 120_000);
});

/**
 * A scaffolded project's install: npm 11 printed no "install scripts not yet
 * covered by allowScripts" (its package.json denies the two it has, npm 12
 * skips uncovered ones), and the denied scripts did not run: esbuild's would
 * have put its binary in place of its JS launcher. What follows the install
 * (generate, typecheck, npm test, npm start) runs without them.
 */
function expectNoScriptWarning(installed: { stdout: string; stderr: string }, dir: string) {
  expect(`${installed.stdout}${installed.stderr}`).not.toMatch(/install-scripts|allowScripts/);
  expect(readFileSync(join(dir, "node_modules", "esbuild", "bin", "esbuild"), "latin1")).toMatch(/^#!\/usr\/bin\/env node\n/);
}

/** Starts `npm start` (or another script) in its own process group; resolves with the URL it prints. */
function start(
  dir: string,
  script: string[],
  env: Record<string, string> = { PORT: "0", GRPC_PORT: "0" },
): Promise<{ url: string; child: ChildProcess; output: () => string }> {
  const child = spawn("npm", script, {
    cwd: dir,
    env: { ...npmEnv, HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
    detached: true,
  });
  return new Promise((resolve, reject) => {
    let out = "";
    const timer = setTimeout(() => reject(new Error(`no "listening on" within 60 s:\n${out}`)), 60_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) {
        clearTimeout(timer);
        resolve({ url: m[1]!, child, output: () => out });
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`${script.join(" ")} exited with ${code}:\n${out}`)));
  });
}

function stop(child: ChildProcess) {
  if (child.pid !== undefined && child.exitCode === null) {
    try {
      process.kill(-child.pid, "SIGTERM"); // the group: npm, its shell and node
    } catch {
      // already gone
    }
  }
}

const sendMessage = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] } };

test("the docs' project recipes: tsconfig and package.json build it, the server serves, the client calls", async () => {
  // buf.gen.yaml's output again (the protoc test wrote the same files).
  await npm(host, "run", "build");
  expect(existsSync(join(host, "dist", "server.js"))).toBe(true);
  const { url, child } = await start(host, ["start"], { PORT: "0" });
  try {
    const { stdout } = await run(process.execPath, ["dist/client.js"], { cwd: host, env: { ...process.env, GREETER_URL: url } });
    expect(stdout).toBe("Hi, ada!\n");
  } finally {
    stop(child);
  }
}, 180_000);

/** A port that was free a moment ago, and the one after it. */
async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  for (;;) {
    const s = createServer();
    const port = await new Promise<number>((ok) => s.listen(0, "127.0.0.1", () => ok((s.address() as { port: number }).port)));
    await new Promise((ok) => s.close(ok));
    if (port < 65535) return port;
  }
}

describe("the README's quick start, from an empty folder with the two tarballs", () => {
  const folder = join(work, "quickstart");
  const agent = join(folder, "my-agent");
  const lines = recipe(recipes, "quickstart").trim().split("\n");

  test("names this version's tarballs, and has three commands: scaffold, install, start", () => {
    expect(lines).toHaveLength(3);
    expect(lines[0]).toContain(`./a2a-http-${version}.tgz`);
    expect(lines[0]).toContain(`./protoc-gen-a2a-http-${version}.tgz`);
    expect(lines[2]).toBe("npm start");
  });

  test("scaffolds with npx from the tarballs, installs, starts, answers curl and the client", async () => {
    mkdirSync(folder);
    for (const t of [`a2a-http-${version}.tgz`, `protoc-gen-a2a-http-${version}.tgz`]) cpSync(join(tarballs, t), join(folder, t));
    const started = Date.now();
    const env = { ...npmEnv, npm_config_prefer_offline: "true" };
    const scaffolded = await run("bash", ["-euc", lines[0]!], { cwd: folder, env, maxBuffer: 16 << 20 });
    expect(scaffolded.stdout).toContain("come from the tarballs");
    // The project holds what it installs from: it can be moved and committed.
    const pkg = JSON.parse(readFileSync(join(agent, "package.json"), "utf8"));
    expect(pkg.dependencies["a2a-http"]).toBe(`file:./vendor/a2a-http-${version}.tgz`);
    expect(pkg.devDependencies["protoc-gen-a2a-http"]).toBe(`file:./vendor/protoc-gen-a2a-http-${version}.tgz`);
    expectNoScriptWarning(await run("bash", ["-euc", lines[1]!], { cwd: folder, env, maxBuffer: 16 << 20 }), agent);
    const port = await freePort();
    // gRPC on any free port: its default (PORT + 1) may be taken on a busy machine, which is not what this checks.
    const { url, child } = await start(agent, ["start"], { PORT: String(port), GRPC_PORT: "0" });
    try {
      const seconds = (Date.now() - started) / 1000;
      console.log(`quick start: scaffold, npm install and npm start in ${seconds.toFixed(1)} s (warm npm cache)`);
      expect(url).toBe(`http://127.0.0.1:${port}`);
      const call = recipe(recipes, "quickstart-call").replaceAll("127.0.0.1:41241", `127.0.0.1:${port}`);
      expect(call).toContain(`127.0.0.1:${port}`);
      const { stdout } = await run("bash", ["-euc", call], { cwd: agent, env: { ...env, AGENT_URL: url } });
      expect(stdout).toMatch(/"state":"TASK_STATE_COMPLETED"/);
      expect(stdout).toMatch(/"parts":\[\{"text":"echo: hello"\}\]/);
      expect(stdout).toMatch(/\ntask [0-9a-f-]+: COMPLETED\necho: hello\n$/);
    } finally {
      stop(child);
    }
  }, 300_000);

  test("its Dockerfile's build context is complete: the stages, run here as written, serve the agent as a non-root user and pass the health check", async () => {
    const image = await emulateDockerBuild(agent, join(work, "docker"));
    expect(image.user).toBe("node");
    expect(image.exposed).toEqual(["41241", "41242"]);
    // Production dependencies only.
    const installed = readdirSync(join(image.workdir, "node_modules"));
    expect(installed).toContain("a2a-http");
    for (const dev of ["typescript", "tsx", "protoc-gen-a2a-http"]) expect(installed).not.toContain(dev);
    expect(readdirSync(join(image.workdir, "node_modules", "@bufbuild"))).toEqual(["protobuf"]);
    const port = await freePort();
    const env = { ...process.env, ...image.env, PORT: String(port), GRPC_PORT: "0", HOST: "127.0.0.1" };
    const child = spawn(image.cmd[0]!, image.cmd.slice(1), { cwd: image.workdir, env, stdio: ["ignore", "pipe", "pipe"], detached: true });
    try {
      await new Promise<void>((ok, fail) => {
        let out = "";
        child.stdout!.on("data", (d: Buffer) => ((out += d.toString()), out.includes("listening on") && ok()));
        child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
        child.once("exit", (code) => fail(new Error(`the image's CMD exited with ${code}: ${out}`)));
      });
      const health = spawnSync(image.healthcheck[0]!, image.healthcheck.slice(1), {
        cwd: image.workdir,
        env,
        encoding: "utf8",
        timeout: 10_000,
      });
      expect(health.status).toBe(0);
      await expectAgent(`http://127.0.0.1:${port}`);
    } finally {
      stop(child);
    }
    // Where docker is, the image itself.
    if (spawnSync("docker", ["version"], { stdio: "ignore" }).status === 0) {
      await run("docker", ["build", "-q", "-t", "a2a-http-package-test", "."], { cwd: agent, maxBuffer: 16 << 20 });
    }
  }, 300_000);
});

/**
 * Runs a Dockerfile's stages on this machine, each in its own folder standing
 * for the image's root: FROM, WORKDIR, ENV, COPY (from the context, less
 * .dockerignore's entries, or --from an earlier stage), RUN (with bash), USER,
 * EXPOSE, HEALTHCHECK CMD and CMD. What it cannot run it refuses, so the test
 * follows the Dockerfile and fails when it says something new.
 */
async function emulateDockerBuild(context: string, out: string) {
  const text = readFileSync(join(context, "Dockerfile"), "utf8").replace(/\\\n\s*/g, " ");
  const ignored = readFileSync(join(context, ".dockerignore"), "utf8")
    .split("\n")
    .map((l) => l.trim().replace(/\/$/, ""))
    .filter((l) => l !== "" && !l.startsWith("#"));
  const stages = new Map<string, string>();
  let rootDir = "";
  let workdir = "/";
  let env: Record<string, string> = {};
  let user = "root";
  let exposed: string[] = [];
  let healthcheck: string[] = [];
  let cmd: string[] = [];
  const inStage = (p: string) => join(rootDir, p.startsWith("/") ? p : join(workdir, p));
  for (const line of text.split("\n").map((l) => l.trim())) {
    if (line === "" || line.startsWith("#")) continue;
    const [instruction, ...rest] = line.split(/\s+/);
    let args = rest.join(" ");
    switch (instruction) {
      case "FROM": {
        const as = /\bAS\s+(\S+)/i.exec(args)?.[1];
        rootDir = join(out, `stage-${stages.size}`);
        mkdirSync(rootDir, { recursive: true });
        if (as) stages.set(as, rootDir);
        else stages.set(String(stages.size), rootDir);
        workdir = "/";
        env = {};
        user = "root";
        break;
      }
      case "WORKDIR":
        workdir = args;
        mkdirSync(inStage("."), { recursive: true });
        break;
      case "ENV":
        for (const kv of rest) {
          const [k, v] = kv.split("=");
          env[k!] = v!;
        }
        break;
      case "COPY": {
        const from = /^--from=(\S+)$/.exec(rest[0]!)?.[1];
        const paths = from === undefined ? rest : rest.slice(1);
        const dest = paths.pop()!;
        for (const src of paths) {
          const source = from === undefined ? join(context, src) : join(stages.get(from)!, src);
          const target = inStage(dest);
          if (statSync(source).isDirectory()) {
            cpSync(source, target, {
              recursive: true,
              filter: (p) => from !== undefined || !ignored.some((i) => p === join(context, i) || p.startsWith(join(context, i) + "/")),
            });
          } else {
            mkdirSync(target.endsWith("/") || dest.endsWith("/") ? target : dirname(target), { recursive: true });
            cpSync(source, dest.endsWith("/") ? join(target, src.split("/").pop()!) : target);
          }
        }
        break;
      }
      case "RUN":
        // A BuildKit cache mount: here npm's own cache is the cache.
        if (/^--mount=type=cache,\S+ /.test(args)) args = args.slice(args.indexOf(" ") + 1);
        await run("bash", ["-euc", args], {
          cwd: inStage("."),
          env: { ...npmEnv, npm_config_prefer_offline: "true", ...env },
          maxBuffer: 64 << 20,
        });
        break;
      case "USER":
        user = args;
        break;
      case "EXPOSE":
        exposed = rest;
        break;
      case "HEALTHCHECK":
        healthcheck = JSON.parse(args.slice(args.indexOf("CMD ") + 4)) as string[];
        break;
      case "CMD":
        cmd = JSON.parse(args) as string[];
        break;
      default:
        throw new Error(`the emulated build does not know ${instruction}`);
    }
  }
  const exec = (argv: string[]) => (argv[0] === "node" ? [process.execPath, ...argv.slice(1)] : argv);
  return { workdir: inStage("."), env, user, exposed, healthcheck: exec(healthcheck), cmd: exec(cmd) };
}

/** The card lists the three bindings, and each answers SendMessage with the echo agent's COMPLETED task. */
async function expectAgent(url: string) {
  const card = await fetch(`${url}/.well-known/agent-card.json`);
  expect(card.status).toBe(200);
  const body = (await card.json()) as {
    supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
    capabilities: unknown;
  };
  expect(body.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: false });
  const interfaces = body.supportedInterfaces;
  // v1.0's three first, then the entries the card handler adds for v0.3 clients (the same three, gRPC's as an http:// URL:
  // the scaffold serves v0.3's gRPC service from the a2a-v0_3.proto the plugin package ships).
  expect(interfaces.map((i) => [i.protocolBinding, i.protocolVersion])).toEqual([
    ["HTTP+JSON", "1.0"],
    ["JSONRPC", "1.0"],
    ["GRPC", "1.0"],
    ["HTTP+JSON", "0.3"],
    ["JSONRPC", "0.3"],
    ["GRPC", "0.3"],
  ]);
  expect(interfaces[0]!.url).toBe(url);
  expect(interfaces.slice(3).map((i) => i.url)).toEqual([interfaces[0]!.url, interfaces[1]!.url, `http://${interfaces[2]!.url}`]);

  type TaskJson = { status: { state: string }; artifacts: { parts: { text: string }[] }[] };
  const rpc = await fetch(interfaces[1]!.url, {
    method: "POST",
    headers: { "A2A-Version": "1.0", "Content-Type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendMessage", params: sendMessage }),
  });
  const answer = (await rpc.json()) as { id: number; result: { task: TaskJson } };
  expect(answer.id).toBe(7);
  expect(answer.result.task.status.state).toBe("TASK_STATE_COMPLETED");
  expect(answer.result.task.artifacts[0]!.parts[0]!.text).toBe("echo: hello");

  const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${interfaces[2]!.url}` }));
  const viaGrpc = await grpc.sendMessage(fromJson(SendMessageRequestSchema, sendMessage), { headers: { "A2A-Version": "1.0" } });
  expect(viaGrpc.payload.case === "task" && viaGrpc.payload.value.artifacts[0]?.parts[0]?.content.value).toBe("echo: hello");
  // v0.3's gRPC service on the same port, as a v0.3 client calls it (no a2a-version).
  const grpcV03 = createClient(A2AServiceV03, createGrpcTransport({ baseUrl: interfaces[5]!.url }));
  const viaGrpcV03 = await grpcV03.sendMessage({
    request: { messageId: "v03-grpc", role: RoleV03.USER, content: [{ part: { case: "text", value: "hello" } }] },
  });
  expect(viaGrpcV03.payload.case === "task" && viaGrpcV03.payload.value.artifacts[0]?.parts[0]?.part.value).toBe("echo: hello");

  const res = await fetch(`${url}/message:send`, {
    method: "POST",
    headers: { "A2A-Version": "1.0", "Content-Type": "application/a2a+json" },
    body: JSON.stringify(sendMessage),
  });
  expect(res.status).toBe(200);
  const { task } = (await res.json()) as { task: TaskJson };
  expect(task.status.state).toBe("TASK_STATE_COMPLETED");
  expect(task.artifacts[0]!.parts[0]!.text).toBe("echo: hello");
}

/**
 * A2A v0.3 clients (@a2a-js/sdk 0.3.14, run from this test's process: the
 * scaffolded project installs none of it) find the agent through the card's
 * v0.3 fields: the legacy A2AClient sends, streams and gets over JSON-RPC,
 * ClientFactory with only the REST transport sends over `/v1/message:send`.
 */
async function expectV03Clients(url: string) {
  const message = (text: string): V03Message => ({
    kind: "message",
    messageId: crypto.randomUUID(),
    role: "user",
    parts: [{ kind: "text", text }],
  });
  const completed = { kind: "task", status: { state: "completed" }, artifacts: [{ parts: [{ kind: "text", text: "echo: hello" }] }] };

  const legacy = await A2AClient.fromCardUrl(`${url}/.well-known/agent-card.json`);
  const sent = await legacy.sendMessage({ message: message("hello") });
  expect("result" in sent ? sent.result : sent).toMatchObject(completed);
  const task = (sent as { result: V03Task }).result;

  const events: unknown[] = [];
  for await (const e of legacy.sendMessageStream({ message: message("streamed") })) {
    if (e.kind === "status-update") events.push([e.kind, e.status.state, e.final]);
    else if (e.kind === "task") events.push([e.kind, e.status.state]);
    else if (e.kind === "artifact-update") events.push([e.kind, ...e.artifact.parts.map((p) => (p.kind === "text" ? p.text : p.kind))]);
    else events.push([e.kind]);
  }
  expect(events[0]).toEqual(["task", "submitted"]);
  expect(events).toContainEqual(["artifact-update", "echo: streamed"]);
  expect(events.at(-1)).toEqual(["status-update", "completed", true]);

  const got = await legacy.getTask({ id: task.id, historyLength: 1 });
  expect("result" in got ? got.result : got).toMatchObject({
    ...completed,
    id: task.id,
    history: [{ role: "user", parts: [{ text: "hello" }] }],
  });

  const rest = await new ClientFactory({ transports: [new RestTransportFactory()] }).createFromUrl(url);
  expect(await rest.sendMessage({ message: message("hello") })).toMatchObject(completed);
}

describe.each(["express", "fastify", "hono"] as const)("a %s agent scaffolded from the installed plugin", (framework) => {
  const dir = join(work, `agent-${framework}`);

  test("installs, type-checks before and after generate, passes its npm test, starts, answers the card and SendMessage", async () => {
    const { stdout } = await run(join(host, "node_modules", ".bin", "protoc-gen-a2a-http"), ["scaffold", dir, "--framework", framework], {
      cwd: host,
    });
    expect(stdout).toContain("come from the tarballs");
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8"));
    expect(pkg.dependencies["a2a-http"]).toBe(`file:./vendor/a2a-http-${version}.tgz`);
    expect(pkg.devDependencies["protoc-gen-a2a-http"]).toBe(`file:./vendor/protoc-gen-a2a-http-${version}.tgz`);

    expectNoScriptWarning(await install(dir), dir);
    await npm(dir, "run", "typecheck");
    await npm(dir, "run", "generate");
    await npm(dir, "run", "typecheck");
    const tested = await npm(dir, "test");
    expect(tested.stdout).toMatch(/[#ℹ] pass 2\n[#ℹ] fail 0\n/); // TAP (Node 20) or the spec reporter (Node 23+)

    const { url, child } = await start(dir, ["start"]);
    try {
      expect(new URL(url).port).not.toBe("41241");
      await expectAgent(url);
      await expectV03Clients(url);
      if (framework === "fastify") {
        const bad = await fetch(`${url}/tasks/%zz`, { headers: { "A2A-Version": "1.0" } });
        expect(bad.status).toBe(400);
        expect(((await bad.json()) as { error: { status: string } }).error.status).toBe("INVALID_ARGUMENT");
      }
    } finally {
      stop(child);
    }
  }, 300_000);
});

/** The Hono agent's production install (`npm ci` + `args`) in a folder of its own, with its build; its size in MB on disk. */
async function productionInstall(name: string, ...args: string[]): Promise<{ dir: string; disk: number }> {
  const dir = join(work, "agent-hono");
  const prod = join(work, name);
  mkdirSync(prod);
  for (const f of ["package.json", "package-lock.json"]) cpSync(join(dir, f), join(prod, f));
  cpSync(join(dir, "dist"), join(prod, "dist"), { recursive: true });
  await npm(prod, "ci", ...args, "--prefer-offline", "--no-audit", "--no-fund");
  const fileMb = du(join(prod, "node_modules")) / (1 << 20);
  // what the disk holds (blocks), which is what `du -sh` shows and the larger figure
  const disk = Number((await run("du", ["-sk", join(prod, "node_modules")])).stdout.split("\t")[0]) / 1024;
  console.log(
    `production install of the Hono agent (npm ci ${args.join(" ")}): ${disk.toFixed(1)} MB of node_modules on disk, ${fileMb.toFixed(1)} MB of files ` +
      `(${readdirSync(join(prod, "node_modules"))
        .filter((n) => !n.startsWith("."))
        .join(", ")})`,
  );
  return { dir: prod, disk };
}

test("the Hono agent's production install is small, has no OpenTelemetry SDK, and serves from its build", async () => {
  const dir = join(work, "agent-hono");
  expect(existsSync(join(dir, "node_modules")), "the Hono scaffold test runs first").toBe(true);
  await npm(dir, "run", "build");
  // What the Dockerfile runs: a plain production install, nothing omitted but devDependencies.
  const { dir: prod, disk } = await productionInstall("prod-hono", "--omit=dev");
  expect(disk).toBeLessThanOrEqual(12);
  // The store drivers are optional peers, OpenTelemetry's SDK not in package.json at all: neither is installed.
  const installed = readdirSync(join(prod, "node_modules"));
  expect(installed).not.toContain("pg");
  expect(installed).not.toContain("@electric-sql");
  expect(installed).not.toContain("@opentelemetry");
  // Asked to export without the SDK: it serves, and one line names the command that installs it.
  const { url, child, output } = await start(prod, ["run", "serve"], {
    PORT: "0",
    GRPC_PORT: "0",
    OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:9",
  });
  try {
    await expectAgent(url);
    expect(output()).toContain(`its SDK is not installed, so nothing is exported: ${telemetryInstallCommand}\n`);
  } finally {
    stop(child);
  }
}, 300_000);

test("once the command it names has run in the project, its production install exports spans over OTLP/HTTP", async () => {
  const dir = join(work, "agent-hono");
  expect(existsSync(join(dir, "dist")), "the test above builds it").toBe(true);
  // As the user would, in the project (the cache that `npm ci` of this repository filled has the packages).
  await run("bash", ["-euc", telemetryInstallCommand], {
    cwd: dir,
    env: { ...npmEnv, npm_config_prefer_offline: "true" },
    maxBuffer: 16 << 20,
  });
  const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as { dependencies: Record<string, string> };
  expect(pkg.dependencies).toMatchObject(telemetryPackages);
  const { dir: prod } = await productionInstall("prod-hono-otel", "--omit=dev");
  expect(readdirSync(join(prod, "node_modules", "@opentelemetry"))).toContain("sdk-trace");
  const receiver = await startOtlpReceiver();
  const { url, child, output } = await start(prod, ["run", "serve"], {
    PORT: "0",
    GRPC_PORT: "0",
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
    OTEL_BSP_SCHEDULE_DELAY: "100",
  });
  try {
    await expectAgent(url);
    // Logged after "listening on", which start() waits for.
    await receiver.until(() => output().includes(`OpenTelemetry: traces to ${receiver.url} (http/protobuf)`));
    // The service name defaults to the package's (the project folder's name).
    await receiver.until(() => receiver.spans.some((s) => s.service === "agent-hono" && s.kind === 2));
  } finally {
    stop(child);
    await receiver.close();
  }
}, 300_000);

describe("a2a-http migrate, the runtime's bin, from the installed tarball", () => {
  const bin = () => join(host, "node_modules", ".bin", "a2a-http");
  /** Runs the bin; resolves with its exit code and output, never rejects. */
  const migrate = (...args: string[]) =>
    run(bin(), args, { cwd: host }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  test("--help and bad usage; without pg or PGlite installed, one line naming the package to install", async () => {
    const help = await migrate("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: a2a-http migrate --url /);
    expect((await migrate("migrate")).code).toBe(2);
    const dir = join(work, "no-pglite");
    const noPglite = await migrate("migrate", "--url", dir);
    expect(noPglite.code).toBe(1);
    expect(noPglite.stderr).toBe(
      `a2a-http migrate: a store in ${dir} needs the package @electric-sql/pglite: npm install @electric-sql/pglite\n`,
    );
    const noPg = await migrate("migrate", "--url", "postgres://agent:s3cret@127.0.0.1:5432/a2a");
    expect(noPg.code).toBe(1);
    expect(noPg.stderr).toBe("a2a-http migrate: a store on postgres://agent:***@127.0.0.1:5432/a2a needs the package pg: npm install pg\n");
  }, 60_000);

  test("with @electric-sql/pglite installed: a new directory is migrated, a second run finds nothing to apply", async () => {
    await install(host, "--no-save", "@electric-sql/pglite@0.6.1", "pg@8.23.1");
    const dir = join(work, "store-dir");
    const started = Date.now();
    const first = await migrate("migrate", "--url", dir);
    console.log(`a2a-http migrate on a new PGlite directory: ${Date.now() - started} ms (the process, PGlite's initdb and the schema)`);
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      new RegExp(`^PGlite \\(embedded PostgreSQL\\) in ${dir}: applied 1, 2; schema at version 2 \\(\\d+ ms\\)\\n$`),
    );
    const again = await migrate("migrate", "--url", dir);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/: schema at version 2, nothing to apply \(\d+ ms\)\n$/);
  }, 120_000);

  const url = process.env["DATABASE_URL"];
  if (!url && process.env["CI"] === "true") {
    test("PostgreSQL: DATABASE_URL must be set under CI=true", () => expect.fail("DATABASE_URL is not set: CI runs the PostgreSQL tests"));
  } else if (!url) {
    test.skip("PostgreSQL: skipped, DATABASE_URL is not set (scripts/pg-cluster.sh start DIR prints one)", () => {});
  } else {
    test("with pg installed: a new PostgreSQL database is migrated", async () => {
      const db = await createScratchDatabase(url, "a2a_package");
      try {
        const r = await migrate("migrate", "--url", db.url);
        expect(r.stderr).toBe("");
        expect(r.stdout).toMatch(/^PostgreSQL at postgres:\/\/.*: applied 1, 2; schema at version 2 \(\d+ ms\)\n$/);
        console.log(`a2a-http migrate on a new PostgreSQL database: ${r.stdout.trim()}`);
      } finally {
        await db.drop();
      }
    }, 60_000);
  }
});
