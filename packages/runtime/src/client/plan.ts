import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { Code, type RpcError } from "../errors.js";
import type { TemplateSegment } from "../path-template.js";
import { clientError } from "./client-error.js";
import type { ClientField, ClientMessage, ClientRoute } from "../route-binding.js";
import { escapeComponent, escapeMultiSegment } from "./encode.js";
import { isJsonObject } from "../json-object.js";

interface VariablePlan {
  /** The field path as written in the template ("book.name"). */
  readonly name: string;
  /** JSON names along the field path. */
  readonly jsonPath: readonly string[];
  readonly pattern: RegExp;
  /** The pattern as the template writes it, e.g. `shelves/{star}/books/{star}` with `*` for {star}. */
  readonly patternText: string;
  readonly multiSegment: boolean;
}

/** One binding, compiled once: how to fill its template, body and query. */
export interface BindingPlan {
  readonly binding: ClientRoute;
  /** The HTTP method the client sends. */
  readonly method: string;
  /** Literal text and variable slots, in order; the path is their concatenation. */
  readonly parts: readonly (string | number)[];
  readonly variables: readonly VariablePlan[];
  /** Set when the template has a wildcard outside any variable: a client cannot fill it. */
  readonly unfillable?: string;
  /** "" none, "*" the whole request, or the JSON name of the body field. */
  readonly body: "" | "*" | { readonly jsonName: string; readonly field: ClientField };
  /** The JSON name of the response_body field, or undefined for the whole message. */
  readonly responseJsonName: string | undefined;
}

const reEscape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

function decodeLiteral(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

function resolveFieldPath(input: ClientMessage, path: readonly string[], where: string): ClientField[] {
  const fields: ClientField[] = [];
  let msg: ClientMessage | undefined = input;
  for (const name of path) {
    const field: ClientField | undefined = msg?.fields.find((f) => f.name === name);
    if (!field) throw new Error(`${where}: ${input.typeName} has no field ${path.join(".")}`);
    fields.push(field);
    msg = field.fieldKind === "message" ? field.message : undefined;
  }
  return fields;
}

/** Compiles a route table row; `method` is the HTTP method the client sends. */
export function compileBinding(b: ClientRoute, method: string): BindingPlan {
  const where = `${b.rpc} ${b.method} ${b.template}`;
  const { segments, verb } = b.path;
  const variables: VariablePlan[] = [];
  const parts: (string | number)[] = [];
  let unfillable: string | undefined;
  let i = 0;
  const literals = (to: number) => {
    for (; i < to; i++) {
      const s = segments[i]!;
      if (s.kind !== "literal") unfillable = `the template has a "${s.kind}" outside any variable`;
      parts.push(`/${s.kind === "literal" ? s.value : s.kind}`);
    }
  };
  const sorted = [...b.path.variables].sort((x, y) => x.start - y.start);
  for (const v of sorted) {
    literals(v.start);
    const fields = resolveFieldPath(b.input, v.fieldPath, where);
    const re = valuePattern(segments.slice(v.start, v.end), v.multiSegment);
    parts.push("/", variables.length);
    variables.push({
      name: v.fieldPath.join("."),
      jsonPath: fields.map((f) => f.jsonName),
      pattern: new RegExp(`^${re}$`, "s"),
      patternText: segments
        .slice(v.start, v.end)
        .map((s) => (s.kind === "literal" ? s.value : s.kind))
        .join("/"),
      multiSegment: v.multiSegment,
    });
    i = v.end;
  }
  literals(segments.length);
  if (segments.length === 0) parts.push("/");
  if (verb !== "") parts.push(`:${verb}`);

  let body: BindingPlan["body"] = "";
  if (b.body === "*") body = "*";
  else if (b.body !== "") {
    const field = b.input.fields.find((f) => f.name === b.body);
    if (!field) throw new Error(`${where}: ${b.input.typeName} has no body field ${b.body}`);
    body = { jsonName: field.jsonName, field };
  }
  let responseJsonName: string | undefined;
  if (b.responseBody !== "") {
    const field = b.output.fields.find((f) => f.name === b.responseBody);
    if (!field) throw new Error(`${where}: ${b.output.typeName} has no response_body field ${b.responseBody}`);
    responseJsonName = field.jsonName;
  }
  return { binding: b, method, parts, variables, ...(unfillable ? { unfillable } : {}), body, responseJsonName };
}

/**
 * The regular expression (source) of a variable's value. A single-segment
 * value is escaped whole ("/" too), so any non-empty text fits its "*". A
 * "**" takes zero or more segments, as on the server: `docs/**` fits "docs"
 * as well as "docs/a/b".
 */
function valuePattern(segs: readonly TemplateSegment[], multiSegment: boolean): string {
  if (segs.length === 1 && segs[0]!.kind === "**") return ".+";
  let re = "";
  segs.forEach((s, k) => {
    if (s.kind === "**") {
      re += k === 0 ? "(?:.+/)?" : "(?:/.+)?";
      return;
    }
    // After a leading "**", its own pattern holds the "/".
    if (k > 0 && !(k === 1 && segs[0]!.kind === "**")) re += "/";
    re += s.kind === "literal" ? reEscape(decodeLiteral(s.value)) : multiSegment ? "[^/]+" : ".+";
  });
  return re;
}

function lookup(json: JsonObject, path: readonly string[]): JsonValue | undefined {
  let v: JsonValue | undefined = json;
  for (const k of path) {
    if (!isJsonObject(v)) return undefined;
    v = v[k];
  }
  return v;
}

function remove(json: JsonObject, path: readonly string[]): void {
  let v: JsonValue | undefined = json;
  for (let i = 0; i < path.length - 1; i++) {
    if (!isJsonObject(v)) return;
    v = v[path[i]!];
  }
  if (isJsonObject(v)) delete v[path[path.length - 1]!];
}

function scalarText(v: JsonValue): string | undefined {
  switch (typeof v) {
    case "string":
      return v;
    case "number":
    case "boolean":
      return String(v);
    default:
      return undefined;
  }
}

/** Picks the binding (design.md "Choosing a binding") and fills its path. */
/** The path values of a binding, or why it cannot be used. */
function pathValues(plan: BindingPlan, json: JsonObject): string[] | string {
  const values: string[] = [];
  for (const v of plan.variables) {
    const raw = lookup(json, v.jsonPath);
    const text = raw === undefined ? undefined : scalarText(raw);
    if (text === undefined || text === "") return `field ${v.name} is not set`;
    if (!v.pattern.test(text)) return `field ${v.name} ${JSON.stringify(text)} does not match the pattern ${v.patternText}`;
    values.push(text);
  }
  return values;
}

export function choosePlan(rpc: string, plans: readonly BindingPlan[], json: JsonObject): { plan: BindingPlan; path: string } {
  let best: BindingPlan | undefined;
  let bestValues: string[] | undefined;
  for (const plan of plans) {
    if (plan.unfillable !== undefined) continue;
    if (best && plan.variables.length <= best.variables.length) continue;
    const values = pathValues(plan, json);
    if (typeof values === "string") continue;
    best = plan;
    bestValues = values;
  }
  if (!best || !bestValues) {
    // Why each binding was passed over, worked out only now: a call that
    // succeeds should not pay for the sentences.
    const reasons = plans.map((plan) => {
      const why = plan.unfillable ?? (pathValues(plan, json) as string);
      return `${plan.binding.method} ${plan.binding.template}: ${why}`;
    });
    throw clientError(Code.INVALID_ARGUMENT, `${rpc}: no HTTP binding fits the request (${reasons.join("; ")})`);
  }
  let path = "";
  for (const p of best.parts) {
    if (typeof p === "string") {
      path += p;
      continue;
    }
    const v = best.variables[p]!;
    const value = bestValues[p]!;
    const dots = v.multiSegment ? value.split("/").some((s) => s === "." || s === "..") : value === "." || value === "..";
    if (dots) {
      throw clientError(
        Code.INVALID_ARGUMENT,
        `${rpc}: field ${v.name} ${JSON.stringify(value)} has a "." or ".." path segment, which is refused (path traversal)`,
      );
    }
    try {
      path += v.multiSegment ? escapeMultiSegment(value) : escapeComponent(value);
    } catch (cause) {
      throw clientError(Code.INVALID_ARGUMENT, `${rpc}: field ${v.name} is not well-formed Unicode`, cause);
    }
  }
  for (const v of best.variables) remove(json, v.jsonPath);
  return { plan: best, path };
}

const wkt = /^google\.protobuf\./;

/**
 * Appends `name=value` pairs for every field of `json` (already stripped of
 * the path- and body-bound fields): JSON names, dotted for nested messages;
 * repeated fields repeat the key; well-known types in their ProtoJSON
 * string form.
 */
export function appendQuery(rpc: string, desc: ClientMessage, json: JsonObject, prefix: string, out: string[]): void {
  for (const field of desc.fields) {
    const v = json[field.jsonName];
    if (v === undefined || v === null) continue;
    const name = prefix + field.jsonName;
    switch (field.fieldKind) {
      case "scalar":
      case "enum":
        out.push(pair(rpc, name, v));
        break;
      case "message":
        if (wkt.test(field.message.typeName) || typeof v !== "object" || Array.isArray(v)) out.push(pair(rpc, name, v));
        else appendQuery(rpc, field.message, v, `${name}.`, out);
        break;
      case "list":
        if (!Array.isArray(v)) break;
        if (field.listKind === "message" && !wkt.test(field.message.typeName)) {
          if (v.length > 0) throw queryError(rpc, name, "a repeated message field");
          break;
        }
        for (const item of v) out.push(pair(rpc, name, item));
        break;
      case "map":
        if (typeof v === "object" && Object.keys(v).length > 0) throw queryError(rpc, name, "a map field");
        break;
    }
  }
}

function queryError(rpc: string, name: string, what: string): RpcError {
  return clientError(
    Code.INVALID_ARGUMENT,
    `${rpc}: field ${name} is ${what}, which cannot be sent as a query parameter; this binding has no body for it`,
  );
}

function pair(rpc: string, name: string, v: JsonValue): string {
  const text = scalarText(v) ?? JSON.stringify(v);
  try {
    return `${escapeComponent(name)}=${escapeComponent(text)}`;
  } catch (cause) {
    throw clientError(Code.INVALID_ARGUMENT, `${rpc}: query parameter ${name} is not well-formed Unicode`, cause);
  }
}
