import { readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { create, fromBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  FileDescriptorSetSchema,
  type CodeGeneratorRequest,
  type CodeGeneratorResponse,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import { plugin } from "../../../packages/plugin/src/plugin.js";

export const root = join(dirname(fileURLToPath(import.meta.url)), "..", "..", "..");
export const fixtures = join(root, "test", "fixtures");

const sets = new Map<string, FileDescriptorSet>();

/** A committed FileDescriptorSet from test/fixtures (see build.sh). */
export function fixtureSet(name: "valid" | "invalid"): FileDescriptorSet {
  let set = sets.get(name);
  if (!set) {
    set = fromBinary(FileDescriptorSetSchema, readFileSync(join(fixtures, `${name}.binpb`)));
    sets.set(name, set);
  }
  return set;
}

/** A CodeGeneratorRequest for some files of a fixture set, as buf would send it. */
export function request(set: "valid" | "invalid", files: readonly string[], parameter: string): CodeGeneratorRequest {
  const fds = fixtureSet(set);
  for (const f of files) {
    if (!fds.file.some((p) => p.name === f)) throw new Error(`fixture ${set} has no ${f}; run test/fixtures/build.sh`);
  }
  return create(CodeGeneratorRequestSchema, {
    fileToGenerate: [...files],
    protoFile: fds.file,
    parameter,
    compilerVersion: { major: 5, minor: 29, patch: 0 },
  });
}

/** Runs this plugin in-process. */
export function runPlugin(req: CodeGeneratorRequest): CodeGeneratorResponse {
  return plugin.run(req);
}

/** The message of what `fn` throws (fails the test when it does not throw). */
export function thrown(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    return e instanceof Error ? e.message : String(e);
  }
  throw new Error("expected an error, but nothing was thrown");
}
