// google.protobuf.Any in a lean client's messages: its JSON names a type
// ("@type") whose fields only a registry of descriptors can read, so this one
// type is protobuf-es's, with the registry the caller passes in the client's
// options (`registry`), exactly as the reflective client reads and writes it.
// The generated tables import it only for messages that have an Any, so only
// their bundles hold protobuf-es's reflection.
import { create, fromJson, toJson, type Registry } from "@bufbuild/protobuf";
import { AnySchema } from "@bufbuild/protobuf/wkt";
import type { LeanOptions, LeanWkt } from "./lean-json.js";

const registryOf = (options: LeanOptions | undefined) => options?.registry as Registry | undefined;

/** google.protobuf.Any: `{"@type": ..., ...}`, read and written by protobuf-es with the client's `registry`. */
export const leanAny: LeanWkt = {
  typeName: AnySchema.typeName,
  read: (v, _depth, _where, options) => {
    const registry = registryOf(options);
    return fromJson(AnySchema, v as never, registry ? { ignoreUnknownFields: true, registry } : { ignoreUnknownFields: true });
  },
  write: (v, _depth, _where, options) => {
    const registry = registryOf(options);
    return toJson(AnySchema, create(AnySchema, v as never), registry ? { registry } : undefined);
  },
};
