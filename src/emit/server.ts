import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";

/** `<file>_http_{express,fastify,hono}.ts`, for the frameworks in `schema.options.servers`. */
export function emitServerFiles(
  _schema: Schema<PluginOptions>,
  _file: DescFile,
  _services: readonly ServiceRoutes[],
): void {
  // Placeholder: the server adapters issue fills this in.
}
