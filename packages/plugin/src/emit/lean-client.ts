import { ScalarType, type DescEnum, type DescField, type DescFile, type DescMessage } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable, Schema } from "@bufbuild/protoplugin";
import { Edition, FeatureSet_FieldPresence, isWrapperDesc } from "@bufbuild/protobuf/wkt";
import type { HttpBinding } from "../httprule/bindings.js";
import { HttpRuleError } from "../httprule/bindings.js";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { clientProfile, printClientInterface } from "./client.js";
import { fileNames } from "./file-cache.js";
import { createDescImports, runtimeModules } from "./imports.js";
import { leanRpcName, leanUnder, protoNameOf, type LeanRoute, type LeanVariable } from "a2a-http/client";
import { literal } from "./names.js";

/**
 * Well-known types with a JSON form of their own, which the runtime reads and
 * writes (lean-wkt.ts; Any with protobuf-es and the client's registry, lean-any.ts).
 */
const WKT = new Set(["Timestamp", "Duration", "FieldMask", "Struct", "Value", "ListValue", "Any"]);

/**
 * `<file>_http_client.ts` under `client=lean`: the same `<Service>Client`
 * interface and `create<Service>Client`, over a client-only route table
 * (method names, templates, body and response fields, streaming,
 * idempotency) and tables of the messages the client writes and reads
 * (JSON and proto names, kinds), which the runtime's lean-json.ts walks. It
 * imports from protobuf-es and the `_pb` files types only, so a bundle of it
 * holds no descriptors and no reflection (but for google.protobuf.Any, which
 * the runtime's leanAny reads with protobuf-es and the caller's registry).
 */
export function emitLeanClientFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  const f = schema.generateFile(file.name + "_http_client.ts");
  f.preamble(file);
  const runtime = runtimeModules(schema.options.runtimeImport).client;
  const createLeanClient = f.import("createLeanClient", runtime);
  const ClientOptions = f.import("ClientOptions", runtime, true);
  const CallOptions = f.import("CallOptions", runtime, true);
  const LeanRoute = f.import("LeanRoute", runtime, true);
  const imports = createDescImports(f);
  const profile = clientProfile(f, schema, file);
  const tables = new Tables(f, runtime);
  for (const { bindings } of services) for (const b of bindings) tables.visit(b.rpc.input), tables.visit(b.rpc.output);
  tables.print();
  for (const { service, rpcs, bindings } of services) {
    const clientName = service.name + "Client";
    printClientInterface(f, imports, service, rpcs, CallOptions);
    const routes = service.name + "ClientRoutes";
    f.print("/** The HTTP bindings of ", service.typeName, " as its client calls them, in proto order. */");
    f.print("const ", routes, ": readonly ", LeanRoute, "[] = [");
    for (let i = 0; i < bindings.length; i++) {
      const under = underOf(bindings[i]!, bindings[i + 1]);
      printRoute(f, tables, bindings[i]!, under);
      if (under !== undefined) i++;
    }
    f.print("];");
    f.print();
    f.print("/**");
    f.print(` * A fetch client for ${service.typeName}: each method picks the rpc's binding`);
    f.print(" * that fits the request, and throws RpcError for an error answer. Lean:");
    f.print(" * its messages are read and written without protobuf-es's reflection.");
    f.print(" */");
    f.print(f.export("function", "create" + clientName), "(options: ", ClientOptions, "): ", clientName, " {");
    f.print(
      "  return ",
      createLeanClient,
      "<",
      clientName,
      ">(",
      JSON.stringify(service.typeName),
      ", ",
      routes,
      ", options",
      profile,
      ");",
    );
    f.print("}");
    f.print();
  }
}

/** A binding's template as a lean route row writes it: segments, verb, variables. */
function leanPath({ path }: HttpBinding): LeanRoute["path"] {
  const segments = path.segments.map((x) => (x.kind === "literal" ? x.value : x.kind));
  const variables = path.variables.map(
    (v): LeanVariable => (v.multiSegment ? [v.fieldPath, v.start, v.end, 1] : [v.fieldPath, v.start, v.end]),
  );
  return [segments, path.verb, variables];
}

/**
 * The field path of `next`'s leading variable when `next` is an additional
 * binding of the same rpc that is `b` under it (leanUnder: the A2A bindings'
 * `/{tenant}/...` twins), so that one row says both.
 */
function underOf(b: HttpBinding, next: HttpBinding | undefined): readonly string[] | undefined {
  if (next === undefined || !next.additional || next.rpc !== b.rpc) return undefined;
  if (next.method !== b.method || next.body !== b.body || next.responseBody !== b.responseBody) return undefined;
  const lead = next.path.variables.find((v) => v.start === 0);
  if (lead === undefined) return undefined;
  return literal(leanUnder(leanPath(b), lead.fieldPath)) === literal(leanPath(next)) ? lead.fieldPath : undefined;
}

function printRoute(f: GeneratedFile, tables: Tables, b: HttpBinding, under: readonly string[] | undefined): void {
  const { rpc } = b;
  // What the runtime derives is left out (lean-client.ts: leanRpcName, leanTemplate): the rows are most of a bundle's table.
  const parts = [
    `name: ${JSON.stringify(rpc.name)}`,
    ...(rpc.localName !== leanRpcName(rpc.name) ? [`rpc: ${JSON.stringify(rpc.localName)}`] : []),
    ...(rpc.idempotency !== 0 ? [`idempotency: ${rpc.idempotency}`] : []),
    `method: ${JSON.stringify(b.method)}`,
    `path: ${literal(leanPath(b))}`,
    ...(b.body !== "" ? [`body: ${JSON.stringify(b.body)}`] : []),
    ...(b.responseBody !== "" ? [`responseBody: ${JSON.stringify(b.responseBody)}`] : []),
    ...(rpc.methodKind === "server_streaming" ? ['streaming: "server"'] : []),
    ...(b.additional ? ["additional: 1"] : []),
    ...(under !== undefined ? [`under: ${literal(under)}`] : []),
    `input: ${tables.name(rpc.input)}`,
    `output: ${tables.name(rpc.output)}`,
  ];
  f.print("  { ", parts.join(", "), " },");
}

/** The lean tables of the messages (and enums) reachable from the routes, named once each. */
class Tables {
  private readonly messages: DescMessage[] = [];
  private readonly enums: DescEnum[] = [];
  private readonly names = new Map<DescMessage | DescEnum, string>();
  private readonly taken = new Set<string>();
  private readonly LeanMessage: Printable;
  private readonly LeanEnum: Printable;

  constructor(
    private readonly f: GeneratedFile,
    private readonly runtime: string,
  ) {
    this.LeanMessage = f.import("LeanMessage", runtime, true);
    this.LeanEnum = f.import("LeanEnum", runtime, true);
  }

  /** The local name of a message's or enum's table (`$` + its generated name, unique in the file). */
  name(d: DescMessage | DescEnum): string {
    let n = this.names.get(d);
    if (n === undefined) {
      const base = "$" + (fileNames(d.file).shape.get(d) ?? d.name);
      n = base;
      for (let i = 2; this.taken.has(n); i++) n = `${base}$${i}`;
      this.taken.add(n);
      this.names.set(d, n);
    }
    return n;
  }

  visit(m: DescMessage): void {
    if (this.names.has(m)) return;
    if (m.file.edition !== Edition.EDITION_PROTO3) {
      throw new HttpRuleError(`client=lean: ${m.typeName} is not proto3 (${m.file.name}.proto); generate this client with client=true`);
    }
    this.name(m);
    this.messages.push(m);
    for (const field of m.fields) {
      if (field.fieldKind === "enum" || ((field.fieldKind === "list" || field.fieldKind === "map") && field.enum)) {
        const e = field.enum!;
        if (!this.names.has(e)) {
          if (e.typeName === "google.protobuf.NullValue")
            throw new HttpRuleError(`client=lean: ${field.toString()}: NullValue fields are not supported`);
          this.name(e);
          this.enums.push(e);
        }
      }
      const child = field.fieldKind !== "scalar" && field.fieldKind !== "enum" ? field.message : undefined;
      if (child && !this.special(child)) this.visit(child);
    }
  }

  /** A well-known type the runtime reads and writes itself: a wrapper's `leanWrapper(name, t)`, or its `lean<Name>`; else undefined. */
  private special(m: DescMessage): Printable | undefined {
    if (!m.typeName.startsWith("google.protobuf.")) return undefined;
    if (isWrapperDesc(m)) return this.pure("leanWrapper", JSON.stringify(m.typeName), ", ", this.scalar(m.fields[0]!.scalar!));
    return WKT.has(m.name) ? this.f.import(`lean${m.name}`, this.runtime) : undefined;
  }

  /** A call of the runtime's `name` (a maker of a lean type), pure for tree-shaking: the tables are made at load. */
  private pure(name: string, ...args: Printable[]): Printable {
    return ["/* @__PURE__ */ ", this.f.import(name, this.runtime), "(", args, ")"];
  }

  /** A scalar type: its ScalarType number, or the runtime's LeanScalar for 64-bit integers and floats. */
  private scalar(t: ScalarType): Printable {
    switch (t) {
      case ScalarType.INT64:
      case ScalarType.SINT64:
      case ScalarType.SFIXED64:
        return this.f.import("leanInt64", this.runtime);
      case ScalarType.UINT64:
      case ScalarType.FIXED64:
        return this.f.import("leanUint64", this.runtime);
      case ScalarType.DOUBLE:
        return this.f.import("leanDouble", this.runtime);
      case ScalarType.FLOAT:
        return this.f.import("leanFloat", this.runtime);
      default:
        return String(t);
    }
  }

  /** Enums first: the message tables' fields name them at load time (messages only inside functions). */
  print(): void {
    for (const e of this.enums) {
      const values = e.values.flatMap((v) => [v.name, v.number]);
      this.f.print("const ", this.name(e), ": ", this.LeanEnum, " = ", literal(values), ";");
    }
    for (const m of this.messages) {
      const fields = m.fields.map((x) => this.field(x));
      this.f.print("const ", this.name(m), ": ", this.LeanMessage, " = { typeName: ", JSON.stringify(m.typeName), ", fields: [");
      for (const x of fields) this.f.print("  ", x, ",");
      this.f.print("] };");
    }
    this.f.print();
  }

  private field(x: DescField): Printable[] {
    const parts: Printable[] = [`j: ${JSON.stringify(x.jsonName)}`];
    if (x.name !== protoNameOf(x.jsonName)) parts.push(`p: ${JSON.stringify(x.name)}`);
    if (x.localName !== x.jsonName) parts.push(`l: ${JSON.stringify(x.localName)}`);
    // A 64-bit integer held as a string (jstype = JS_STRING): singular or repeated (a map's values stay bigint).
    const asString = (x.fieldKind === "scalar" || (x.fieldKind === "list" && x.listKind === "scalar")) && x.longAsString;
    parts.push(["t: ", asString ? this.pure("leanAsString", this.type(x)) : this.type(x)]);
    if (x.fieldKind === "list") parts.push('c: "l"');
    if (x.fieldKind === "map") {
      parts.push('c: "m"');
      if (x.mapKey !== ScalarType.STRING) parts.push(["k: ", this.pure("leanMapKey", this.scalar(x.mapKey))]);
    }
    if (x.oneof) parts.push(`o: ${JSON.stringify(x.oneof.localName)}`);
    if (!x.oneof && (x.fieldKind === "scalar" || x.fieldKind === "enum") && x.presence !== FeatureSet_FieldPresence.IMPLICIT)
      parts.push("x: 1");
    return ["{ ", parts.flatMap((p, i) => (i === 0 ? [p] : [", ", p])), " }"];
  }

  private type(x: DescField): Printable {
    const scalar = x.fieldKind === "scalar" ? x.scalar : x.fieldKind === "list" || x.fieldKind === "map" ? x.scalar : undefined;
    if (scalar !== undefined) return this.scalar(scalar);
    const e = x.fieldKind === "enum" ? x.enum : x.fieldKind === "list" || x.fieldKind === "map" ? x.enum : undefined;
    if (e) return `{ e: ${this.name(e)} }`;
    const m = x.message!;
    const special = this.special(m);
    return special ?? `() => ${this.name(m)}`;
  }
}
