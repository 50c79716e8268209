import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { createDescImports } from "./imports.js";
import { lowerFirstWord } from "./names.js";

/**
 * `<file>_http_stub.ts`: for each service, `<service>Stub`, a handlers object
 * whose every method throws UNIMPLEMENTED (HTTP 501) naming the rpc. Users
 * copy it to start a server.
 */
export function emitStubFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  const f = schema.generateFile(file.name + "_http_stub.ts");
  f.preamble(file);
  const runtime = schema.options.runtimeImport;
  const RpcError = f.import("RpcError", runtime);
  const Code = f.import("Code", runtime);
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
      f.print(f.jsDoc(rpc, "  "));
      f.print("  ", rpc.localName, "(_request: ", Req, "): never {");
      f.print("    throw new ", RpcError, "(", Code, ".UNIMPLEMENTED, ", f.string(`rpc ${service.typeName}.${rpc.name} is not implemented`), ");");
      f.print("  },");
    }
    f.print("};");
    f.print();
  }
}
