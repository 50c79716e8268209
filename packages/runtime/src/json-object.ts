// Whether a parsed JSON value is an object (not null, not an array): the one
// test every reader of untrusted JSON (answers, error bodies, v0.3's bodies)
// makes before it looks at a key.
import type { JsonObject } from "@bufbuild/protobuf";

/** Whether `v` is a JSON object: not null, not an array. */
export const isJsonObject = (v: unknown): v is JsonObject => typeof v === "object" && v !== null && !Array.isArray(v);
