import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";

/** `<file>_http_stub.ts`: a handlers object whose every method answers UNIMPLEMENTED. */
export function emitStubFile(
  _schema: Schema<PluginOptions>,
  _file: DescFile,
  _services: readonly ServiceRoutes[],
): void {
  // Placeholder: the server adapters issue fills this in.
}
