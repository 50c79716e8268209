// Services and rpcs without a google.api.http rule: never left out in silence.
import { execFileSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create, fromBinary } from "@bufbuild/protobuf";
import { CodeGeneratorRequestSchema, FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { afterAll, afterEach, beforeEach, expect, test } from "vitest";
import { diagnostics } from "../../../packages/plugin/src/plugin.js";
import { root, runPlugin, thrown } from "./helpers.js";

const proto = `syntax = "proto3";
package acme.mixed.v1;
import "google/api/annotations.proto";
message Req { string name = 1; }
message Res { string name = 1; }
// Half bound: Get has a rule, Put has none.
service HalfService {
  rpc Get(Req) returns (Res) { option (google.api.http) = { get: "/v1/{name}" }; }
  rpc Put(Req) returns (Res);
}
// No rule at all.
service BareService {
  rpc Ping(Req) returns (Res);
  rpc Pong(Req) returns (Res);
}
`;

const tmp = mkdtempSync(join(tmpdir(), "a2a-http-unbound-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** Compiles `proto` with buf beside the google/api protos the plugin ships. */
function compiled() {
  mkdirSync(join(tmp, "google"), { recursive: true });
  cpSync(join(root, "packages", "plugin", "proto", "google", "api"), join(tmp, "google", "api"), { recursive: true });
  writeFileSync(join(tmp, "mixed.proto"), proto);
  const buf = join(root, "node_modules", ".bin", "buf");
  const image = execFileSync(buf, ["build", tmp, "--path", join(tmp, "mixed.proto"), "--as-file-descriptor-set", "-o", "-#format=binpb"]);
  return fromBinary(FileDescriptorSetSchema, image);
}

const request = (parameter: string) =>
  create(CodeGeneratorRequestSchema, { fileToGenerate: ["mixed.proto"], protoFile: compiled().file, parameter });

let warnings: string[] = [];
const saved = diagnostics.warn;
beforeEach(() => {
  warnings = [];
  diagnostics.warn = (line) => void warnings.push(line);
});
afterEach(() => {
  diagnostics.warn = saved;
});

const line = (rpc: string, service: string) =>
  `mixed.proto: acme.mixed.v1.${service}.${rpc} has no google.api.http rule, so it is left out of the routes, servers and client; ` +
  `bind it with option (google.api.http) = { post: "/v1/${service}/${rpc}" body: "*" }; (import "google/api/annotations.proto")`;

test("each rpc without a rule is named in a warning that says how to bind it; the bound ones are generated", () => {
  const response = runPlugin(request("target=ts"));
  expect(response.error ?? "").toBe("");
  expect(warnings).toEqual([
    `protoc-gen-a2a-http: warning: ${line("Put", "HalfService")}`,
    `protoc-gen-a2a-http: warning: ${line("Ping", "BareService")}`,
    `protoc-gen-a2a-http: warning: ${line("Pong", "BareService")}`,
  ]);
  const routes = response.file.find((f) => f.name === "mixed_http.ts")!.content;
  expect(routes).toContain("HalfServiceRoutes");
  expect(routes).not.toContain("BareService");
  expect(routes).not.toMatch(/\bput\(/);
});

test("the suggested rule is one the plugin takes", () => {
  const bound = proto.replace(
    "rpc Put(Req) returns (Res);",
    'rpc Put(Req) returns (Res) { option (google.api.http) = { post: "/v1/HalfService/Put" body: "*" }; }',
  );
  expect(bound).not.toBe(proto);
  writeFileSync(join(tmp, "mixed.proto"), bound);
  const image = execFileSync(join(root, "node_modules", ".bin", "buf"), [
    "build",
    tmp,
    "--path",
    join(tmp, "mixed.proto"),
    "--as-file-descriptor-set",
    "-o",
    "-#format=binpb",
  ]);
  const response = runPlugin(
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["mixed.proto"],
      protoFile: fromBinary(FileDescriptorSetSchema, image).file,
      parameter: "target=ts",
    }),
  );
  expect(response.error ?? "").toBe("");
  expect(warnings.some((w) => w.includes("HalfService.Put"))).toBe(false);
  expect(response.file.find((f) => f.name === "mixed_http.ts")!.content).toContain('"/v1/HalfService/Put"');
});

test("under profile=a2a an rpc of A2AService without a rule is an error; another service's is a warning", () => {
  const a2a = proto.replaceAll("HalfService", "A2AService");
  writeFileSync(join(tmp, "mixed.proto"), a2a);
  const image = execFileSync(join(root, "node_modules", ".bin", "buf"), [
    "build",
    tmp,
    "--path",
    join(tmp, "mixed.proto"),
    "--as-file-descriptor-set",
    "-o",
    "-#format=binpb",
  ]);
  const req = (parameter: string) =>
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["mixed.proto"],
      protoFile: fromBinary(FileDescriptorSetSchema, image).file,
      parameter,
    });
  expect(thrown(() => runPlugin(req("target=ts,profile=a2a")))).toBe(`profile=a2a: ${line("Put", "A2AService")}`);
  expect(runPlugin(request("target=ts,profile=a2a")).error ?? "").toBe("");
  expect(warnings.filter((w) => w.includes("HalfService.Put"))).toHaveLength(1);
});

test("under profile=a2a a file whose services have no rule at all is an error; a service without rules beside bound ones is a warning", () => {
  const only = (keep: string) =>
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["mixed.proto"],
      protoFile: compiled().file.map((f) => (f.name === "mixed.proto" ? { ...f, service: f.service.filter((s) => s.name === keep) } : f)),
      parameter: "target=ts,profile=a2a",
    });
  expect(thrown(() => runPlugin(only("BareService")))).toBe(`profile=a2a: ${line("Ping", "BareService")}`);

  const bound = proto.replace("rpc Put(Req) returns (Res);", "");
  writeFileSync(join(tmp, "mixed.proto"), bound);
  const image = execFileSync(join(root, "node_modules", ".bin", "buf"), [
    "build",
    tmp,
    "--path",
    join(tmp, "mixed.proto"),
    "--as-file-descriptor-set",
    "-o",
    "-#format=binpb",
  ]);
  const response = runPlugin(
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["mixed.proto"],
      protoFile: fromBinary(FileDescriptorSetSchema, image).file,
      parameter: "target=ts,profile=a2a",
    }),
  );
  expect(response.error ?? "").toBe("");
  expect(warnings).toEqual([
    `protoc-gen-a2a-http: warning: ${line("Ping", "BareService")}`,
    `protoc-gen-a2a-http: warning: ${line("Pong", "BareService")}`,
  ]);
});
