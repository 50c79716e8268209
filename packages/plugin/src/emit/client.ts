import type { DescFile, DescMethod, DescService } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable, Schema } from "@bufbuild/protoplugin";
import { A2A_LEGACY_PACKAGE_VERSIONS } from "a2a-http/profile";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { createDescImports, runtimeModules, type DescImports } from "./imports.js";
import { docComment } from "./jsdoc.js";

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
  const imports = createDescImports(f);
  const profile = clientProfile(f, schema, file);
  for (const { service, rpcs } of services) {
    const Routes = f.import(service.name + "Routes", `./${file.name}_http.js`);
    const clientName = service.name + "Client";
    printClientInterface(f, imports, service, rpcs, CallOptions);
    f.print("/**");
    f.print(` * A fetch client for ${service.typeName}: each method picks the rpc's binding`);
    f.print(" * that fits the request, and throws RpcError for an error answer.");
    f.print(" */");
    f.print(f.export("function", "create" + clientName), "(options: ", ClientOptions, "): ", clientName, " {");
    f.print("  return ", createRouteClient, "<", clientName, ">(", Routes, ", options", profile, ");");
    f.print("}");
    f.print();
  }
}

/** The `<Service>Client` interface: one method per rpc, requests as init shapes, answers as messages. */
export function printClientInterface(
  f: GeneratedFile,
  imports: DescImports,
  service: DescService,
  rpcs: readonly DescMethod[],
  CallOptions: Printable,
): void {
  const MessageInitShape = f.import("MessageInitShape", "@bufbuild/protobuf", true);
  f.print(docComment(f, service));
  f.print(f.export("interface", service.name + "Client"), " {");
  for (const rpc of rpcs) {
    const ReqSchema = imports.typeSchema(rpc.input);
    const Res = imports.shape(rpc.output);
    f.print(docComment(f, rpc, "  "));
    const result = rpc.methodKind === "server_streaming" ? "AsyncIterable" : "Promise";
    f.print(
      "  ",
      rpc.localName,
      "(request: ",
      MessageInitShape,
      "<typeof ",
      ReqSchema,
      ">, options?: ",
      CallOptions,
      "): ",
      result,
      "<",
      Res,
      ">;",
    );
  }
  f.print("}");
  f.print();
}

/**
 * The profile argument of `createRouteClient` (with its leading comma), empty
 * without a profile. A legacy A2A package's servers tell its dialect by the
 * `A2A-Version` header, so its client sends the package's version, which the
 * generated code asks the runtime's `a2aVersionsOfPackage` for.
 */
export function clientProfile(f: GeneratedFile, schema: Schema<PluginOptions>, file: DescFile): Printable {
  if (schema.options.profile !== "a2a") return "";
  const pkg = file.proto.package;
  if (!A2A_LEGACY_PACKAGE_VERSIONS.has(pkg)) return ', { profile: "a2a" }';
  const versionsOf = f.import("a2aVersionsOfPackage", runtimeModules(schema.options.runtimeImport).root);
  return [', { profile: "a2a", a2aVersion: ', versionsOf, "(", f.string(pkg), ")[0] }"];
}
