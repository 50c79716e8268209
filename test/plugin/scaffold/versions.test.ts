// What a scaffolded project pins (packages/plugin/src/scaffold/versions.ts):
// the versions this repository builds and tests with, @types/node and the
// Docker image of the Node.js line the scaffold runs on, and npm's
// allowScripts for the packages whose install scripts it does not need.
// In-process and fast (test:unit runs it, on every pinned Node too);
// scaffold.test.ts and test/e2e install and run what it writes.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { scaffold } from "../../../packages/plugin/src/scaffold/scaffold.js";
import { nodeLineFor, nodeLines, scaffoldVersions } from "../../../packages/plugin/src/scaffold/versions.js";
import { telemetryInstallCommand, telemetryPackages } from "../../../packages/plugin/templates/scaffold/telemetry.js";

const root = resolve(import.meta.dirname, "..", "..", "..");
const a2aProto = join(root, "..", "shared", "proto", "a2a.proto");
const tmp = mkdtempSync(join(tmpdir(), "a2a-http-scaffold-versions-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const json = (path: string) => JSON.parse(readFileSync(path, "utf8")) as Record<string, Record<string, string>>;
const repo = json(join(root, "package.json"));
const plugin = json(join(root, "packages", "plugin", "package.json"));
/** The Node.js majors `npm run toolchains` runs on (test/e2e/toolchains/package.json), oldest first. */
const pinnedMajors = Object.values(json(join(root, "test", "e2e", "toolchains", "package.json"))["optionalDependencies"]!)
  .map((spec) => Number(/@(\d+)\.\d+\.\d+$/.exec(spec)![1]))
  .sort((a, b) => a - b);
const major = (version: string) => Number(version.split(".")[0]);

test("a scaffolded project pins the versions this repository builds and tests with", () => {
  const dev = repo["devDependencies"]!;
  // protobuf-es and buf: the plugin's own dependencies, which the repository's match.
  expect(scaffoldVersions.protobuf).toBe(plugin["dependencies"]!["@bufbuild/protobuf"]);
  expect(scaffoldVersions.buf).toBe(plugin["dependencies"]!["@bufbuild/buf"]);
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
    tsx: "tsx",
    typescript: "typescript-7",
  };
  for (const [key, name] of Object.entries(names)) {
    expect(scaffoldVersions[key as keyof typeof names], name).toBe(dev[name]!.replace(/^npm:typescript@/, ""));
  }
  // OpenTelemetry's SDK (what src/telemetry.ts tells a project to install): the versions example/telemetry.ts runs with here.
  for (const [name, version] of Object.entries(telemetryPackages)) expect(version, name).toBe(dev[name]);
  // TypeScript 7, the native compiler: what test/e2e/typescript checks generated code and the runtime with.
  expect(major(scaffoldVersions.typescript)).toBe(7);
});

test("@types/node: one entry per Node.js line that npm run toolchains runs the scaffold on, each of its own major", () => {
  expect(pinnedMajors).toEqual([22, 24, 26]);
  expect(Object.keys(nodeLines).map(Number)).toEqual(pinnedMajors);
  for (const [line, types] of Object.entries(nodeLines)) expect(major(types), `@types/node for Node ${line}`).toBe(Number(line));
});

test("the Node.js line of a project: the running Node's major when supported, else the newest below it, else the oldest", () => {
  expect(nodeLineFor("22.12.0")).toEqual({ major: 22, typesNode: nodeLines[22] });
  expect(nodeLineFor("v24.22.3")).toEqual({ major: 24, typesNode: nodeLines[24] });
  expect(nodeLineFor("26.12.1")).toEqual({ major: 26, typesNode: nodeLines[26] });
  expect(nodeLineFor("25.1.0").major).toBe(24);
  expect(nodeLineFor("27.0.0").major).toBe(26);
  expect(nodeLineFor("30.2.1").major).toBe(26);
  // Node 20 (past its end of life, below the packages' engines): the oldest supported line.
  expect(nodeLineFor("20.20.2").major).toBe(22);
});

test("the scaffold writes them: the pins, @types/node and node:<major>-slim of the Node it runs on, and allowScripts", () => {
  const dir = join(tmp, "agent");
  scaffold({ dir, framework: "express", proto: a2aProto });
  const pkg = json(join(dir, "package.json"));
  const running = major(process.versions.node);
  const { major: line } = nodeLineFor(process.versions.node);
  // On each pinned Node (npm run toolchains runs this file there), that Node's own major.
  if (pinnedMajors.includes(running)) expect(line).toBe(running);
  expect(pkg["devDependencies"]!["@types/node"]).toBe(nodeLines[line]);
  expect(major(pkg["devDependencies"]!["@types/node"]!)).toBe(line);
  const from = readFileSync(join(dir, "Dockerfile"), "utf8").match(/^FROM .*$/gm);
  expect(from).toEqual([`FROM node:${line}-slim AS build`, `FROM node:${line}-slim`]);
  expect(pkg["dependencies"]).toMatchObject({ "@bufbuild/protobuf": scaffoldVersions.protobuf, express: scaffoldVersions.express });
  expect(pkg["devDependencies"]).toMatchObject({
    "@bufbuild/buf": scaffoldVersions.buf,
    "@bufbuild/protoc-gen-es": scaffoldVersions.protocGenEs,
    "@types/express": scaffoldVersions.typesExpress,
    tsx: scaffoldVersions.tsx,
    typescript: scaffoldVersions.typescript,
  });
  // npm 11 warns of install scripts that allowScripts does not cover, npm 12 skips them: neither is
  // needed (buf's checks its platform package, esbuild's, through tsx, swaps its JS launcher for the
  // binary), so they are denied; test/e2e/package installs without the warning and runs the agent.
  expect(pkg["allowScripts"]).toEqual({ "@bufbuild/buf": false, esbuild: false });
});

test("--force merges allowScripts: your approvals and denials stay, the scaffold's fill in the rest", () => {
  const dir = join(tmp, "merged");
  scaffold({ dir, framework: "hono", proto: a2aProto });
  const path = join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(path, "utf8")) as Record<string, unknown>;
  pkg["allowScripts"] = { esbuild: true, "sharp@0.34.5": true };
  writeFileSync(path, JSON.stringify(pkg));
  scaffold({ dir, framework: "hono", proto: a2aProto, force: true });
  expect(json(path)["allowScripts"]).toEqual({ "@bufbuild/buf": false, esbuild: true, "sharp@0.34.5": true });
});

test("OpenTelemetry's SDK is not in the project's package.json: src/telemetry.ts names it, versions and all, when the environment asks for it", () => {
  const dir = join(tmp, "otel");
  scaffold({ dir, framework: "hono", proto: a2aProto });
  const pkg = json(join(dir, "package.json"));
  // Not even optional: a plain `npm ci --omit=dev` (the Dockerfile's) must leave it out.
  expect(pkg["optionalDependencies"]).toBeUndefined();
  for (const section of ["dependencies", "devDependencies", "peerDependencies"]) {
    expect(
      Object.keys(pkg[section] ?? {}).filter((name) => name.startsWith("@opentelemetry/")),
      section,
    ).toEqual([]);
  }
  // Every package the file imports, each at its pinned version, exactly.
  const imported = [...readFileSync(join(dir, "src", "telemetry.ts"), "utf8").matchAll(/import\("(@opentelemetry\/[^"]+)"\)/g)].map(
    (m) => m[1],
  );
  expect([...new Set(imported)].sort()).toEqual(Object.keys(telemetryPackages).sort());
  const [flag, ...specs] = telemetryInstallCommand.split(" ").slice(2);
  expect(telemetryInstallCommand).toMatch(/^npm install /);
  expect(flag).toBe("--save-exact");
  const at = (spec: string) => spec.lastIndexOf("@");
  expect(Object.fromEntries(specs.map((spec) => [spec.slice(0, at(spec)), spec.slice(at(spec) + 1)]))).toEqual(telemetryPackages);
  expect(readFileSync(join(dir, "src", "telemetry.ts"), "utf8")).toBe(
    readFileSync(join(root, "packages", "plugin", "templates", "scaffold", "telemetry.ts"), "utf8"),
  );
  // Without them the project still type-checks: they are modules of type any until installed.
  expect(readFileSync(join(dir, "src", "opentelemetry.d.ts"), "utf8")).toMatch(/^declare module "@opentelemetry\/\*";$/m);
});
