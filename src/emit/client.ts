import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";

/** `<file>_http_client.ts`: `create<Service>Client`. */
export function emitClientFile(
  _schema: Schema<PluginOptions>,
  _file: DescFile,
  _services: readonly ServiceRoutes[],
): void {
  // Placeholder: the client issue fills this in.
}
