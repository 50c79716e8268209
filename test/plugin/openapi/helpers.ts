import { Ajv2020, type ValidateFunction } from "ajv/dist/2020.js";
import addFormats from "ajv-formats";
import { request, runPlugin } from "../core/helpers.js";

const common = "target=ts,import_extension=js,elide_plugin_version=true";

/** The protos whose documents are snapshot-tested and validated. */
export const openApiCases = [
  { name: "a2a", files: ["a2a.proto"], parameter: `${common},profile=a2a` },
  { name: "a2a-v0_3", files: ["a2a-v0_3.proto"], parameter: `${common},profile=a2a` },
  { name: "library", files: ["acme/library/v1/library.proto"], parameter: common },
  { name: "edge", files: ["acme/edge/v1/edge.proto"], parameter: common },
] as const;

export type Doc = Record<string, any>;

/** The OpenAPI files the plugin writes for `files` with `openapi=...` added to `parameter`. */
export function openApiFilesOf(files: readonly string[], parameter: string, formats = "openapi=true") {
  const res = runPlugin(request("valid", files, `${parameter},${formats}`));
  if (res.error) throw new Error(res.error);
  return res.file.filter((f) => f.name.includes(".openapi."));
}

export function openApiDoc(files: readonly string[], parameter: string): Doc {
  const [f] = openApiFilesOf(files, parameter);
  if (!f) throw new Error(`no OpenAPI document for ${files.join(", ")}`);
  return JSON.parse(f.content) as Doc;
}

/**
 * Validators (ajv, JSON Schema 2020-12) of the document's component schemas.
 * With `closed`, every object component with properties also refuses the
 * properties it does not list: an answer must carry no field the document
 * leaves out.
 */
export function componentValidators(doc: Doc, closed = false) {
  const components = structuredClone(doc["components"]) as Doc;
  if (closed) {
    for (const [name, s] of Object.entries(components["schemas"] as Record<string, Doc>)) {
      // An Any carries the fields of the message it holds beside "@type".
      if (s["properties"] !== undefined && name !== "google.protobuf.Any") s["unevaluatedProperties"] = false;
    }
  }
  const ajv = new Ajv2020({ strict: false, allErrors: true });
  (addFormats as unknown as (a: Ajv2020) => void)(ajv);
  const id = "https://openapi.test/doc.json";
  ajv.addSchema({ $id: id, components });
  const cache = new Map<string, ValidateFunction>();
  let inline = 0;
  /** Validates `value` against the schema at a JSON pointer into the document (`#/components/schemas/X`), or against an inline schema. */
  return (schema: string | Doc, value: unknown): string[] => {
    let v: ValidateFunction | undefined;
    if (typeof schema === "string") {
      v = cache.get(schema) ?? ajv.getSchema(`${id}${schema}`);
      if (!v) throw new Error(`no schema at ${schema}`);
      cache.set(schema, v);
    } else {
      // An inline schema from the document: its $refs point into the components.
      v = ajv.compile({ $id: `https://openapi.test/inline-${inline++}.json`, ...rebase(schema, id) });
    }
    return v(value) ? [] : (v.errors ?? []).map((e) => `${e.instancePath || "/"} ${e.message} ${JSON.stringify(e.params)}`);
  };
}

function rebase(schema: Doc, id: string): Doc {
  return JSON.parse(JSON.stringify(schema, (k, v) => (k === "$ref" && typeof v === "string" && v.startsWith("#/") ? id + v : v)));
}
