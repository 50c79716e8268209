import { execFile, spawn, type ChildProcess } from "node:child_process";
import { v03Rpc, v03TextMessage } from "../../e2e/v03-rpc.js";
import http2 from "node:http2";
import { connect } from "node:net";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";
import { fromJson } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, SendMessageRequestSchema } from "../../../gen/a2a_pb.js";
import { A2AService as A2AServiceV03, Role as RoleV03, TaskState as TaskStateV03 } from "../../../gen/a2a-v0_3_pb.js";
import { createScratchDatabase } from "../../scratch-database.js";
import { SCHEMA_VERSION } from "a2a-http/stores";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..", "..", "..");
const bin = join(root, "packages", "plugin", "bin", "protoc-gen-a2a-http.js");
const a2aProto = join(root, "..", "shared", "proto", "a2a.proto");
const libraryProto = join(root, "proto", "acme", "library", "v1", "library.proto");
const tmp = mkdtempSync(join(tmpdir(), "a2a-http-scaffold-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Gives a scaffolded project this repository's installed packages (the
 * workspace links a2a-http and protoc-gen-a2a-http among them), so the test
 * needs no registry. test/e2e/package packs and installs them for real.
 */
function linkNodeModules(dir: string): string {
  const nm = join(dir, "node_modules");
  const dotBin = join(nm, ".bin");
  mkdirSync(dotBin, { recursive: true });
  for (const entry of readdirSync(join(root, "node_modules"))) {
    if (entry === ".bin" || entry.startsWith(".")) continue;
    symlinkSync(join(root, "node_modules", entry), join(nm, entry));
  }
  for (const entry of readdirSync(join(root, "node_modules", ".bin"))) {
    symlinkSync(join(root, "node_modules", ".bin", entry), join(dotBin, entry));
  }
  return dotBin;
}

async function scaffold(dir: string, ...args: string[]) {
  return run(process.execPath, [bin, "scaffold", dir, "--proto", a2aProto, ...args], { cwd: tmp });
}

const withBin = (dotBin: string) => ({ ...process.env, PATH: `${dotBin}:${process.env["PATH"]}` });

async function generateAndCheck(dir: string, dotBin: string) {
  const env = withBin(dotBin);
  await run(join(dotBin, "buf"), ["generate"], { cwd: dir, env });
  // TypeScript 7, as the project pins it (test/plugin/scaffold/versions.test.ts).
  await run(process.execPath, [join(root, "node_modules", "typescript-7", "bin", "tsc"), "--noEmit", "-p", dir], { cwd: dir, env });
}

/** Starts the scaffolded server (src/main.ts) on free ports and resolves with its base URL. */
function start(dir: string, dotBin: string) {
  return startWith(dir, { PORT: "0", GRPC_PORT: "0" }, dotBin);
}

function startWith(
  dir: string,
  env: Record<string, string>,
  dotBin = join(dir, "node_modules", ".bin"),
): Promise<{ url: string; child: ChildProcess; exited: Promise<number | null>; stderr: () => string; stdout: () => string }> {
  const child = spawn(join(dotBin, "tsx"), ["src/main.ts"], {
    cwd: dir,
    env: { ...process.env, HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((ok) => child.once("exit", (code) => ok(code)));
  return new Promise((resolvePromise, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolvePromise({ url: m[1]!, child, exited, stderr: () => err, stdout: () => out });
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

/** Stops a server started by {@link start} with SIGTERM and resolves with its exit code. */
async function stop(server: { child: ChildProcess; exited: Promise<number | null> }): Promise<number | null> {
  if (server.child.exitCode === null) server.child.kill("SIGTERM");
  return server.exited;
}

const a2aHeaders = { "A2A-Version": "1.0", "Content-Type": "application/json" };
const sendRequest = (text: string) => ({ message: { messageId: `m-${text}`, role: "ROLE_USER", parts: [{ text }] } });

interface TaskJson {
  id: string;
  status: { state: string };
  artifacts?: { parts: { text?: string }[] }[];
}

/** SendMessage over HTTP+JSON: the task it answers. */
async function send(url: string, text: string): Promise<TaskJson> {
  const res = await fetch(`${url}/message:send`, { method: "POST", headers: a2aHeaders, body: JSON.stringify(sendRequest(text)) });
  expect(res.status).toBe(200);
  return ((await res.json()) as { task: TaskJson }).task;
}

/** The status of a raw GET or POST with exactly the Host given. */
function statusWithHost(url: string, head: string, host: string, body = ""): Promise<number> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => (text += c));
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0)));
    const type = body === "" ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    socket.write(`${head}\r\nHost: ${host}\r\nA2A-Version: 1.0\r\nConnection: close\r\n${type}\r\n${body}`);
  });
}

/** The grpc-status of an empty gRPC ListTasks sent to `target` with the `:authority` given. */
function grpcStatusWithAuthority(target: string, authority: string): Promise<string | undefined> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${target}`);
    session.on("error", reject);
    const req = session.request({
      ":method": "POST",
      ":path": "/lf.a2a.v1.A2AService/ListTasks",
      ":authority": authority,
      "content-type": "application/grpc",
      te: "trailers",
      "a2a-version": "1.0",
    });
    let status: string | undefined;
    req.on("response", (h) => (status ??= h["grpc-status"] as string | undefined));
    req.on("trailers", (t) => (status ??= t["grpc-status"] as string | undefined));
    req.on("data", () => {});
    req.on("end", () => (session.close(), resolve(status)));
    req.on("error", reject);
    req.end(Uint8Array.of(0, 0, 0, 0, 0));
  });
}

describe.each(["express", "fastify", "hono"])("scaffold --framework %s", (framework) => {
  const dir = join(tmp, `agent-${framework}`);

  test("writes an echo agent on the task engine that generates, type-checks, passes its own npm test and serves every rpc on the three bindings, to v0.3 clients too", async () => {
    const { stdout } = await scaffold(dir, "--framework", framework);
    for (const f of ["src/executor.ts", "src/executor.test.ts", "src/card.ts", "src/server.ts", "src/main.ts", "proto/a2a-v0_3.proto"]) {
      expect(stdout).toContain(f);
    }
    expect(existsSync(join(dir, "src", "handlers.ts"))).toBe(false);
    // The packages by paths relative to the project, so it can be moved and committed.
    const pkg = JSON.parse(readFileSync(join(dir, "package.json"), "utf8")) as Record<string, Record<string, string>>;
    const runtimeSpec = pkg["dependencies"]!["a2a-http"]!;
    const pluginSpec = pkg["devDependencies"]!["protoc-gen-a2a-http"]!;
    expect(runtimeSpec).toMatch(/^file:\.\.\//);
    expect(resolve(dir, runtimeSpec.slice(5))).toBe(join(root, "packages", "runtime"));
    expect(resolve(dir, pluginSpec.slice(5))).toBe(join(root, "packages", "plugin"));
    const dotBin = linkNodeModules(dir);
    await generateAndCheck(dir, dotBin);
    // Of a2a-v0_3.proto, only what serves v0.3's gRPC service: its messages, route table and connect binding.
    expect(readdirSync(join(dir, "src", "gen")).filter((f) => f.startsWith("a2a-v0_3"))).toEqual([
      "a2a-v0_3_http.ts",
      "a2a-v0_3_http_connect.ts",
      "a2a-v0_3_pb.ts",
    ]);

    // The project's own test: the agent in-process, through the generated client.
    const tested = await run("npm", ["test"], { cwd: dir, env: withBin(dotBin) });
    // TAP's summary (Node 20's default reporter when not on a terminal) or the spec reporter's (Node 23+).
    expect(tested.stdout).toMatch(/[#ℹ] pass 2\n/);
    expect(tested.stdout).toMatch(/[#ℹ] fail 0\n/);

    const server = await start(dir, dotBin);
    const { url } = server;
    try {
      // Health for probes: no A2A-Version, any Host (a probe's is the pod's address), no-store.
      for (const path of ["/healthz", "/readyz"]) {
        expect(await statusWithHost(url, `GET ${path} HTTP/1.1`, "10.1.2.3:8080"), path).toBe(200);
        const h = await fetch(url + path);
        expect([path, h.headers.get("cache-control"), await h.text()]).toEqual([path, "no-store", '{"status":"ok"}']);
      }
      const cardRes = await fetch(url + "/.well-known/agent-card.json");
      expect(cardRes.status).toBe(200);
      expect(cardRes.headers.get("etag")).toBeTruthy();
      const card = (await cardRes.json()) as {
        capabilities: Record<string, boolean>;
        supportedInterfaces: { url: string; protocolBinding: string; protocolVersion: string }[];
        protocolVersion: string;
        url: string;
        additionalInterfaces: { url: string; transport: string }[];
      };
      expect(card.capabilities).toEqual({ streaming: true, pushNotifications: true, extendedAgentCard: false });
      // The v1.0 interfaces, then the three v0.3 clients reach (docs/a2a.md, "v0.3 clients").
      expect(card.supportedInterfaces.map((i) => `${i.protocolBinding} ${i.protocolVersion}`)).toEqual([
        "HTTP+JSON 1.0",
        "JSONRPC 1.0",
        "GRPC 1.0",
        "HTTP+JSON 0.3",
        "JSONRPC 0.3",
        "GRPC 0.3",
      ]);
      expect(card.protocolVersion).toBe("0.3.0");
      expect(card.url).toBe(card.supportedInterfaces[1]!.url);
      // gRPC among the interfaces v0.3 clients read, as a URL they parse.
      expect(card.additionalInterfaces).toContainEqual({ url: `http://${card.supportedInterfaces[2]!.url}`, transport: "GRPC" });
      // A v0.3 client's message/send (no A2A-Version) on the same endpoint.
      const v03 = await v03Rpc(card.url, "message/send", { message: v03TextMessage("v03", "old") });
      expect(v03.result).toMatchObject({
        kind: "task",
        status: { state: "completed" },
      });
      // ... over HTTP+JSON, v0.3's route ...
      const v03Rest = await fetch(`${url}/v1/message:send`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ request: { messageId: "v03-rest", role: "ROLE_USER", content: [{ text: "old rest" }] } }),
      });
      expect(v03Rest.status).toBe(200);
      expect(((await v03Rest.json()) as { task: TaskJson }).task.status.state).toBe("TASK_STATE_COMPLETED");
      // ... and over gRPC: v0.3's a2a.v1.A2AService on the gRPC port, without a2a-version, as v0.3 clients call it.
      const grpcV03Url = card.additionalInterfaces.find((i) => i.transport === "GRPC")!.url;
      const grpcV03 = createClient(A2AServiceV03, createGrpcTransport({ baseUrl: grpcV03Url }));
      const v03Answer = await grpcV03.sendMessage({
        request: { messageId: "v03-grpc", role: RoleV03.USER, content: [{ part: { case: "text", value: "old grpc" } }] },
      });
      expect(v03Answer.payload.case).toBe("task");
      const v03Task = v03Answer.payload.case === "task" ? v03Answer.payload.value : undefined;
      expect(v03Task?.status?.state).toBe(TaskStateV03.COMPLETED);
      expect(v03Task?.artifacts[0]?.parts[0]?.part).toEqual({ case: "text", value: "echo: old grpc" });

      // DNS rebinding: a Host that is not a loopback name is refused on every route and on the gRPC port.
      const { port } = new URL(url);
      const grpcTarget = card.supportedInterfaces[2]!.url;
      const grpcPort = grpcTarget.split(":").pop()!;
      const evil = `rebind.attacker.example:${port}`;
      expect(await statusWithHost(url, "GET /.well-known/agent-card.json HTTP/1.1", evil)).toBe(421);
      expect(await statusWithHost(url, "GET /tasks HTTP/1.1", evil)).toBe(421);
      expect(
        await statusWithHost(
          url,
          "POST /jsonrpc HTTP/1.1",
          evil,
          JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
        ),
      ).toBe(421);
      expect(await grpcStatusWithAuthority(grpcTarget, `rebind.attacker.example:${grpcPort}`)).toBe("3");
      expect(await statusWithHost(url, "GET /.well-known/agent-card.json HTTP/1.1", `localhost:${port}`)).toBe(200);
      expect(await grpcStatusWithAuthority(grpcTarget, `localhost:${grpcPort}`)).toBe("0");

      // SendMessage answers a COMPLETED task whose artifact echoes the text.
      const task = await send(url, "hi");
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(task.artifacts?.[0]?.parts[0]?.text).toBe("echo: hi");

      // The same over JSON-RPC and gRPC.
      const rpc = await fetch(card.supportedInterfaces[1]!.url, {
        method: "POST",
        headers: a2aHeaders,
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "SendMessage", params: sendRequest("rpc") }),
      });
      const rpcTask = ((await rpc.json()) as { result: { task: TaskJson } }).result.task;
      expect(rpcTask.status.state).toBe("TASK_STATE_COMPLETED");
      expect(rpcTask.artifacts?.[0]?.parts[0]?.text).toBe("echo: rpc");
      const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${card.supportedInterfaces[2]!.url}` }));
      const grpcAnswer = await grpc.sendMessage(fromJson(SendMessageRequestSchema, sendRequest("grpc")), {
        headers: { "A2A-Version": "1.0" },
      });
      expect(grpcAnswer.payload.case).toBe("task");
      expect(grpcAnswer.payload.case === "task" && grpcAnswer.payload.value.artifacts[0]?.parts[0]?.content.value).toBe("echo: grpc");

      // Every other rpc is served (none answers UNIMPLEMENTED).
      const calls: [string, string, unknown?][] = [
        ["POST", "/message:stream", sendRequest("stream")],
        ["GET", `/tasks/${task.id}`],
        ["GET", "/tasks"],
        ["POST", `/tasks/${task.id}:cancel`, {}],
        ["POST", `/tasks/${task.id}:subscribe`],
        ["POST", `/tasks/${task.id}/pushNotificationConfigs`, { url: "http://127.0.0.1/hook" }],
        ["GET", `/tasks/${task.id}/pushNotificationConfigs`],
        ["GET", `/tasks/${task.id}/pushNotificationConfigs/c1`],
        ["DELETE", `/tasks/${task.id}/pushNotificationConfigs/c1`],
        ["GET", "/extendedAgentCard"],
      ];
      const statuses: string[] = [];
      for (const [method, path, body] of calls) {
        const res = await fetch(url + path, {
          method,
          headers: body === undefined ? { "A2A-Version": "1.0" } : a2aHeaders,
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const text = await res.text();
        statuses.push(`${method} ${path.replace(task.id, "{id}")} ${res.status}`);
        expect(res.status, `${method} ${path}: ${text}`).not.toBe(501);
      }
      expect(statuses).toEqual([
        "POST /message:stream 200",
        "GET /tasks/{id} 200",
        "GET /tasks 200",
        "POST /tasks/{id}:cancel 400", // a COMPLETED task is not cancelable
        "POST /tasks/{id}:subscribe 400", // nor subscribable
        "POST /tasks/{id}/pushNotificationConfigs 200",
        "GET /tasks/{id}/pushNotificationConfigs 200",
        "GET /tasks/{id}/pushNotificationConfigs/c1 404",
        "DELETE /tasks/{id}/pushNotificationConfigs/c1 200",
        "GET /extendedAgentCard 400", // the card declares none
      ]);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 240_000);

  test("--force rewrites the scaffold's files, merges package.json and leaves the files you edit", async () => {
    const path = (f: string) => join(dir, f);
    const original = Object.fromEntries(
      ["src/executor.ts", "src/server.ts", "package.json"].map((f) => [f, readFileSync(path(f), "utf8")]),
    );
    // biome-ignore lint/suspicious/noTemplateCurlyInString: the executor's source text, a template literal in it
    const shout = original["src/executor.ts"]!.replace("`echo: ${text}`", "`ECHO: ${text.toUpperCase()}`");
    expect(shout).not.toBe(original["src/executor.ts"]);
    writeFileSync(path("src/executor.ts"), shout);
    writeFileSync(path("src/card.ts"), readFileSync(path("src/card.ts"), "utf8").replace("Echoes the text", "Shouts the text"));
    writeFileSync(path("README.md"), "# mine\n");
    writeFileSync(path("src/server.ts"), original["src/server.ts"] + "\n// a stray edit\n");
    const pkg = JSON.parse(original["package.json"]!) as { dependencies: Record<string, string>; scripts: Record<string, string> };
    pkg.dependencies["left-pad"] = "1.3.0";
    pkg.scripts["lint"] = "echo lint";
    delete pkg.scripts["test"];
    writeFileSync(path("package.json"), JSON.stringify(pkg, null, 2));

    await expect(scaffold(dir, "--framework", framework)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("pass --force to rewrite the scaffold's files"),
    });
    expect(readFileSync(path("src/server.ts"), "utf8")).toContain("// a stray edit");

    const { stdout } = await scaffold(dir, "--framework", framework, "--force");
    expect(stdout).toContain("package.json (merged into yours)");
    const leftList = stdout.slice(stdout.indexOf("left 7 files of yours as they were:"));
    for (const f of ["README.md", "Dockerfile", ".dockerignore", "src/executor.ts", "src/executor.test.ts", "src/card.ts", "src/client.ts"])
      expect(leftList).toContain(`  ${f}\n`);
    expect(readFileSync(path("src/executor.ts"), "utf8")).toBe(shout);
    expect(readFileSync(path("README.md"), "utf8")).toBe("# mine\n");
    expect(readFileSync(path("src/card.ts"), "utf8")).toContain("Shouts the text");
    expect(readFileSync(path("src/server.ts"), "utf8")).toBe(original["src/server.ts"]);
    const merged = JSON.parse(readFileSync(path("package.json"), "utf8")) as typeof pkg;
    expect(merged.dependencies["left-pad"]).toBe("1.3.0");
    expect(merged.scripts["lint"]).toBe("echo lint");
    expect(merged.scripts["test"]).toBe((JSON.parse(original["package.json"]!) as typeof pkg).scripts["test"]);

    // The agent runs the edited executor.
    const dotBin = join(dir, "node_modules", ".bin");
    await generateAndCheck(dir, dotBin);
    const server = await start(dir, dotBin);
    try {
      const task = await send(server.url, "hi");
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(task.artifacts?.[0]?.parts[0]?.text).toBe("ECHO: HI");
    } finally {
      await stop(server);
    }
  }, 120_000);
});

/** Runs src/main.ts with `env` until it prints where it listens (then stops it) or exits. */
async function runMain(dir: string, env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(join(dir, "node_modules", ".bin", "tsx"), ["src/main.ts"], {
    cwd: dir,
    env: { ...process.env, HOST: "127.0.0.1", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout!.on("data", (d: Buffer) => {
    stdout += d.toString();
    if (stdout.includes("listening on")) child.kill("SIGTERM");
  });
  child.stderr!.on("data", (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((ok) => child.once("exit", (c) => ok(c)));
  return { code, stdout, stderr };
}

/**
 * Holds a port on 127.0.0.1 whose predecessor was free a moment ago; resolves with both.
 * The pair is drawn below Linux's ephemeral range (32768 and up): there the
 * kernel hands odd ports to outgoing connections, so on a machine with many
 * open sockets the port after a free one is nearly always taken.
 */
async function holdPortAfterAFreeOne(): Promise<{ free: number; held: number; release: () => Promise<void> }> {
  const { createServer } = await import("node:net");
  const listen = (port: number) =>
    new Promise<import("node:net").Server | undefined>((ok) => {
      const s = createServer();
      s.once("error", () => ok(undefined));
      s.listen(port, "127.0.0.1", () => ok(s));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const free = 20_000 + 2 * Math.floor(Math.random() * 6_000);
    const probe = await listen(free);
    if (!probe) continue;
    await new Promise((ok) => probe.close(ok));
    const held = await listen(free + 1);
    if (held) return { free, held: free + 1, release: () => new Promise((ok) => held.close(() => ok())) };
  }
  throw new Error("found no free port pair");
}

describe("the scaffolded main.ts takes its ports from the environment when it starts", () => {
  const dir = join(tmp, "agent-express");

  test("gRPC defaults to the port after PORT; a port in use is one line naming it and its variable, exit 1", async () => {
    const { free, held, release } = await holdPortAfterAFreeOne();
    try {
      const grpcBusy = await runMain(dir, { PORT: String(free) });
      expect(grpcBusy.code).toBe(1);
      expect(grpcBusy.stderr).toBe(
        `agent-express: port ${held} (GRPC_PORT) is in use on 127.0.0.1: set GRPC_PORT to another port, 0 for any free one, or off for no gRPC\n`,
      );
      const httpBusy = await runMain(dir, { PORT: String(held), GRPC_PORT: "0" });
      expect(httpBusy.code).toBe(1);
      expect(httpBusy.stderr).toBe(
        `agent-express: port ${held} (PORT) is in use on 127.0.0.1: set PORT to another port, or 0 for any free one\n`,
      );
      // GRPC_PORT moves gRPC off the busy port.
      const moved = await runMain(dir, { PORT: String(free), GRPC_PORT: "0" });
      expect(moved.stderr).toBe("");
      expect(moved.stdout).toMatch(new RegExp(`listening on http://127\\.0\\.0\\.1:${free} .*gRPC on 127\\.0\\.0\\.1:\\d+\\)`));
      expect(moved.stdout).not.toContain(`:${held})`);
    } finally {
      await release();
    }
  }, 60_000);

  // The same template code on every framework: the HTTP listen of each (Express 5
  // hands the error to a callback, Fastify rejects, Hono's server emits it).
  test.each(["fastify", "hono"])(
    "on %s too, a PORT in use is that one line, exit 1",
    async (framework) => {
      const { held, release } = await holdPortAfterAFreeOne();
      try {
        expect(await runMain(join(tmp, `agent-${framework}`), { PORT: String(held), GRPC_PORT: "0" })).toEqual({
          code: 1,
          stdout: "",
          stderr: `agent-${framework}: port ${held} (PORT) is in use on 127.0.0.1: set PORT to another port, or 0 for any free one\n`,
        });
      } finally {
        await release();
      }
    },
    60_000,
  );

  test.each(["off", "-1"])(
    "GRPC_PORT=%s serves no gRPC, and the card lists two interfaces",
    async (off) => {
      const server = await startWith(dir, { PORT: "0", GRPC_PORT: off });
      try {
        const card = (await (await fetch(`${server.url}/.well-known/agent-card.json`)).json()) as {
          supportedInterfaces: { protocolBinding: string; protocolVersion: string }[];
        };
        expect(card.supportedInterfaces.filter((i) => i.protocolVersion === "1.0").map((i) => i.protocolBinding)).toEqual([
          "HTTP+JSON",
          "JSONRPC",
        ]);
        // Nor for v0.3 clients.
        expect(card.supportedInterfaces.map((i) => i.protocolBinding)).not.toContain("GRPC");
        expect((await send(server.url, "no grpc")).status.state).toBe("TASK_STATE_COMPLETED");
      } finally {
        expect(await stop(server)).toBe(0);
      }
    },
    60_000,
  );

  test("GRPC_MAX_STREAMS and GRPC_IDLE_MS bound the gRPC port; ALLOWED_HOSTS=any serves any Host", async () => {
    const server = await startWith(dir, { PORT: "0", GRPC_PORT: "0", GRPC_MAX_STREAMS: "7", GRPC_IDLE_MS: "400", ALLOWED_HOSTS: "any" });
    try {
      const card = (await (await fetch(server.url + "/.well-known/agent-card.json")).json()) as { supportedInterfaces: { url: string }[] };
      const session = http2.connect(`http://${card.supportedInterfaces[2]!.url}`);
      const settings = await new Promise<http2.Settings>((ok) => session.once("remoteSettings", ok));
      expect(settings.maxConcurrentStreams).toBe(7);
      // Nothing sent: the server closes the idle session after GRPC_IDLE_MS.
      await new Promise<void>((ok) => session.once("close", () => ok()));
      expect(await statusWithHost(server.url, "GET /.well-known/agent-card.json HTTP/1.1", "rebind.attacker.example")).toBe(200);
    } finally {
      expect(await stop(server)).toBe(0);
    }
  }, 60_000);

  test("LOG_FORMAT=json: each line it logs is one JSON object", async () => {
    const server = await startWith(dir, { PORT: "0", GRPC_PORT: "off", LOG_FORMAT: "json" });
    try {
      expect((await fetch(`${server.url}/readyz`)).status).toBe(200);
    } finally {
      expect(await stop(server)).toBe(0);
    }
    const lines = server.stdout().trim().split("\n");
    expect(lines.length).toBeGreaterThanOrEqual(2);
    for (const line of lines) expect(JSON.parse(line)).toMatchObject({ level: "info", time: expect.any(String), msg: expect.any(String) });
    expect(lines[0]).toContain("agent listening on");
  }, 60_000);

  test.each([
    [{ PORT: "abc" }, "PORT=abc is not a port: give a number from 0 (any free port) to 65535"],
    [{ PORT: "70000" }, "PORT=70000 is not a port"],
    [{ GRPC_PORT: "-2" }, "GRPC_PORT=-2 is not a port: give a number from 0 (any free port) to 65535, or off for no gRPC"],
    [{ PORT: "41999", GRPC_PORT: "41999" }, "PORT and GRPC_PORT are both 41999"],
    [{ GRPC_MAX_STREAMS: "0" }, "GRPC_MAX_STREAMS=0 is not a whole number of at least 1"],
    [{ GRPC_IDLE_MS: "5s" }, "GRPC_IDLE_MS=5s is not a whole number of at least 0"],
    [{ ALLOWED_HOSTS: "agent.example/x" }, 'ALLOWED_HOSTS=agent.example/x: allowedHosts: "agent.example/x" is not a host name'],
    // OpenTelemetry's environment (src/telemetry.ts): OTLP over gRPC is not shipped, and says what to use.
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4317", OTEL_EXPORTER_OTLP_PROTOCOL: "grpc" },
      "OTEL_EXPORTER_OTLP_PROTOCOL=grpc is not supported: set it to http/protobuf",
    ],
    [
      { OTEL_EXPORTER_OTLP_ENDPOINT: "http://127.0.0.1:4318", OTEL_TRACES_SAMPLER: "sometimes" },
      "OTEL_TRACES_SAMPLER=sometimes: give always_on",
    ],
  ])(
    "%j is refused in one line",
    async (env, message) => {
      const { code, stdout, stderr } = await runMain(dir, env);
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toContain(`agent-express: ${message}`);
      expect(stderr.trim().split("\n")).toHaveLength(1);
    },
    60_000,
  );
});

describe("scaffold input errors", () => {
  test.each([
    [["--framework", "koa"], /unknown framework "koa"; choose one of express, fastify, hono/],
    [["--port", "99999"], /--port must be a port number/],
    [["--service", "Nope"], /service "Nope" not found; a2a.proto has A2AService/],
  ])(
    "%j",
    async (args, message) => {
      await expect(scaffold(join(tmp, "bad"), ...args)).rejects.toMatchObject({ stderr: expect.stringMatching(message) });
      expect(existsSync(join(tmp, "bad", "package.json"))).toBe(false);
    },
    60_000,
  );
});

test("a service that is not A2A's gets handler stubs, which stop type-checking when the proto gains an rpc until the method is written", async () => {
  const dir = join(tmp, "library");
  const { stdout } = await run(process.execPath, [bin, "scaffold", dir, "--proto", libraryProto, "--framework", "hono"], { cwd: tmp });
  expect(stdout).toContain("src/handlers.ts");
  expect(existsSync(join(dir, "src", "executor.ts"))).toBe(false);
  // No A2A v0.3 for a service that is not A2A's.
  expect(existsSync(join(dir, "proto", "a2a-v0_3.proto"))).toBe(false);
  expect(readFileSync(join(dir, "buf.gen.yaml"), "utf8")).not.toContain("a2a.v1");
  expect(JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).scripts.test).toBeUndefined();
  const dotBin = linkNodeModules(dir);
  await generateAndCheck(dir, dotBin);

  const server = await start(dir, dotBin);
  try {
    const res = await fetch(`${server.url}/v1/shelves/1/books/2`);
    expect(res.status).toBe(501);
    expect(((await res.json()) as { error: { message: string } }).error.message).toMatch(/is not implemented yet$/);
    expect((await fetch(`${server.url}/.well-known/agent-card.json`)).status).toBe(200);
  } finally {
    expect(await stop(server)).toBe(0);
  }

  const protoPath = join(dir, "proto", "library.proto");
  const proto = readFileSync(protoPath, "utf8");
  const grown = proto.replace(
    /service LibraryService \{/,
    `service LibraryService {
  // Pings the library.
  rpc Ping(GetShelfRequest) returns (Shelf) {
    option (google.api.http) = { get: "/ping" };
  }`,
  );
  expect(grown).not.toBe(proto);
  writeFileSync(protoPath, grown);
  await expect(generateAndCheck(dir, dotBin)).rejects.toMatchObject({
    stdout: expect.stringMatching(/Property 'ping' is missing/),
  });
  // npm start runs without a type check: it names the rpc that has no handler.
  const started = await start(dir, dotBin);
  try {
    const ping = await fetch(`${started.url}/ping`);
    expect(ping.status).toBe(501);
    // Health without the engine: ready until close() begins.
    expect((await fetch(`${started.url}/readyz`)).status).toBe(200);
  } finally {
    expect(await stop(started)).toBe(0);
  }
  expect(started.stderr()).toBe(
    "library: warning: src/handlers.ts has no handler for Ping (ping); these answer UNIMPLEMENTED (501) until you add them (npm run typecheck names them too)\n",
  );

  const handlers = readFileSync(join(dir, "src", "handlers.ts"), "utf8");
  writeFileSync(
    join(dir, "src", "handlers.ts"),
    handlers.replace(/\n\};\n$/, `\n  async ping() {\n    return { shelf: "pong" };\n  },\n};\n`),
  );
  await generateAndCheck(dir, dotBin);
}, 240_000);

/** Starts src/main.ts with `env`; resolves once it printed its URL and its store line. */
function startWithStore(
  dir: string,
  env: Record<string, string>,
): Promise<{ url: string; store: string; child: ChildProcess; exited: Promise<number | null> }> {
  const child = spawn(join(dir, "node_modules", ".bin", "tsx"), ["src/main.ts"], {
    cwd: dir,
    env: { ...process.env, HOST: "127.0.0.1", PORT: "0", GRPC_PORT: "off", ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  const exited = new Promise<number | null>((ok) => child.once("exit", (code) => ok(code)));
  return new Promise((resolvePromise, reject) => {
    let out = "";
    const read = (d: Buffer) => {
      out += d.toString();
      const url = /listening on (http:\/\/[^\s]+)/.exec(out)?.[1];
      const store = /^store: (.*)$/m.exec(out)?.[1];
      if (url && store) resolvePromise({ url, store, child, exited });
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)));
  });
}

describe("the scaffolded agent's store comes from A2A_STORE", () => {
  const dir = join(tmp, "agent-express");

  test("unset: memory, and the agent says so when it starts", async () => {
    const server = await startWithStore(dir, {});
    expect(server.store).toBe("memory (tasks are lost when the agent stops)");
    expect(await stop(server)).toBe(0);
  }, 60_000);

  test("a directory: tasks outlive a restart of the agent", async () => {
    const data = join(tmp, "agent-data");
    const first = await startWithStore(dir, { A2A_STORE: data });
    let id = "";
    let answer: string | undefined;
    try {
      expect(first.store).toBe(`PGlite (embedded PostgreSQL) in ${data}`);
      const task = await send(first.url, "kept");
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      id = task.id;
      // The --force test left a shouting executor: whatever it answered must come back.
      answer = task.artifacts?.[0]?.parts[0]?.text;
      expect(answer).toMatch(/^(echo|ECHO): (kept|KEPT)$/);
    } finally {
      expect(await stop(first)).toBe(0);
    }
    const second = await startWithStore(dir, { A2A_STORE: data });
    try {
      const res = await fetch(`${second.url}/tasks/${id}`, { headers: { "A2A-Version": "1.0" } });
      expect(res.status).toBe(200);
      const task = (await res.json()) as TaskJson;
      expect(task.status.state).toBe("TASK_STATE_COMPLETED");
      expect(task.artifacts?.[0]?.parts[0]?.text).toBe(answer);
    } finally {
      expect(await stop(second)).toBe(0);
    }
  }, 120_000);

  test.each([
    [
      { A2A_STORE: "mysql://u:p@db/a2a" },
      "agent-express: A2A_STORE: unknown store mysql://…: use memory, a directory, or a postgres:// URL",
    ],
    [
      { A2A_STORE: "postgres://agent:s3cret@127.0.0.1:1/a2a" },
      "agent-express: A2A_STORE: cannot connect to postgres://agent:***@127.0.0.1:1/a2a: connect ECONNREFUSED 127.0.0.1:1",
    ],
    [{ A2A_MIGRATE: "yes" }, "agent-express: A2A_MIGRATE=yes: give 1 to apply the store's schema migrations at start, or 0"],
  ])(
    "%j stops it with one line",
    async (env, message) => {
      const { code, stdout, stderr } = await runMain(dir, { PORT: "0", GRPC_PORT: "off", ...env });
      expect(code).toBe(1);
      expect(stdout).toBe("");
      expect(stderr).toBe(`${message}\n`);
    },
    60_000,
  );

  const url = process.env["DATABASE_URL"];
  if (!url && process.env["CI"] === "true") {
    test("PostgreSQL: DATABASE_URL must be set under CI=true", () => expect.fail("DATABASE_URL is not set: CI runs the PostgreSQL tests"));
  } else if (!url) {
    test.skip("PostgreSQL: skipped, DATABASE_URL is not set (scripts/pg-cluster.sh start DIR prints one)", () => {});
  } else {
    test("PostgreSQL: a new database is refused with what to run, and A2A_MIGRATE=1 migrates it at start", async () => {
      const db = await createScratchDatabase(url, "a2a_scaffold");
      try {
        const store = db.url;
        const refused = await runMain(dir, { PORT: "0", GRPC_PORT: "off", A2A_STORE: store });
        expect(refused.code).toBe(1);
        expect(refused.stderr).toBe(
          `agent-express: A2A_STORE: ${store} holds a2a-http schema version 0, this a2a-http needs ${SCHEMA_VERSION}: ` +
            `run \`npx a2a-http migrate --url ${store}\`, or set A2A_MIGRATE=1\n`,
        );
        const server = await startWithStore(dir, { A2A_STORE: store, A2A_MIGRATE: "1" });
        try {
          expect(server.store).toBe(`PostgreSQL at ${store}`);
          expect((await send(server.url, "pg")).status.state).toBe("TASK_STATE_COMPLETED");
        } finally {
          expect(await stop(server)).toBe(0);
        }
      } finally {
        await db.drop();
      }
    }, 120_000);
  }
});
