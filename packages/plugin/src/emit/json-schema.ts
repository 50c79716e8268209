// JSON Schema 2020-12 of messages in their ProtoJSON form, as OpenAPI 3.1
// components. Each message and enum becomes one component named by its full
// proto name; the well-known types that ProtoJSON writes as something other
// than an object (Timestamp as a string, Value as any JSON...) get that form.
import { ScalarType, type DescEnum, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import { fieldBehaviorReader, type FieldBehaviors } from "./field-behavior.js";
import { commentsOf, type Commented } from "./file-cache.js";
import { withoutInternalComments } from "./jsdoc.js";

/** A JSON Schema (or an OpenAPI object): plain JSON data. */
export type JsonObject = { [key: string]: JsonValue };
export type JsonValue = string | number | boolean | null | JsonValue[] | JsonObject;

export const componentRef = (name: string): JsonObject => ({ $ref: `#/components/schemas/${name}` });

// A field's comment is asked for by its schema and again by its query or path parameter.
const descriptions = new WeakMap<Commented, string | null>();

/** The comment of a declaration, for a `description`: leading, else trailing, without AIP internal blocks. */
export function descriptionOf(desc: Commented): string | undefined {
  let d = descriptions.get(desc);
  if (d === undefined) {
    d = readDescription(desc) ?? null;
    descriptions.set(desc, d);
  }
  return d ?? undefined;
}

function readDescription(desc: Commented): string | undefined {
  const c = commentsOf(desc);
  const raw = c.leading ?? c.trailing;
  if (raw === undefined) return undefined;
  const text = withoutInternalComments(
    raw
      .split("\n")
      .map((l) => (l.startsWith(" ") ? l.slice(1) : l).trimEnd())
      .join("\n"),
  ).trim();
  return text === "" ? undefined : text;
}

const int64Pattern = "^-?[0-9]+$";
const uint64Pattern = "^[0-9]+$";
const durationPattern = "^-?[0-9]+(\\.[0-9]{1,9})?s$";

/** ProtoJSON of a scalar: 64-bit integers as decimal strings, floats may be "NaN"/"Infinity"/"-Infinity", bytes as base64. */
export function scalarSchema(type: ScalarType): JsonObject {
  switch (type) {
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.BOOL:
      return { type: "boolean" };
    case ScalarType.BYTES:
      return { type: "string", contentEncoding: "base64" };
    case ScalarType.INT32:
    case ScalarType.SINT32:
    case ScalarType.SFIXED32:
      return { type: "integer", format: "int32" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
      return { type: "integer", minimum: 0, maximum: 4294967295 };
    case ScalarType.INT64:
    case ScalarType.SINT64:
    case ScalarType.SFIXED64:
      return { type: "string", format: "int64", pattern: int64Pattern };
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { type: "string", pattern: uint64Pattern };
    case ScalarType.FLOAT:
    case ScalarType.DOUBLE:
      return {
        oneOf: [
          { type: "number", format: type === ScalarType.FLOAT ? "float" : "double" },
          { type: "string", enum: ["NaN", "Infinity", "-Infinity"] },
        ],
      };
  }
}

const wrappers: Record<string, ScalarType> = {
  "google.protobuf.DoubleValue": ScalarType.DOUBLE,
  "google.protobuf.FloatValue": ScalarType.FLOAT,
  "google.protobuf.Int64Value": ScalarType.INT64,
  "google.protobuf.UInt64Value": ScalarType.UINT64,
  "google.protobuf.Int32Value": ScalarType.INT32,
  "google.protobuf.UInt32Value": ScalarType.UINT32,
  "google.protobuf.BoolValue": ScalarType.BOOL,
  "google.protobuf.StringValue": ScalarType.STRING,
  "google.protobuf.BytesValue": ScalarType.BYTES,
};

/** The ProtoJSON form of the well-known types that are not written as plain objects. */
export function wellKnownSchema(typeName: string): JsonObject | undefined {
  switch (typeName) {
    case "google.protobuf.Timestamp":
      return { type: "string", format: "date-time", description: "RFC 3339, always UTC (`Z`), with 0, 3, 6 or 9 fractional digits." };
    case "google.protobuf.Duration":
      return {
        type: "string",
        pattern: durationPattern,
        description: 'Seconds with up to 9 fractional digits and the suffix `s`, e.g. `"1.5s"`.',
      };
    case "google.protobuf.FieldMask":
      return { type: "string", description: 'Comma-separated field paths in lowerCamelCase, e.g. `"user.displayName,photo"`.' };
    case "google.protobuf.Struct":
      return { type: "object", description: "Any JSON object." };
    case "google.protobuf.Value":
      return { description: "Any JSON value." };
    case "google.protobuf.ListValue":
      return { type: "array", description: "Any JSON array." };
    case "google.protobuf.Any":
      return {
        type: "object",
        description:
          "A message of any type: `@type` names it, the other properties are its fields (or `value`, for a type with a special JSON form).",
        properties: { "@type": { type: "string", description: "type.googleapis.com/<full message name>" } },
        required: ["@type"],
      };
    case "google.protobuf.Empty":
      return { type: "object", description: "An empty message: `{}`." };
  }
  const w = wrappers[typeName];
  return w === undefined ? undefined : { ...scalarSchema(w), description: `A ${typeName.slice(16)}: the wrapped value itself.` };
}

/**
 * Collects the components of the messages and enums it is asked about, and of
 * everything those reference. `requireFields` says whether REQUIRED fields go
 * in `required`.
 */
export class SchemaSet {
  private readonly schemas = new Map<string, JsonObject>();
  /** What google.api.field_behavior says of a field. */
  readonly behaviors: (field: DescField) => FieldBehaviors;

  constructor(files: readonly DescFile[]) {
    this.behaviors = fieldBehaviorReader(files);
  }

  /** `{ $ref }` to the component of a message, adding it (and what it references) first. */
  message(desc: DescMessage): JsonObject {
    this.addMessage(desc);
    return componentRef(desc.typeName);
  }

  /** A message's component with some top-level fields left out (those a path binds), under `name`. */
  messageWithout(desc: DescMessage, leaveOut: ReadonlySet<string>, name: string): JsonObject {
    if (!this.schemas.has(name)) {
      const full = this.build(desc, leaveOut);
      this.schemas.set(name, full);
    }
    return componentRef(name);
  }

  /** The schema of one field's value (a list's array, a map's object). */
  field(field: DescField): JsonObject {
    switch (field.fieldKind) {
      case "scalar":
        return scalarSchema(field.scalar);
      case "enum":
        return this.enumRef(field.enum);
      case "message":
        return this.message(field.message);
      case "list":
        return { type: "array", items: this.element(field) };
      case "map": {
        const value =
          field.mapKind === "scalar"
            ? scalarSchema(field.scalar)
            : field.mapKind === "enum"
              ? this.enumRef(field.enum)
              : this.message(field.message);
        return { type: "object", propertyNames: mapKeySchema(field.mapKey), additionalProperties: value };
      }
    }
  }

  /** The schema of one element of a list field, or of a singular field. */
  element(field: DescField): JsonObject {
    if (field.fieldKind === "list") {
      if (field.listKind === "scalar") return scalarSchema(field.scalar);
      if (field.listKind === "enum") return this.enumRef(field.enum);
      return this.message(field.message);
    }
    return this.field(field);
  }

  /** All components, sorted by name. */
  components(): JsonObject {
    const out: JsonObject = {};
    for (const name of [...this.schemas.keys()].sort()) out[name] = this.schemas.get(name)!;
    return out;
  }

  /** Adds a component of its own making (google.rpc.Status, for example). */
  add(name: string, schema: JsonObject): JsonObject {
    this.schemas.set(name, schema);
    return componentRef(name);
  }

  private enumRef(desc: DescEnum): JsonObject {
    if (desc.typeName === "google.protobuf.NullValue") return { type: "null" };
    if (!this.schemas.has(desc.typeName)) {
      const schema: JsonObject = { type: "string", enum: desc.values.map((v) => v.name) };
      const d = descriptionOf(desc);
      this.schemas.set(desc.typeName, d === undefined ? schema : { description: d, ...schema });
    }
    return componentRef(desc.typeName);
  }

  private addMessage(desc: DescMessage): void {
    if (this.schemas.has(desc.typeName)) return;
    const wkt = wellKnownSchema(desc.typeName);
    if (wkt) {
      this.schemas.set(desc.typeName, wkt);
      return;
    }
    // Set before the fields are visited, so a recursive message refers to itself.
    const schema: JsonObject = {};
    this.schemas.set(desc.typeName, schema);
    Object.assign(schema, this.build(desc, new Set()));
  }

  private build(desc: DescMessage, leaveOut: ReadonlySet<string>): JsonObject {
    const properties: JsonObject = {};
    const required: string[] = [];
    const fields = desc.fields.filter((f) => !leaveOut.has(f.name));
    for (const f of fields) {
      let s = this.field(f);
      const d = descriptionOf(f);
      const b = this.behaviors(f);
      if (d !== undefined || b.outputOnly || b.inputOnly) {
        s = {
          ...s,
          ...(d === undefined ? {} : { description: d }),
          ...(b.outputOnly ? { readOnly: true } : {}),
          ...(b.inputOnly ? { writeOnly: true } : {}),
        };
      }
      properties[f.jsonName] = s;
      if (b.required) required.push(f.jsonName);
    }
    const schema: JsonObject = { type: "object" };
    const d = descriptionOf(desc);
    if (d !== undefined) schema["description"] = d;
    schema["properties"] = properties;
    if (required.length > 0) schema["required"] = required;
    // A oneof sets at most one of its fields.
    const oneofs = desc.oneofs
      .map((o) => o.fields.filter((f) => !leaveOut.has(f.name)).map((f) => f.jsonName))
      .filter((names) => names.length > 1);
    if (oneofs.length > 0) {
      schema["allOf"] = oneofs.map((names) => ({
        not: { anyOf: pairs(names).map((p) => ({ required: p })) },
      }));
    }
    return schema;
  }
}

function pairs(names: readonly string[]): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < names.length; i++) for (let j = i + 1; j < names.length; j++) out.push([names[i]!, names[j]!]);
  return out;
}

/** Map keys are JSON strings: integers in decimal, bools as "true"/"false". */
function mapKeySchema(key: ScalarType): JsonObject {
  switch (key) {
    case ScalarType.BOOL:
      return { enum: ["true", "false"] };
    case ScalarType.STRING:
      return { type: "string" };
    case ScalarType.UINT32:
    case ScalarType.FIXED32:
    case ScalarType.UINT64:
    case ScalarType.FIXED64:
      return { pattern: uint64Pattern };
    default:
      return { pattern: int64Pattern };
  }
}
