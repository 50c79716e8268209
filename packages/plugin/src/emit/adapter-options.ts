import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { PluginOptions } from "../options.js";
import { literal } from "./names.js";

/**
 * Packages of A2A protos that predate v1.0: their clients send no
 * `A2A-Version` (read as 0.3), so their servers accept 0.3 by default.
 */
const legacyA2APackages: ReadonlyMap<string, readonly string[]> = new Map([["a2a.v1", ["0.3"]]]);

/** The options the generated code fixes: the profile, and legacy versions. */
function profileOptions(schema: Schema<PluginOptions>, file: DescFile): { defaults: string; fixed: string } {
  if (schema.options.profile !== "a2a") return { defaults: "", fixed: "" };
  const legacy = legacyA2APackages.get(file.proto.package);
  return {
    defaults: legacy ? literal({ a2aVersions: legacy }).slice(2, -2) : "",
    fixed: `profile: "a2a"`,
  };
}

/**
 * The options object every generated server adapter (HTTP+JSON, JSON-RPC,
 * gRPC) passes to the runtime: the profile's defaults, then the user's
 * options (`from`, the name of a variable in the generated code), then the
 * profile itself, which the user cannot turn off.
 */
export function adapterOptionsExpression(schema: Schema<PluginOptions>, file: DescFile, from: string): string {
  const { defaults, fixed } = profileOptions(schema, file);
  const parts = [defaults, `...${from}`, fixed].filter((p) => p !== "");
  return parts.length === 1 ? from : `{ ${parts.join(", ")} }`;
}
