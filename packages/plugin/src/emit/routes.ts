import type { DescFile, DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, Schema } from "@bufbuild/protoplugin";
import type { HttpBinding } from "../httprule/bindings.js";
import { describeConflict, type ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { createDescImports, runtimeModules, type DescImports } from "./imports.js";
import type { CodecNames } from "./json-codec.js";
import { literal } from "./names.js";
import { docComment } from "./jsdoc.js";

/**
 * `<file>_http.ts`: first each service's `<Service>Handlers<Ctx>` interface,
 * what a user implements and so what a reader of the file looks for, then
 * each service's `<Service>Routes` table, which the adapters and the client
 * read.
 */
export function emitRoutesFile(
  schema: Schema<PluginOptions>,
  file: DescFile,
  services: readonly ServiceRoutes[],
  codecs: CodecNames,
): void {
  const f = schema.generateFile(file.name + "_http.ts");
  const codec = (m: DescMessage) => {
    const name = codecs.get(m);
    return name === undefined ? undefined : f.import(name, `./${file.name}_http_json.js`);
  };
  f.preamble(file);
  const runtime = runtimeModules(schema.options.runtimeImport);
  const RouteBinding = f.import("RouteBinding", runtime.codegen, true);
  const HandlerContext = f.import("HandlerContext", runtime.root, true);
  const MessageInitShape = f.import("MessageInitShape", "@bufbuild/protobuf", true);
  const imports = createDescImports(f);
  for (const { service, rpcs } of services) {
    f.print(docComment(f, service));
    f.print(f.export("interface", service.name + "Handlers"), "<Ctx = ", HandlerContext, "> {");
    for (const rpc of rpcs) {
      const Req = imports.shape(rpc.input);
      const Res = imports.typeSchema(rpc.output);
      f.print(docComment(f, rpc, "  "));
      if (rpc.methodKind === "server_streaming") {
        f.print("  ", rpc.localName, "(request: ", Req, ", context: Ctx): AsyncIterable<", MessageInitShape, "<typeof ", Res, ">>;");
      } else {
        f.print(
          "  ",
          rpc.localName,
          "(request: ",
          Req,
          ", context: Ctx): ",
          MessageInitShape,
          "<typeof ",
          Res,
          "> | Promise<",
          MessageInitShape,
          "<typeof ",
          Res,
          ">>;",
        );
      }
    }
    f.print("}");
    f.print();
  }
  for (const routes of services) {
    const { service, bindings, conflicts } = routes;
    const Service = imports.schema(service);
    f.print("/**");
    f.print(` * The HTTP bindings of ${service.typeName}: each rpc's rule, then its`);
    f.print(" * additional_bindings, in proto order.");
    if (conflicts.length > 0) {
      f.print(" *");
      f.print(" * Templates that overlap (at each segment a literal beats `*`, which beats `**`):");
      for (const c of conflicts) f.print(` * - ${describeConflict(routes, c).replaceAll("*/", "*\\/")}`);
    }
    f.print(" */");
    f.print(f.export("const", service.name + "Routes"), " = [");
    for (const b of bindings) printBinding(f, imports, Service, b, codec);
    f.print("] as const satisfies readonly ", RouteBinding, "[];");
    f.print();
  }
}

type ImportSymbol = ReturnType<GeneratedFile["importSchema"]>;

function printBinding(
  f: GeneratedFile,
  imports: DescImports,
  Service: ImportSymbol,
  b: HttpBinding,
  codec: (m: DescMessage) => ImportSymbol | undefined,
): void {
  const { rpc, path } = b;
  const parsed = { template: path.template, segments: path.segments, verb: path.verb, variables: path.variables };
  f.print("  {");
  f.print("    rpc: ", f.string(rpc.localName), ",");
  f.print("    descriptor: ", Service, ".method.", rpc.localName, ",");
  f.print("    method: ", f.string(b.method), ",");
  f.print("    template: ", f.string(path.template), ",");
  f.print("    path: ", literal(parsed), ",");
  f.print("    body: ", f.string(b.body), ",");
  f.print("    responseBody: ", f.string(b.responseBody), ",");
  f.print("    streaming: ", f.string(rpc.methodKind === "server_streaming" ? "server" : "unary"), ",");
  f.print("    input: ", imports.schema(rpc.input), ",");
  f.print("    output: ", imports.schema(rpc.output), ",");
  f.print("    binding: ", f.string(b.additional ? "additional" : "primary"), ",");
  const input = codec(rpc.input);
  const output = codec(rpc.output);
  if (input || output) {
    f.print("    json: { ", ...(input ? ["input: ", input, output ? ", " : ""] : []), ...(output ? ["output: ", output] : []), " },");
  }
  f.print("  },");
}
