import { execFile, spawn, type ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { promisify } from "node:util";
import { afterAll, describe, expect, test } from "vitest";

const run = promisify(execFile);
const root = resolve(import.meta.dirname, "..", "..");
const bin = join(root, "packages", "plugin", "bin", "protoc-gen-a2a-http.js");
const a2aProto = join(root, "..", "shared", "proto", "a2a.proto");
const tmp = mkdtempSync(join(tmpdir(), "a2a-http-scaffold-test-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/**
 * Gives a scaffolded project this repository's installed packages (the
 * workspace links a2a-http and protoc-gen-a2a-http among them), so the test
 * needs no registry. test/package packs and installs them for real.
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

async function generateAndCheck(dir: string, dotBin: string) {
  const env = { ...process.env, PATH: `${dotBin}:${process.env["PATH"]}` };
  await run(join(dotBin, "buf"), ["generate"], { cwd: dir, env });
  await run(process.execPath, [join(root, "node_modules", "typescript", "bin", "tsc"), "--noEmit", "-p", dir], { cwd: dir, env });
}

/** Starts the scaffolded server on a free port and resolves with its base URL. */
function start(dir: string, dotBin: string): Promise<{ url: string; child: ChildProcess }> {
  const child = spawn(join(dotBin, "tsx"), ["src/server.ts"], {
    cwd: dir,
    env: { ...process.env, PORT: "0", GRPC_PORT: "0", HOST: "127.0.0.1" },
    stdio: ["ignore", "pipe", "pipe"],
  });
  return new Promise((resolvePromise, reject) => {
    let out = "";
    let err = "";
    child.stdout!.on("data", (d: Buffer) => {
      out += d.toString();
      const m = /listening on (http:\/\/[^\s]+)/.exec(out);
      if (m) resolvePromise({ url: m[1]!, child });
    });
    child.stderr!.on("data", (d: Buffer) => (err += d.toString()));
    child.on("exit", (code) => reject(new Error(`server exited with ${code}: ${err}`)));
  });
}

const a2aCalls: [string, string, unknown?][] = [
  ["POST", "/message:send", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } }],
  ["POST", "/message:stream", { message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "hi" }] } }],
  ["GET", "/tasks/t1"],
  ["GET", "/tasks"],
  ["POST", "/tasks/t1:cancel", {}],
  ["POST", "/tasks/t1:subscribe"],
  ["POST", "/tasks/t1/pushNotificationConfigs", { url: "http://127.0.0.1/hook" }],
  ["GET", "/tasks/t1/pushNotificationConfigs/c1"],
  ["GET", "/tasks/t1/pushNotificationConfigs"],
  ["DELETE", "/tasks/t1/pushNotificationConfigs/c1"],
  ["GET", "/extendedAgentCard"],
];

describe.each(["express", "fastify", "hono"])("scaffold --framework %s", (framework) => {
  const dir = join(tmp, `agent-${framework}`);

  test("writes a project that generates, type-checks, and answers every operation with 501", async () => {
    const { stdout } = await scaffold(dir, "--framework", framework);
    expect(stdout).toContain("src/handlers.ts");
    const dotBin = linkNodeModules(dir);
    await generateAndCheck(dir, dotBin);
    const { url, child } = await start(dir, dotBin);
    try {
      for (const [method, path, body] of a2aCalls) {
        const res = await fetch(url + path, {
          method,
          headers: { "A2A-Version": "1.0", ...(body === undefined ? {} : { "Content-Type": "application/json" }) },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
        const json = (await res.json()) as { error: { status: string; message: string } };
        expect(res.status, `${method} ${path}`).toBe(501);
        expect(json.error.status).toBe("UNIMPLEMENTED");
        expect(json.error.message).toMatch(/is not implemented yet$/);
      }
      const card = await fetch(url + "/.well-known/agent-card.json");
      expect(card.status).toBe(200);
    } finally {
      child.kill("SIGTERM");
    }
  }, 180_000);

  test("refuses to overwrite the project unless told to", async () => {
    const before = readFileSync(join(dir, "src", "handlers.ts"), "utf8");
    writeFileSync(join(dir, "src", "handlers.ts"), before + "\n// mine\n");
    await expect(scaffold(dir, "--framework", framework)).rejects.toMatchObject({
      code: 1,
      stderr: expect.stringContaining("pass --force to overwrite"),
    });
    expect(readFileSync(join(dir, "src", "handlers.ts"), "utf8")).toContain("// mine");
    await scaffold(dir, "--framework", framework, "--force");
    expect(readFileSync(join(dir, "src", "handlers.ts"), "utf8")).toBe(before);
  }, 60_000);
});

describe("scaffold input errors", () => {
  test.each([
    [["--framework", "koa"], /unknown framework "koa"; choose one of express, fastify, hono/],
    [["--port", "99999"], /--port must be a port number/],
    [["--service", "Nope"], /service "Nope" not found; a2a.proto has A2AService/],
  ])("%j", async (args, message) => {
    await expect(scaffold(join(tmp, "bad"), ...args)).rejects.toMatchObject({ stderr: expect.stringMatching(message) });
    expect(existsSync(join(tmp, "bad", "package.json"))).toBe(false);
  }, 60_000);
});

test("a proto that gains an rpc makes the handlers stop type-checking until the method is written", async () => {
  const dir = join(tmp, "regen");
  await scaffold(dir, "--framework", "hono");
  const dotBin = linkNodeModules(dir);
  await generateAndCheck(dir, dotBin);

  const protoPath = join(dir, "proto", "a2a.proto");
  const proto = readFileSync(protoPath, "utf8");
  const grown = proto.replace(
    /service A2AService \{/,
    `service A2AService {
  // Pings the agent.
  rpc Ping(GetExtendedAgentCardRequest) returns (AgentCard) {
    option (google.api.http) = { get: "/ping" };
  }`,
  );
  expect(grown).not.toBe(proto);
  writeFileSync(protoPath, grown);
  await expect(generateAndCheck(dir, dotBin)).rejects.toMatchObject({
    stdout: expect.stringMatching(/Property 'ping' is missing/),
  });

  const handlers = readFileSync(join(dir, "src", "handlers.ts"), "utf8");
  writeFileSync(
    join(dir, "src", "handlers.ts"),
    handlers.replace(
      /\n\};\n$/,
      `\n  async ping() {\n    return { name: "pong", description: "", version: "1" };\n  },\n};\n`,
    ),
  );
  await generateAndCheck(dir, dotBin);
}, 240_000);

test("a scaffolded project pins the versions this repository builds and tests with", async () => {
  const { scaffoldVersions } = await import("../../packages/plugin/src/scaffold/versions.js");
  const dev = (JSON.parse(readFileSync(join(root, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies;
  const names: Record<keyof typeof scaffoldVersions, string> = {
    protobuf: "@bufbuild/protobuf",
    protocGenEs: "@bufbuild/protoc-gen-es",
    buf: "@bufbuild/buf",
    connect: "@connectrpc/connect",
    express: "express",
    typesExpress: "@types/express",
    fastify: "fastify",
    hono: "hono",
    honoNodeServer: "@hono/node-server",
    typesNode: "@types/node",
    tsx: "tsx",
    typescript: "typescript",
  };
  for (const [key, name] of Object.entries(names)) expect(scaffoldVersions[key as keyof typeof names], name).toBe(dev[name]);
});
