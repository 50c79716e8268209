import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { adapterOptionsExpression } from "./adapter-options.js";
import { createDescImports, runtimeModules } from "./imports.js";
import { lowerFirstWord } from "./names.js";

/**
 * `<file>_http_connect.ts` (option `connect=true`): for each service,
 * `<service>Connect(handlers, options?)`, the routes function that
 * connect-es server adapters take, serving the same handler object over
 * gRPC, gRPC-Web and Connect through the runtime's `connectServiceImpl`.
 */
export function emitConnectFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  const f = schema.generateFile(file.name + "_http_connect.ts");
  f.preamble(file);
  const runtime = runtimeModules(schema.options.runtimeImport).connect;
  const imports = createDescImports(f);
  const ConnectRouter = f.import("ConnectRouter", "@connectrpc/connect", true);
  const connectServiceImpl = f.import("connectServiceImpl", runtime);
  const Options = f.import("ConnectServiceOptions", runtime, true);
  const HandlerContext = f.import("HandlerContext", schema.options.runtimeImport, true);
  for (const { service } of services) {
    const Routes = f.import(service.name + "Routes", `./${file.name}_http.js`);
    const Handlers = f.import(service.name + "Handlers", `./${file.name}_http.js`, true);
    const Service = imports.schema(service);
    const name = lowerFirstWord(service.name) + "Connect";
    f.print("/**");
    f.print(` * Serves ${service.typeName} over gRPC, gRPC-Web and Connect with the same handlers:`);
    f.print(` * \`http2.createServer(connectNodeAdapter({ routes: ${name}(handlers) }))\`.`);
    f.print(" * Errors go out as gRPC status with their google.rpc details (ErrorInfo first).");
    f.print(" */");
    f.print(f.export("function", name), "<Ctx extends ", HandlerContext, " = ", HandlerContext, ">(");
    f.print("  handlers: Partial<", Handlers, "<Ctx>>,");
    f.print("  options: ", Options, "<Ctx> = {},");
    f.print("): (router: ", ConnectRouter, ") => void {");
    f.print(
      "  const impl = ",
      connectServiceImpl,
      "(",
      Service,
      ", ",
      Routes,
      ", handlers, ",
      adapterOptionsExpression(f, schema, file, "options"),
      ");",
    );
    f.print("  return (router) => {");
    f.print("    router.service(", Service, ", impl);");
    f.print("  };");
    f.print("}");
    f.print();
  }
}
