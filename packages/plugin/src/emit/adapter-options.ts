import type { DescFile } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable, Schema } from "@bufbuild/protoplugin";
import { A2A_LEGACY_PACKAGE_VERSIONS } from "a2a-http/profile";
import type { PluginOptions } from "../options.js";
import { runtimeModules } from "./imports.js";

/**
 * The options object every generated server adapter (HTTP+JSON, JSON-RPC,
 * gRPC) passes to the runtime: the profile's defaults, then the user's
 * options (`from`, the name of a variable in the generated code), then the
 * profile itself, which the user cannot turn off.
 *
 * The one default is the versions a legacy A2A package's servers accept
 * (their clients send no `A2A-Version`); the generated code asks the
 * runtime's `a2aVersionsOfPackage` for them rather than holding a copy.
 */
export function adapterOptionsExpression(f: GeneratedFile, schema: Schema<PluginOptions>, file: DescFile, from: string): Printable {
  if (schema.options.profile !== "a2a") return from;
  const pkg = file.proto.package;
  const defaults: Printable[] = [];
  if (A2A_LEGACY_PACKAGE_VERSIONS.has(pkg)) {
    const versionsOf = f.import("a2aVersionsOfPackage", runtimeModules(schema.options.runtimeImport).root);
    defaults.push("a2aVersions: ", versionsOf, "(", f.string(pkg), "), ");
  }
  return ["{ ", ...defaults, "...", from, ', profile: "a2a" }'];
}
