// The command line runs the generator from one bundled module
// (scripts/bundle-plugin.mjs, built by `npm run build`): it must answer
// byte for byte as the modules it bundles do, and the command line must pick
// it only while it is current.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { request, root } from "./helpers.js";

const binDir = join(root, "packages", "plugin", "dist", "bin");

/** Runs a module of dist/bin as protoc would: the request on stdin. */
function run(module: string, bytes: Uint8Array, args: string[] = []) {
  const r = spawnSync(process.execPath, [...args, join(binDir, module)], { input: bytes, maxBuffer: 1 << 26 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString() };
}

test("the bundle answers as the modules do: every file kind, transpiled, OpenAPI in YAML, and an option error", () => {
  expect(existsSync(join(binDir, "generate.bundle.js")), "run npm run build").toBe(true);
  for (const parameter of [
    "target=ts+js,import_extension=js,profile=a2a,connect=true,openapi=yaml,openapi=json",
    "target=ts,same_shape=warn,conflicts=comment",
    "target=ts,profle=a2a",
  ]) {
    const bytes = toBinary(CodeGeneratorRequestSchema, request("valid", ["a2a.proto", "acme/edge/v1/edge.proto"], parameter));
    const modules = run("generate.js", bytes);
    const bundle = run("generate.bundle.js", bytes);
    expect(bundle.status, parameter).toBe(modules.status);
    expect(bundle.stderr, parameter).toBe(modules.stderr);
    expect(Buffer.compare(bundle.stdout, modules.stdout), parameter).toBe(0);
  }
}, 60_000);

test("the command line runs the bundle: it loads no protoplugin module of its own", () => {
  const bytes = toBinary(CodeGeneratorRequestSchema, request("valid", ["a2a.proto"], "target=ts"));
  // NODE_DEBUG=module traces CommonJS loads: the modules load protoplugin that way (protoplugin.ts), the bundle holds it.
  const r = spawnSync(process.execPath, [join(root, "packages", "plugin", "bin", "protoc-gen-a2a-http.js")], {
    input: bytes,
    env: { ...process.env, NODE_DEBUG: "module" },
    maxBuffer: 1 << 26,
  });
  expect(r.status).toBe(0);
  const stderr = r.stderr.toString();
  expect(stderr, "the bundle is older than the build: run npm run build").not.toContain("@bufbuild/protoplugin");
  // The same trace shows the modules' way.
  const modules = spawnSync(process.execPath, [join(binDir, "generate.js")], {
    input: bytes,
    env: { ...process.env, NODE_DEBUG: "module" },
  });
  expect(modules.stderr.toString()).toContain("@bufbuild/protoplugin");
});
