import type { DescFile } from "@bufbuild/protobuf";
import type { Printable, Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { createDescImports } from "./imports.js";
import { lowerFirstWord } from "./names.js";
import { docComment } from "./jsdoc.js";

/**
 * `<file>_http_stub.ts`: for each service, `<service>Stub`, a handlers object
 * whose every method throws UNIMPLEMENTED (HTTP 501) naming the rpc (with an
 * A2A ErrorInfo under profile=a2a). Users copy it to start a server.
 */
export function emitStubFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  const f = schema.generateFile(file.name + "_http_stub.ts");
  f.preamble(file);
  const runtime = schema.options.runtimeImport;
  // Under the A2A profile the answer carries an ErrorInfo (UNSUPPORTED_OPERATION), which A2A clients map.
  const a2a = schema.options.profile === "a2a";
  const unimplemented = a2a
    ? (method: string, message: Printable) => [f.import("A2AErrors", runtime), ".notImplemented(", f.string(method), ", ", message, ")"]
    : (_method: string, message: Printable) => [
        "new ",
        f.import("RpcError", runtime),
        "(",
        f.import("Code", runtime),
        ".UNIMPLEMENTED, ",
        message,
        ")",
      ];
  const imports = createDescImports(f);
  for (const { service, rpcs } of services) {
    const Handlers = f.import(service.name + "Handlers", `./${file.name}_http.js`, true);
    f.print("/**");
    f.print(` * ${service.typeName} with every method answering UNIMPLEMENTED (501):`);
    f.print(" * copy it and fill the methods in.");
    f.print(" */");
    f.print(f.export("const", lowerFirstWord(service.name) + "Stub"), ": ", Handlers, " = {");
    for (const rpc of rpcs) {
      const Req = imports.shape(rpc.input);
      f.print(docComment(f, rpc, "  "));
      f.print("  ", rpc.localName, "(_request: ", Req, "): never {");
      const method = `${service.typeName}.${rpc.name}`;
      f.print("    throw ", unimplemented(method, f.string(`rpc ${method} is not implemented`)), ";");
      f.print("  },");
    }
    f.print("};");
    f.print();
  }
}
