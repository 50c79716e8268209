import type { DescFile } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import { createRequire } from "node:module";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { openApiDocument } from "./openapi.js";

/** A file of the response that is not TypeScript. */
export interface ExtraFile {
  readonly name: string;
  readonly content: string;
}

/** `<file>_http.openapi.json` and/or `.yaml`, as the `openapi` option asks. */
export function openApiFiles(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): ExtraFile[] {
  const doc = openApiDocument(file, schema.allFiles, services, schema.options);
  const base = `${file.name}_http.openapi`;
  return schema.options.openapi.map((format) =>
    format === "json"
      ? { name: `${base}.json`, content: JSON.stringify(doc, null, 2) + "\n" }
      : { name: `${base}.yaml`, content: toYaml(doc) },
  );
}

function toYaml(doc: unknown): string {
  // Loaded only when asked for: most runs write JSON.
  const yaml = createRequire(import.meta.url)("yaml") as typeof import("yaml");
  // No anchors: a schema object used twice is written out twice, as in the JSON.
  return yaml.stringify(doc, { aliasDuplicateObjects: false, lineWidth: 0 });
}
