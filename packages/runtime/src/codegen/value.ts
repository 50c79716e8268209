// google.protobuf.Value (A2A's data parts): any JSON value, held by protobuf-es
// as a Value message whose structValue and listValue are Struct and ListValue
// messages (inside a Value, a Struct is a message, not a JsonObject).
import type { JsonValue } from "@bufbuild/protobuf";
import type { ListValue, Struct, Value } from "@bufbuild/protobuf/wkt";
import { giveUp, type Obj } from "./give-up.js";

/** Deeper JSON goes to protobuf-es, whose recursion limit (100) counts every level. */
const MAX_VALUE_DEPTH = 32;

export function readValue(json: unknown, depth: number): Value {
  if (depth > MAX_VALUE_DEPTH) giveUp();
  switch (typeof json) {
    case "number":
      return { $typeName: "google.protobuf.Value", kind: { case: "numberValue", value: json } };
    case "string":
      return { $typeName: "google.protobuf.Value", kind: { case: "stringValue", value: json } };
    case "boolean":
      return { $typeName: "google.protobuf.Value", kind: { case: "boolValue", value: json } };
    case "object": {
      if (json === null) return { $typeName: "google.protobuf.Value", kind: { case: "nullValue", value: 0 } };
      if (Array.isArray(json)) {
        const list: ListValue = { $typeName: "google.protobuf.ListValue", values: [] };
        for (const item of json) list.values.push(readValue(item, depth + 1));
        return { $typeName: "google.protobuf.Value", kind: { case: "listValue", value: list } };
      }
      const struct: Struct = { $typeName: "google.protobuf.Struct", fields: {} };
      for (const k of Object.keys(json)) {
        // protobuf-es copies keys by assignment; `__proto__` is its to handle.
        if (k === "__proto__") giveUp();
        struct.fields[k] = readValue((json as Obj)[k], depth + 1);
      }
      return { $typeName: "google.protobuf.Value", kind: { case: "structValue", value: struct } };
    }
    default:
      return giveUp();
  }
}

export function writeValue(value: unknown): JsonValue {
  if ((value as Obj | null)?.["$typeName"] !== "google.protobuf.Value") giveUp();
  const kind = (value as { kind?: { case?: unknown; value?: unknown } }).kind;
  if (kind === null || typeof kind !== "object") giveUp();
  const v = kind!.value;
  switch (kind!.case) {
    case "nullValue":
      return null;
    case "numberValue":
      return typeof v === "number" && Number.isFinite(v) ? v : giveUp();
    case "stringValue":
      return typeof v === "string" ? v : giveUp();
    case "boolValue":
      return typeof v === "boolean" ? v : giveUp();
    case "structValue": {
      if ((v as Obj | null)?.["$typeName"] !== "google.protobuf.Struct") giveUp();
      const fields = (v as Struct).fields;
      if (fields === null || typeof fields !== "object") giveUp();
      const out: Record<string, JsonValue> = {};
      for (const k of Object.keys(fields)) {
        if (k === "__proto__") giveUp();
        out[k] = writeValue(fields[k]);
      }
      return out;
    }
    case "listValue": {
      if ((v as Obj | null)?.["$typeName"] !== "google.protobuf.ListValue") giveUp();
      const values = (v as ListValue).values;
      if (!Array.isArray(values)) giveUp();
      return values.map(writeValue);
    }
    default:
      // No kind: protobuf-es's error ("must have a value").
      return giveUp();
  }
}
