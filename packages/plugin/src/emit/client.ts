import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { createDescImports, runtimeModules } from "./imports.js";
import { literal } from "./names.js";
import { docComment } from "./jsdoc.js";

/**
 * Packages of A2A protos that predate v1.0: their servers tell the legacy
 * dialect by the `A2A-Version` header, so the client sends 0.3 there.
 */
const legacyA2APackages: ReadonlyMap<string, string> = new Map([["a2a.v1", "0.3"]]);

/**
 * `<file>_http_client.ts`: for each service, the `<Service>Client` interface
 * (one method per rpc that has a binding) and `create<Service>Client(options)`,
 * a thin typed wrapper over the runtime's `createRouteClient` and the
 * `<Service>Routes` table of `<file>_http.ts`.
 */
export function emitClientFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  const f = schema.generateFile(file.name + "_http_client.ts");
  f.preamble(file);
  const runtime = runtimeModules(schema.options.runtimeImport).client;
  const createRouteClient = f.import("createRouteClient", runtime);
  const ClientOptions = f.import("ClientOptions", runtime, true);
  const CallOptions = f.import("CallOptions", runtime, true);
  const MessageInitShape = f.import("MessageInitShape", "@bufbuild/protobuf", true);
  const imports = createDescImports(f);
  const profile: Record<string, string> = {};
  if (schema.options.profile === "a2a") {
    profile["profile"] = "a2a";
    const legacy = legacyA2APackages.get(file.proto.package);
    if (legacy !== undefined) profile["a2aVersion"] = legacy;
  }
  for (const { service, rpcs } of services) {
    const Routes = f.import(service.name + "Routes", `./${file.name}_http.js`);
    const clientName = service.name + "Client";
    f.print(docComment(f, service));
    f.print(f.export("interface", clientName), " {");
    for (const rpc of rpcs) {
      const ReqSchema = imports.typeSchema(rpc.input);
      const Res = imports.shape(rpc.output);
      f.print(docComment(f, rpc, "  "));
      const result = rpc.methodKind === "server_streaming" ? "AsyncIterable" : "Promise";
      f.print("  ", rpc.localName, "(request: ", MessageInitShape, "<typeof ", ReqSchema, ">, options?: ", CallOptions, "): ", result, "<", Res, ">;");
    }
    f.print("}");
    f.print();
    f.print("/**");
    f.print(` * A fetch client for ${service.typeName}: each method picks the rpc's binding`);
    f.print(" * that fits the request, and throws RpcError for an error answer.");
    f.print(" */");
    f.print(f.export("function", "create" + clientName), "(options: ", ClientOptions, "): ", clientName, " {");
    const extra = Object.keys(profile).length > 0 ? ", " + literal(profile) : "";
    f.print("  return ", createRouteClient, "<", clientName, ">(", Routes, ", options", extra, ");");
    f.print("}");
    f.print();
  }
}
