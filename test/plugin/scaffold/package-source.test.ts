// Where a scaffolded project takes a2a-http and protoc-gen-a2a-http from.
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, expect, test } from "vitest";
import { packageSpecs } from "../../../packages/plugin/src/scaffold/package-source.js";
import { version } from "../../../packages/plugin/src/version.js";

const tmp = mkdtempSync(join(tmpdir(), "a2a-http-source-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** A project that installed the plugin, with its hidden lockfile saying from where. */
function installedProject(name: string, resolved: { plugin?: string; runtime?: string }): string {
  const project = join(tmp, name);
  const pluginRoot = join(project, "node_modules", "protoc-gen-a2a-http");
  mkdirSync(pluginRoot, { recursive: true });
  const entry = (r: string | undefined) => (r === undefined ? { version } : { version, resolved: r });
  writeFileSync(
    join(project, "node_modules", ".package-lock.json"),
    JSON.stringify({
      packages: { "node_modules/protoc-gen-a2a-http": entry(resolved.plugin), "node_modules/a2a-http": entry(resolved.runtime) },
    }),
  );
  return pluginRoot;
}

test("installed from a registry: the caret range of this version", () => {
  const root = installedProject("registry", {
    plugin: `https://registry.npmjs.org/protoc-gen-a2a-http/-/protoc-gen-a2a-http-${version}.tgz`,
    runtime: `https://registry.npmjs.org/a2a-http/-/a2a-http-${version}.tgz`,
  });
  expect(packageSpecs(root, undefined)).toEqual({ runtime: `^${version}`, plugin: `^${version}`, source: "registry" });
});

test("installed from tarballs: the same tarballs, as absolute paths", () => {
  const root = installedProject("tarballs", { plugin: "file:../t/p.tgz", runtime: "file:../t/r.tgz" });
  expect(packageSpecs(root, undefined)).toEqual({
    runtime: `file:${resolve(tmp, "t", "r.tgz")}`,
    plugin: `file:${resolve(tmp, "t", "p.tgz")}`,
    source: "tarballs",
  });
});

test("a checkout of the repository: its workspace folders", () => {
  const root = resolve(import.meta.dirname, "..", "..", "..", "packages", "plugin");
  expect(packageSpecs(root, undefined)).toEqual({
    runtime: `file:${resolve(root, "..", "runtime")}`,
    plugin: `file:${root}`,
    source: "folders",
  });
});

test("--from: a folder with both tarballs of this version, or a clear error", () => {
  const dir = join(tmp, "packed");
  mkdirSync(dir);
  writeFileSync(join(dir, `protoc-gen-a2a-http-${version}.tgz`), "");
  expect(() => packageSpecs("/nowhere", dir)).toThrow(`--from ${dir} has no a2a-http-${version}.tgz; make them with`);
  writeFileSync(join(dir, `a2a-http-${version}.tgz`), "");
  expect(packageSpecs("/nowhere", dir).source).toBe("tarballs");
});
