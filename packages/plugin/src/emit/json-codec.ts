import { ScalarType, type DescEnum, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable, Schema } from "@bufbuild/protoplugin";
import { Edition, FeatureSet_FieldPresence, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import * as codegenKit from "a2a-http/codegenv1";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { fieldBehaviorReader, type FieldBehaviors } from "./field-behavior.js";
import { fileNames } from "./file-cache.js";
import { createDescImports, runtimeModules, type DescImports } from "./imports.js";

const EDITION_PROTO3 = Edition.EDITION_PROTO3;
const IMPLICIT = FeatureSet_FieldPresence.IMPLICIT;

/**
 * The names the file may import from the runtime kit. A message's local
 * reader, writer and codec (`read<Name>`, `write<Name>`, `complete<Name>`,
 * `<Name>Json`) must not take one: a message named List or Value would
 * otherwise declare the kit's readList or readValue over the import.
 */
const kitNames = new Set(Object.keys(codegenKit));
const clashesWithKit = (name: string) =>
  [`read${name}`, `write${name}`, `complete${name}`, `${name}Json`].some((local) => kitNames.has(local));

/** The message type of a message, list or map field. */
function messageTypeOf(field: DescField): DescMessage | undefined {
  if (field.fieldKind === "message") return field.message;
  if (field.fieldKind === "list" && field.listKind === "message") return field.message;
  if (field.fieldKind === "map" && field.mapKind === "message") return field.message;
  return undefined;
}

/** Well-known types: none has a REQUIRED field. */
const isGoogleProtobuf = (m: DescMessage) => m.typeName.startsWith("google.protobuf.");

/**
 * A message that protobuf-es writes for the codecs and that is not a
 * well-known type (one outside proto3): REQUIRED fields may sit below it,
 * where the generated code does not look.
 */
const opaque = (m: DescMessage) => handlingOf(m) === "via" && !isGoogleProtobuf(m);

/** A wrapper in a singular field outside a oneof, which protobuf-es holds unboxed: its JSON rules are protobuf-es's. */
const unboxedWrapper = (field: DescField & { fieldKind: "message" }) => isWrapperDesc(field.message) && !field.oneof;

/**
 * How values of a message type are read and written in a field:
 * `generated`: by this file's reader and writer; `timestamp`, `struct`: by the
 * runtime's; `via`: by protobuf-es, one field at a time (special JSON forms,
 * messages outside proto3, whose defaults live on a prototype, and the other
 * well-known types with fields).
 */
type Handling = "generated" | "timestamp" | "struct" | "value" | "via";

function handlingOf(m: DescMessage): Handling {
  if (m.typeName === "google.protobuf.Timestamp") return "timestamp";
  // Outside google.protobuf.Value (never generated here), a Struct field holds a JsonObject.
  if (m.typeName === "google.protobuf.Struct") return "struct";
  if (m.typeName === "google.protobuf.Value") return "value";
  // Every other well-known type with fields is protobuf-es's: some have a JSON
  // form that is not an object of their fields (Any, Duration, FieldMask,
  // ListValue, the wrappers), and all have protobuf-es's shape, made from its
  // own copy of the .proto, which may have fields that the request's copy
  // lacks (google.protobuf.Api's edition, missing from older protoc and from
  // google-proto-files): a reader of the request's fields would not match the
  // shape. Empty has nothing to differ in.
  if ((isGoogleProtobuf(m) && m.fields.length > 0) || m.file.edition !== EDITION_PROTO3) return "via";
  return "generated";
}

/** The message types that the services' routes read or write, with every generated type they reach. */
export function jsonCodecMessages(services: readonly ServiceRoutes[]): DescMessage[] {
  const out: DescMessage[] = [];
  const seen = new Set<DescMessage>();
  const visit = (m: DescMessage) => {
    if (seen.has(m) || handlingOf(m) !== "generated") return;
    seen.add(m);
    out.push(m);
    for (const f of m.fields) {
      const child = f.fieldKind === "message" ? f.message : f.fieldKind === "list" || f.fieldKind === "map" ? f.message : undefined;
      if (child) visit(child);
    }
  };
  for (const s of services) for (const b of s.bindings) visit(b.rpc.input), visit(b.rpc.output);
  return out;
}

/** The exported name of a message's codec in `<file>_http_json.ts`. */
export type CodecNames = ReadonlyMap<DescMessage, string>;

/**
 * `<file>_http_json.ts`: a ProtoJSON reader and writer for each message that
 * the file's routes read or write (and the messages inside them), printed as
 * plain property access, and `<Message>Json` codecs over them. Returns the
 * codec names, for the route table.
 */
export function emitJsonCodecFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): CodecNames {
  const messages = jsonCodecMessages(services);
  const codecs = new Map<DescMessage, string>();
  if (messages.length === 0) return codecs;
  const f = schema.generateFile(file.name + "_http_json.ts");
  f.preamble(file);
  const kit = runtimeModules(schema.options.runtimeImport).codegen;
  const p = new Printer(f, kit, createDescImports(f), fieldBehaviorReader(schema.allFiles));
  const MessageJsonCodec = f.import("MessageJsonCodec", kit, true);
  p.findRequired(messages);
  for (const m of messages) {
    const name = p.name(m);
    p.reader(m);
    p.writer(m);
    const complete = p.completeness(m);
    const exported = name + "Json";
    p.line("/** ProtoJSON of ", m.typeName, " without reflection; what it leaves to protobuf-es comes back `undefined`. */");
    p.line(
      f.export("const", exported),
      ": ",
      MessageJsonCodec,
      "<typeof ",
      p.imports.typeSchema(m),
      "> = ",
      p.kit("messageJson"),
      "(",
      str(m.typeName),
      ", read",
      name,
      ", write",
      name,
      complete ? ", complete" + name : "",
      ");",
    );
    p.line();
    codecs.set(m, exported);
  }
  p.printEnums();
  return codecs;
}

/**
 * A TypeScript string literal. Names and type names are printed this way
 * rather than with protoplugin's `f.string()`: JSON's escaping is valid
 * TypeScript, and plain text keeps a file of thousands of codecs cheap to print.
 */
const str = (s: string) => JSON.stringify(s);

class Printer {
  private readonly names = new Map<DescMessage | DescEnum, string>();
  private readonly taken = new Set<string>();
  private readonly enums: DescEnum[] = [];
  /** One import symbol per runtime name: protoplugin resolves each symbol printed, so fewer are cheaper in large files. */
  private readonly kitSymbols = new Map<string, Printable>();

  constructor(
    private readonly f: GeneratedFile,
    private readonly kitModule: string,
    readonly imports: DescImports,
    private readonly behaviors: (field: DescField) => FieldBehaviors,
  ) {}

  /**
   * `f.print`, with runs of plain text joined first: protoplugin keeps every
   * piece as an element of the file, and a file of a thousand codecs has
   * hundreds of thousands of them.
   */
  line(...parts: Printable[]): void {
    const out: Printable[] = [];
    let text = "";
    const add = (p: Printable) => {
      if (Array.isArray(p)) p.forEach(add);
      else if (typeof p === "string") text += p;
      else {
        if (text !== "") out.push(text), (text = "");
        out.push(p);
      }
    };
    parts.forEach(add);
    if (text !== "") out.push(text);
    this.f.print(...out);
  }

  kit(name: string): Printable {
    let s = this.kitSymbols.get(name);
    if (s === undefined) this.kitSymbols.set(name, (s = this.f.import(name, this.kitModule)));
    return s;
  }

  private readonly types = new Map<string, Printable>();
  private int64: Printable | undefined;

  /** A type of @bufbuild/protobuf, imported once. */
  private type(name: "JsonObject" | "JsonValue"): Printable {
    let s = this.types.get(name);
    if (s === undefined) this.types.set(name, (s = this.f.import(name, "@bufbuild/protobuf", true)));
    return s;
  }

  private protoInt64(): Printable {
    return (this.int64 ??= this.f.import("protoInt64", "@bufbuild/protobuf"));
  }

  /** A local name for a type, unique in this file (types of other packages may share a name) and clear of the kit's names. */
  name(d: DescMessage | DescEnum): string {
    let n = this.names.get(d);
    if (n === undefined) {
      const base = fileNames(d.file).shape.get(d) ?? d.name;
      n = base;
      for (let i = 2; this.taken.has(n) || clashesWithKit(n); i++) n = `${base}$${i}`;
      this.taken.add(n);
      this.names.set(d, n);
      if (d.kind === "enum") this.enums.push(d);
    }
    return n;
  }

  /** `const <Enum>Json = enumJson([...])`, after the functions that use them (they run only once the file has loaded). */
  printEnums(): void {
    for (const e of this.enums) {
      // Enum value names are identifiers: their JSON is a valid TypeScript string.
      const values = e.values.map((v) => `${JSON.stringify(v.name)}, ${v.number}`).join(", ");
      this.line("const ", this.name(e), "Json = ", this.kit("enumJson"), "([", values, "]);");
    }
    if (this.enums.length > 0) this.line();
  }

  reader(m: DescMessage): void {
    const Shape = this.imports.shape(m);
    const name = this.name(m);
    this.line("function read", name, "(json: unknown, depth: number): ", Shape, " {");
    const zero = m.members
      .filter((x) => x.kind === "oneof" || x.presence === IMPLICIT)
      .map((x) => [x.localName, ": ", ...(x.kind === "oneof" ? ["{ case: undefined }"] : this.zeroOf(x))]);
    if (m.fields.length === 0) {
      this.line("  ", this.kit("jsonObject"), "(json, depth);");
      this.line("  return { $typeName: ", str(m.typeName), " };");
      this.line("}");
      this.line();
      return;
    }
    this.line("  const j = ", this.kit("jsonObject"), "(json, depth);");
    this.line("  const m: ", Shape, " = { $typeName: ", str(m.typeName), ...zero.flatMap((z) => [", ", ...z]), " };");
    this.line("  for (const k of Object.keys(j)) {");
    const reads = m.fields.map((x) => this.readValue(x));
    // Fields whose JSON protobuf-es reads (int64, float...) give up without looking at it.
    if (reads.some((r) => r[0] !== this.kit("giveUp"))) this.line("    const v = j[k];");
    this.line("    switch (k) {");
    for (const [i, field] of m.fields.entries()) {
      this.line("      case ", str(field.jsonName), ":");
      if (field.oneof) {
        const o = field.oneof.localName;
        // A oneof given twice is an error that protobuf-es words.
        this.line("        if (m.", o, ".case !== undefined) ", this.kit("giveUp"), "();");
        this.line("        m.", o, " = { case: ", str(field.localName), ", value: ", ...reads[i]!, " };");
      } else {
        this.line("        m.", field.localName, " = ", ...reads[i]!, ";");
      }
      this.line("        break;");
    }
    // A key by its proto name is fine to protobuf-es, and with the JSON name it
    // may set the field twice: leave both to it.
    const protoNames = m.fields.filter((x) => x.name !== x.jsonName);
    for (const field of protoNames) this.line("      case ", str(field.name), ":");
    if (protoNames.length > 0) this.line("        return ", this.kit("giveUp"), "();");
    this.line("    }");
    this.line("  }");
    this.line("  return m;");
    this.line("}");
    this.line();
  }

  /**
   * `write<Name>(value, r)`: the message's ProtoJSON; with `r`, REQUIRED
   * fields at their defaults too, appended after the others in declaration
   * order, as the runtime's fillRequiredDefaults appends them to toJson's.
   */
  writer(m: DescMessage): void {
    const Shape = this.imports.shape(m);
    const name = this.name(m);
    const JsonObject = this.type("JsonObject");
    const defaults = m.fields.flatMap((x) => {
      const d = this.requiredDefault(x);
      return d === undefined ? [] : [[str(x.jsonName), d] as const];
    });
    const r = defaults.length > 0 || m.fields.some((x) => this.passesRequired(x)) ? "r" : "_r";
    this.line("function write", name, "(value: unknown, ", r, ": boolean): ", JsonObject, " {");
    if (m.fields.length === 0) {
      this.line("  ", this.kit("messageOf"), "<", Shape, ">(value, ", str(m.typeName), ");");
      this.line("  return {};");
      this.line("}");
      this.line();
      return;
    }
    this.line("  const m = ", this.kit("messageOf"), "<", Shape, ">(value, ", str(m.typeName), ");");
    // A message without its oneof's `{ case }` object is one protobuf-es fails on.
    for (const o of m.oneofs) this.line("  ", this.kit("checkOneof"), "(m.", o.localName, ");");
    this.line("  const j: ", JsonObject, " = {};");
    const usesV = m.fields.some((x) => !x.oneof && (x.fieldKind === "list" || x.fieldKind === "map" || this.implicit(x)));
    if (usesV) this.line("  let v: ", this.type("JsonValue"), " | undefined;");
    // protobuf-es writes fields in field-number order.
    for (const field of [...m.fields].sort((a, b) => a.number - b.number)) {
      const key = str(field.jsonName);
      if (field.oneof) {
        const o = "m." + field.oneof.localName;
        this.line("  if (", o, ".case === ", str(field.localName), ") j[", key, "] = ", ...this.writeValue(field, o + ".value"), ";");
        continue;
      }
      const value = "m." + field.localName;
      switch (field.fieldKind) {
        case "list":
        case "map":
          this.line(
            "  if ((v = ",
            this.kit(field.fieldKind === "list" ? "writeList" : "writeMap"),
            "(",
            value,
            ", ",
            ...this.itemWriter(field),
            ", r)) !== undefined) j[",
            key,
            "] = v;",
          );
          break;
        default:
          if (this.implicit(field)) {
            this.line("  if ((v = ", ...this.zeroSkippingWriter(field, value), ") !== undefined) j[", key, "] = v;");
          } else {
            this.line("  if (", value, " !== undefined) j[", key, "] = ", ...this.writeValue(field, value), ";");
          }
      }
    }
    if (defaults.length > 0) {
      this.line("  if (r) {");
      for (const [key, d] of defaults) this.line("    if (j[", key, "] === undefined) j[", key, "] = ", d, ";");
      this.line("  }");
    }
    this.line("  return j;");
    this.line("}");
    this.line();
  }

  /** Messages with a REQUIRED field at or below them (or below a message protobuf-es writes, which is not looked into). */
  private readonly checked = new Set<DescMessage>();

  findRequired(messages: readonly DescMessage[]): void {
    const below = (x: DescField) => {
      const t = messageTypeOf(x);
      return t !== undefined && (this.checked.has(t) || opaque(t));
    };
    // A fixed point: message types may refer to each other in cycles.
    for (let changed = true; changed; ) {
      changed = false;
      for (const m of messages) {
        if (this.checked.has(m) || !m.fields.some((x) => this.behaviors(x).required || below(x))) continue;
        this.checked.add(m);
        changed = true;
      }
    }
  }

  /**
   * `complete<Name>(m)`, for a message with REQUIRED fields at or below it:
   * true when every one of them is certainly set, false when one may not be
   * (then checkRequired's walk decides), by the rules of that walk. Returns
   * whether it printed one.
   */
  completeness(m: DescMessage): boolean {
    if (!this.checked.has(m)) return false;
    const Shape = this.imports.shape(m);
    const name = this.name(m);
    const tests: Printable[][] = [];
    const unsure = (cond: string) => tests.push(["  if (", cond, ") return false;"]);
    // A REQUIRED field with explicit presence is set or not by the walk's reading alone.
    if (
      m.fields.some(
        (x) => this.behaviors(x).required && !x.oneof && (x.fieldKind === "scalar" || x.fieldKind === "enum") && x.presence !== IMPLICIT,
      )
    ) {
      this.line("function complete", name, "(_m: ", Shape, "): boolean {");
      this.line("  return false;");
      this.line("}");
      this.line();
      return true;
    }
    for (const field of m.fields) {
      const value = "m." + field.localName;
      if (this.behaviors(field).required) {
        if (field.oneof) unsure(`m.${field.oneof.localName}.case === undefined`);
        else if (field.fieldKind === "list") unsure(`${value}.length === 0`);
        else if (field.fieldKind === "map") unsure(`Object.keys(${value}).length === 0`);
        else if (field.fieldKind === "message") unsure(`${value} === undefined`);
        else unsure(this.atDefault(field, value));
      }
      const t = messageTypeOf(field);
      if (t === undefined || !(this.checked.has(t) || opaque(t))) continue;
      // Below an opaque message, the walk looks.
      const below = this.checked.has(t) ? "complete" + this.name(t) : undefined;
      if (field.oneof) {
        const o = `m.${field.oneof.localName}`;
        unsure(below ? `${o}.case === ${str(field.localName)} && !${below}(${o}.value)` : `${o}.case === ${str(field.localName)}`);
      } else if (field.fieldKind === "message") {
        // A REQUIRED message field was found set just above.
        const set = this.behaviors(field).required ? "" : `${value} !== undefined && `;
        unsure(below ? `${set}!${below}(${value})` : `${value} !== undefined`);
      } else if (field.fieldKind === "list") {
        if (below) tests.push(["  for (const e of ", value, ") if (!", below, "(e)) return false;"]);
        else unsure(`${value}.length > 0`);
      } else {
        if (below) tests.push(["  for (const e of Object.values(", value, ")) if (!", below, "(e)) return false;"]);
        else unsure(`Object.keys(${value}).length > 0`);
      }
    }
    this.line("function complete", name, "(m: ", Shape, "): boolean {");
    for (const t of tests) this.line(...t);
    this.line("  return true;");
    this.line("}");
    this.line();
    return true;
  }

  /** A condition that holds when an implicit-presence scalar or enum is at its default (or may be: int64 loosely). */
  private atDefault(field: DescField, value: string): string {
    if (field.fieldKind === "enum") return `${value} === 0`;
    switch (field.scalar) {
      case ScalarType.STRING:
        return `${value} === ""`;
      case ScalarType.BYTES:
        return `${value}.length === 0`;
      case ScalarType.BOOL:
        return `${value} === false`;
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        // A bigint, or a string with jstype = JS_STRING.
        return `Number(${value}) === 0`;
      default:
        return `${value} === 0`;
    }
  }

  /**
   * A REQUIRED field's JSON at its default, as fillRequiredDefaults writes it
   * where ProtoJSON leaves the field out; undefined where nothing is written
   * (an unset message, explicit presence, a oneof member).
   */
  private requiredDefault(field: DescField): string | undefined {
    if (field.oneof || !this.behaviors(field).required) return undefined;
    switch (field.fieldKind) {
      case "list":
        return "[]";
      case "map":
        return "{}";
      case "enum":
        if (field.presence !== IMPLICIT) return undefined;
        return JSON.stringify(field.enum.values.find((v) => v.number === 0)?.name ?? 0);
      case "scalar":
        if (field.presence !== IMPLICIT) return undefined;
        switch (field.scalar) {
          case ScalarType.STRING:
          case ScalarType.BYTES:
            return '""';
          case ScalarType.BOOL:
            return "false";
          case ScalarType.INT64:
          case ScalarType.UINT64:
          case ScalarType.SINT64:
          case ScalarType.FIXED64:
          case ScalarType.SFIXED64:
            return '"0"';
          default:
            return "0";
        }
      default:
        return undefined;
    }
  }

  /** Whether writing the field hands `r` on (to a list or map writer, or a message's). */
  private passesRequired(field: DescField): boolean {
    if (field.fieldKind === "list" || field.fieldKind === "map") return true;
    if (field.fieldKind !== "message" || unboxedWrapper(field)) return false;
    return handlingOf(field.message) === "generated" || opaque(field.message);
  }

  private implicit(field: DescField): boolean {
    return (field.fieldKind === "scalar" || field.fieldKind === "enum") && field.presence === IMPLICIT;
  }

  /** A singular field's zero value, as create() sets it. */
  private zeroOf(field: DescField): Printable[] {
    switch (field.fieldKind) {
      case "list":
        return ["[]"];
      case "map":
        return ["{}"];
      case "enum":
        return [String(field.enum.values[0]!.number)];
      case "scalar":
        switch (field.scalar) {
          case ScalarType.STRING:
            return ['""'];
          case ScalarType.BOOL:
            return ["false"];
          case ScalarType.BYTES:
            return ["new Uint8Array(0)"];
          case ScalarType.INT64:
          case ScalarType.UINT64:
          case ScalarType.SINT64:
          case ScalarType.FIXED64:
          case ScalarType.SFIXED64:
            return field.longAsString ? ['"0"'] : [this.protoInt64(), ".zero"];
          default:
            return ["0"];
        }
      default:
        throw new Error(`${field.toString()} has no zero value in a zero message`);
    }
  }

  /** The expression that reads a singular field's (or a oneof member's) JSON `v`. */
  private readValue(field: DescField): Printable[] {
    switch (field.fieldKind) {
      case "scalar": {
        const read = this.scalarReader(field.scalar);
        return read ? [read, "(v)"] : [this.kit("giveUp"), "()"];
      }
      case "enum":
        return this.enumReader(field.enum, "(v)");
      case "message": {
        if (unboxedWrapper(field)) return [this.kit("giveUp"), "()"];
        return this.messageReader(field.message, "v", "depth + 1");
      }
      case "list":
        return [this.kit("readList"), "(v, depth, ", ...this.itemReader(field), ")"];
      case "map":
        return [this.kit("readMap"), "(v, depth, ", ...this.itemReader(field), ")"];
    }
  }

  /** A function `(item, depth) => value` for the elements of a list or the values of a map. */
  private itemReader(field: DescField & { fieldKind: "list" | "map" }): Printable[] {
    // Keys other than strings have their own JSON rules: leave those maps to protobuf-es.
    if (field.fieldKind === "map" && field.mapKey !== ScalarType.STRING) return [this.kit("giveUp")];
    const kind = field.fieldKind === "list" ? field.listKind : field.mapKind;
    switch (kind) {
      case "scalar":
        return [this.scalarReader(field.scalar!) ?? this.kit("giveUp")];
      case "enum":
        return field.enum!.typeName === "google.protobuf.NullValue" ? [this.kit("giveUp")] : [this.name(field.enum!), "Json.read"];
      case "message": {
        const m = field.message!;
        const h = handlingOf(m);
        if (h === "generated") return ["read", this.name(m)];
        if (h === "timestamp") return [this.kit("readTimestamp")];
        if (h === "struct") return [this.kit("readStruct")];
        if (h === "value") return [this.kit("readValue")];
        return ["(item: unknown) => ", this.kit("readVia"), "(", this.imports.schema(m), ", item)"];
      }
    }
  }

  private messageReader(m: DescMessage, value: string, depth: string): Printable[] {
    switch (handlingOf(m)) {
      case "generated":
        return ["read", this.name(m), "(", value, ", ", depth, ")"];
      case "timestamp":
        return [this.kit("readTimestamp"), "(", value, ")"];
      case "struct":
        return [this.kit("readStruct"), "(", value, ", ", depth, ")"];
      case "value":
        return [this.kit("readValue"), "(", value, ", ", depth, ")"];
      case "via":
        return [this.kit("readVia"), "(", this.imports.schema(m), ", ", value, ")"];
    }
  }

  private enumReader(e: DescEnum, call: string): Printable[] {
    if (e.typeName === "google.protobuf.NullValue") return [this.kit("giveUp"), "()"];
    return [this.name(e), "Json.read", call];
  }

  private scalarReader(t: ScalarType) {
    switch (t) {
      case ScalarType.STRING:
        return this.kit("readString");
      case ScalarType.BOOL:
        return this.kit("readBool");
      case ScalarType.INT32:
      case ScalarType.SINT32:
      case ScalarType.SFIXED32:
        return this.kit("readInt32");
      case ScalarType.UINT32:
      case ScalarType.FIXED32:
        return this.kit("readUint32");
      case ScalarType.DOUBLE:
        return this.kit("readDouble");
      case ScalarType.BYTES:
        return this.kit("readBytes");
      default:
        // 64-bit integers (strings or numbers, ranges, jstype) and float (32-bit range): protobuf-es's.
        return undefined;
    }
  }

  /** The expression that writes a singular field's (or a oneof member's) value. */
  private writeValue(field: DescField, value: string): Printable[] {
    switch (field.fieldKind) {
      case "scalar":
        return [this.scalarWriter(field.scalar), "(", value, ")"];
      case "enum":
        return field.enum.typeName === "google.protobuf.NullValue"
          ? [this.kit("giveUp"), "()"]
          : [this.name(field.enum), "Json.write(", value, ")"];
      case "message": {
        if (unboxedWrapper(field)) return [this.kit("giveUp"), "()"];
        const h = handlingOf(field.message);
        if (h === "via")
          return [...this.viaGuard(field.message), this.kit("writeVia"), "(", this.imports.schema(field.message), ", ", value, ")"];
        return [...this.messageWriter(field.message), "(", value, h === "generated" ? ", r)" : ")"];
      }
      default:
        throw new Error(`${field.toString()} is not singular`);
    }
  }

  /** For an implicit-presence scalar or enum: its JSON, or undefined at its zero value (which ProtoJSON leaves out). */
  private zeroSkippingWriter(field: DescField, value: string): Printable[] {
    if (field.fieldKind === "enum") {
      return field.enum.typeName === "google.protobuf.NullValue"
        ? [this.kit("giveUp"), "()"]
        : [this.name(field.enum), "Json.field(", value, ")"];
    }
    const fieldWriter: Record<number, string> = {
      [ScalarType.STRING]: "stringField",
      [ScalarType.BOOL]: "boolField",
      [ScalarType.DOUBLE]: "doubleField",
      [ScalarType.BYTES]: "bytesField",
      [ScalarType.INT32]: "intField",
      [ScalarType.SINT32]: "intField",
      [ScalarType.SFIXED32]: "intField",
      [ScalarType.UINT32]: "intField",
      [ScalarType.FIXED32]: "intField",
      [ScalarType.INT64]: "int64Field",
      [ScalarType.SINT64]: "int64Field",
      [ScalarType.SFIXED64]: "int64Field",
      [ScalarType.UINT64]: "int64Field",
      [ScalarType.FIXED64]: "int64Field",
      [ScalarType.FLOAT]: "doubleField",
    };
    return [this.kit(fieldWriter[field.scalar!]!), "(", value, ")"];
  }

  /** A function `(item) => JSON` for the elements of a list or the values of a map. */
  private itemWriter(field: DescField & { fieldKind: "list" | "map" }): Printable[] {
    if (field.fieldKind === "map" && field.mapKey !== ScalarType.STRING) return [this.kit("giveUp")];
    const kind = field.fieldKind === "list" ? field.listKind : field.mapKind;
    switch (kind) {
      case "scalar":
        return [this.scalarWriter(field.scalar!)];
      case "enum":
        return field.enum!.typeName === "google.protobuf.NullValue" ? [this.kit("giveUp")] : [this.name(field.enum!), "Json.write"];
      case "message":
        return this.messageWriter(field.message!);
    }
  }

  /** A function `(value) => JSON` for a message type. */
  private messageWriter(m: DescMessage): Printable[] {
    switch (handlingOf(m)) {
      case "generated":
        return ["write", this.name(m)];
      case "timestamp":
        return [this.kit("writeTimestamp")];
      case "struct":
        return [this.kit("writeStruct")];
      case "value":
        return [this.kit("writeValue")];
      case "via":
        return [
          "(item: unknown",
          opaque(m) ? ", r: boolean" : "",
          ") => ",
          ...this.viaGuard(m),
          this.kit("writeVia"),
          "(",
          this.imports.schema(m),
          ", item)",
        ];
    }
  }

  /**
   * Before a message that protobuf-es writes outside google.protobuf (one not
   * in proto3): with `r`, give up, so that protobuf-es and
   * fillRequiredDefaults write the whole value, REQUIRED fields below it included.
   */
  private viaGuard(m: DescMessage): Printable[] {
    return opaque(m) ? ["r ? ", this.kit("giveUp"), "() : "] : [];
  }

  private scalarWriter(t: ScalarType) {
    switch (t) {
      case ScalarType.STRING:
        return this.kit("writeString");
      case ScalarType.BOOL:
        return this.kit("writeBool");
      case ScalarType.DOUBLE:
      case ScalarType.FLOAT:
        return this.kit("writeDouble");
      case ScalarType.BYTES:
        return this.kit("writeBytes");
      case ScalarType.INT64:
      case ScalarType.UINT64:
      case ScalarType.SINT64:
      case ScalarType.FIXED64:
      case ScalarType.SFIXED64:
        return this.kit("writeInt64");
      default:
        return this.kit("writeInt");
    }
  }
}
