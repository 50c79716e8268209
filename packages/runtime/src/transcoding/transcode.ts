// The framework-free request/response codec: HTTP path variables, query and
// JSON body in, a protobuf-es message out; a message in, its JSON out.
import { create, toJson, type DescField, type DescMessage, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";
import type { RouteBinding } from "../route-binding.js";
import { badRequest, Code, RpcError } from "../errors.js";
import type { MessageJsonCodec } from "../codegen/index.js";
import { messageFromJson } from "./json.js";
import { routeCodecs, writeResult, type JsonCodec } from "./message-json.js";
import { fieldByName, quote } from "./names.js";
import { fieldConverter, messageConverter, ValueError, type Converter, type FieldValue } from "./values.js";

export { parseJsonBody } from "./json.js";
export { checkRequired } from "./required.js";

export interface DecodeRequestInput {
  /** Decoded path variable values by dotted field path, as the router gives them. */
  readonly variables: Readonly<Record<string, string>>;
  /** The raw query string, without the leading "?" ("" when there is none). */
  readonly query: string;
  /** The parsed JSON body (see parseJsonBody); `undefined` when there was none. */
  readonly body: unknown;
}

export interface DecodeOptions {
  /** A repeated field's query value is also split on "," (the A2A profile allows `a,b`). */
  readonly commaLists?: boolean;
  /** Resolves google.protobuf.Any in bodies. */
  readonly registry?: Registry;
  /** Default `generated`. */
  readonly jsonCodec?: JsonCodec;
}

export interface EncodeOptions {
  /** Resolves google.protobuf.Any in responses. */
  readonly registry?: Registry;
  /** Default `generated`. */
  readonly jsonCodec?: JsonCodec;
  /**
   * Also write REQUIRED fields (google.api.field_behavior) that hold their
   * default value, which ProtoJSON leaves out. The A2A profile sets it.
   */
  readonly emitRequired?: boolean;
  /** Told of each item of a top-level list left out because it cannot be written (see writeResult). */
  readonly onSkip?: (error: Error) => void;
}

/** A query parameter name resolved to a field path. */
interface QueryTarget {
  /** The message fields leading to the leaf, then the leaf. */
  readonly parents: readonly DescField[];
  readonly leaf: DescField;
  /** The proto-name dotted path; a singular one may be given once. */
  readonly key: string;
  /** Set when the leaf is in a oneof: the parent path plus the oneof's name. */
  readonly oneofKey: string | undefined;
  readonly list: boolean;
  readonly convert: Converter;
}

interface PathSetter {
  readonly name: string;
  readonly parents: readonly DescField[];
  readonly leaf: DescField;
  readonly convert: Converter;
}

interface RoutePlan {
  readonly input: DescMessage;
  /** The top-level field the body stands for, when `body` names one. */
  readonly bodyField: DescField | undefined;
  readonly readQuery: boolean;
  readonly paths: readonly PathSetter[];
  /** Proto-name paths bound by the path template. */
  readonly bound: ReadonlySet<string>;
  /** Query name -> target (null: ignored), filled as names are seen. */
  readonly names: Map<string, QueryTarget | null>;
}

const MAX_CACHED_NAMES = 512;
const NO_FIELDS = Object.freeze({});
const routePlans = new WeakMap<RouteBinding, RoutePlan>();

function routePlan(route: RouteBinding): RoutePlan {
  let p = routePlans.get(route);
  if (p === undefined) {
    p = buildRoutePlan(route);
    routePlans.set(route, p);
  }
  return p;
}

function buildRoutePlan(route: RouteBinding): RoutePlan {
  const input = route.input;
  let bodyField: DescField | undefined;
  if (route.body !== "" && route.body !== "*") {
    bodyField = input.fields.find((f) => f.name === route.body) ?? fieldByName(input, route.body);
    if (bodyField === undefined) throw new Error(`${route.rpc}: body field "${route.body}" is not a field of ${input.typeName}`);
  }
  const paths: PathSetter[] = [];
  const bound = new Set<string>();
  for (const v of route.path.variables) {
    const name = v.fieldPath.join(".");
    const parents: DescField[] = [];
    let desc = input;
    let leaf: DescField | undefined;
    v.fieldPath.forEach((part, i) => {
      const f = fieldByName(desc, part);
      if (f === undefined) throw new Error(`${route.rpc}: path variable "${name}" does not name a field of ${input.typeName}`);
      if (i < v.fieldPath.length - 1) {
        if (f.fieldKind !== "message") throw new Error(`${route.rpc}: path variable "${name}": ${f.name} is not a message field`);
        parents.push(f);
        desc = f.message;
      } else {
        leaf = f;
      }
    });
    const convert = leaf && fieldConverter(leaf);
    if (!leaf || !convert || leaf.fieldKind === "list") {
      throw new Error(`${route.rpc}: path variable "${name}" must name a singular scalar or enum field`);
    }
    paths.push({ name, parents, leaf, convert });
    bound.add([...parents, leaf].map((f) => f.name).join("."));
  }
  return { input, bodyField, readQuery: route.body !== "*", paths, bound, names: new Map() };
}

function resolveQueryName(plan: RoutePlan, name: string): QueryTarget | null {
  const cached = plan.names.get(name);
  if (cached !== undefined) return cached;
  const t = resolveUncached(plan, name);
  if (plan.names.size < MAX_CACHED_NAMES) plan.names.set(name, t);
  return t;
}

function resolveUncached(plan: RoutePlan, name: string): QueryTarget | null {
  const parts = name.split(".");
  const parents: DescField[] = [];
  let desc = plan.input;
  for (let i = 0; i < parts.length - 1; i++) {
    const f = fieldByName(desc, parts[i]!);
    // Only singular message fields can be descended into; not lists or maps,
    // and not message types that take a single value (Timestamp, wrappers...).
    if (f === undefined || f.fieldKind !== "message" || messageConverter(f.message) !== undefined) return null;
    parents.push(f);
    desc = f.message;
  }
  const leaf = fieldByName(desc, parts[parts.length - 1]!);
  if (leaf === undefined) return null;
  const convert = fieldConverter(leaf);
  if (convert === undefined) return null;
  const top = parents[0] ?? leaf;
  if (plan.bodyField === top) return null; // the body covers it
  const key = [...parents, leaf].map((f) => f.name).join(".");
  if (plan.bound.has(key)) return null; // the path binds it
  const parentKey = parents.map((f) => f.name).join(".");
  return {
    parents,
    leaf,
    key,
    oneofKey: leaf.oneof ? `${parentKey}#${leaf.oneof.name}` : undefined,
    list: leaf.fieldKind === "list",
    convert,
  };
}

// Messages are written through their plain-object shape (protobuf-es v2:
// a field is the property `localName`, a oneof member is
// `{ case: localName, value }` under the oneof's `localName`), which is what
// the reflect API does underneath, without a wrapper per message.
type Obj = Record<string, unknown>;

/** The message at the end of `parents`, creating the missing ones. */
function descend(root: Message, parents: readonly DescField[]): Obj {
  let m = root as unknown as Obj;
  for (const f of parents) {
    if (f.fieldKind !== "message") break;
    let child: Obj | undefined;
    if (f.oneof) {
      const o = m[f.oneof.localName] as { case: string | undefined; value?: unknown };
      if (o.case === f.localName) child = o.value as Obj;
      else {
        child = create(f.message) as unknown as Obj;
        m[f.oneof.localName] = { case: f.localName, value: child };
      }
    } else {
      child = m[f.localName] as Obj | undefined;
      if (child === undefined) {
        child = create(f.message) as unknown as Obj;
        m[f.localName] = child;
      }
    }
    m = child;
  }
  return m;
}

/** Sets a singular field to an already converted value. */
function setLeaf(m: Obj, f: DescField, value: FieldValue): void {
  if (f.fieldKind === "message") {
    // Wrappers are unboxed and Struct is a JsonObject in a field: let the
    // reflect API map the message to the field's local form.
    reflect(f.parent, m as unknown as Message, false).set(f, reflect(f.message, value as Message, false));
  } else if (f.oneof) m[f.oneof.localName] = { case: f.localName, value };
  else m[f.localName] = value;
}

const MALFORMED_ESCAPE = /%(?![0-9A-Fa-f]{2})/;

/** Decodes one query component: "+" is a space, then %XX (UTF-8). */
function decodeComponent(raw: string, what: string): string {
  const s = raw.includes("+") ? raw.replace(/\+/g, " ") : raw;
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    throw new RpcError(Code.INVALID_ARGUMENT, `malformed percent-escape in query parameter ${what}`, [
      badRequest([{ field: what, description: "malformed percent-escape" }]),
    ]);
  }
}

function invalidParam(name: string, value: string, why: string, what = "value"): RpcError {
  return new RpcError(Code.INVALID_ARGUMENT, `invalid ${what} ${quote(value)} for query parameter "${name}": ${why}`, [
    badRequest([{ field: name, description: why }]),
  ]);
}

function convertParam(t: QueryTarget, name: string, value: string): FieldValue {
  try {
    return t.convert(value);
  } catch (e) {
    if (e instanceof ValueError) throw invalidParam(name, value, e.message, e.what);
    throw e;
  }
}

function applyQuery(plan: RoutePlan, root: Message, query: string, commaLists: boolean): void {
  if (query.includes("%") && MALFORMED_ESCAPE.test(query)) {
    throw new RpcError(Code.INVALID_ARGUMENT, "malformed percent-escape in the query string");
  }
  let given: Map<string, string> | undefined;
  for (const part of query.split("&")) {
    if (part === "") continue;
    const eq = part.indexOf("=");
    const rawName = eq < 0 ? part : part.slice(0, eq);
    const rawValue = eq < 0 ? "" : part.slice(eq + 1);
    const name = decodeComponent(rawName, quote(rawName));
    const t = resolveQueryName(plan, name);
    if (t === null) continue;
    if (t.list) {
      const parent = descend(root, t.parents);
      const leaf = t.leaf;
      if (leaf.fieldKind === "list" && leaf.listKind === "message") {
        // Message elements (Timestamp, wrappers...) through the reflect API.
        const rl = reflect(leaf.parent, parent as unknown as Message, false).get(leaf);
        for (const r of commaLists ? rawValue.split(",") : [rawValue]) {
          rl.add(reflect(leaf.message, convertParam(t, name, decodeComponent(r, `"${name}"`)) as Message, false));
        }
        continue;
      }
      const list = parent[leaf.localName] as FieldValue[];
      if (commaLists && rawValue.includes(",")) {
        for (const r of rawValue.split(",")) list.push(convertParam(t, name, decodeComponent(r, `"${name}"`)));
      } else {
        list.push(convertParam(t, name, decodeComponent(rawValue, `"${name}"`)));
      }
      continue;
    }
    given ??= new Map();
    const before = given.get(t.key);
    if (before !== undefined) {
      const also = before === name ? "" : ` (also given as "${before}")`;
      throw new RpcError(Code.INVALID_ARGUMENT, `query parameter "${name}" is given more than once${also}; the field is not repeated`, [
        badRequest([{ field: name, description: "given more than once for a singular field" }]),
      ]);
    }
    given.set(t.key, name);
    if (t.oneofKey !== undefined) {
      const other = given.get(t.oneofKey);
      if (other !== undefined) {
        throw new RpcError(
          Code.INVALID_ARGUMENT,
          `query parameters "${other}" and "${name}" set two members of the oneof ${t.leaf.oneof!.name}`,
          [badRequest([{ field: name, description: `another member of oneof ${t.leaf.oneof!.name} is already set` }])],
        );
      }
      given.set(t.oneofKey, name);
    }
    const value = convertParam(t, name, decodeComponent(rawValue, `"${name}"`));
    setLeaf(descend(root, t.parents), t.leaf, value);
  }
}

function applyPath(plan: RoutePlan, root: Message, variables: Readonly<Record<string, string>>): void {
  for (const p of plan.paths) {
    if (!Object.hasOwn(variables, p.name)) continue;
    const text = variables[p.name]!;
    let value: FieldValue;
    try {
      value = p.convert(text);
    } catch (e) {
      if (!(e instanceof ValueError)) throw e;
      throw new RpcError(Code.INVALID_ARGUMENT, `invalid ${e.what} ${quote(text)} for path variable "${p.name}": ${e.message}`, [
        badRequest([{ field: p.name, description: e.message }]),
      ]);
    }
    setLeaf(descend(root, p.parents), p.leaf, value);
  }
}

function decodeBody(plan: RoutePlan, body: unknown, registry: Registry | undefined, codec: MessageJsonCodec | undefined): Message {
  if (plan.bodyField === undefined) {
    // body "*": the JSON is the request; empty or null is an empty message.
    if (body === undefined || body === null) return create(plan.input);
    if (typeof body !== "object" || Array.isArray(body)) {
      const got = Array.isArray(body) ? "an array" : typeof body;
      throw new RpcError(Code.INVALID_ARGUMENT, `the request body must be a JSON object, not ${got}`, [
        badRequest([{ field: "", description: `expected a JSON object, got ${got}` }]),
      ]);
    }
    return messageFromJson(plan.input, body as JsonValue, registry, codec);
  }
  // body "field": the JSON is that field's value (message, scalar or list).
  if (body === undefined) return create(plan.input);
  return messageFromJson(plan.input, { [plan.bodyField.jsonName]: body } as JsonValue, registry, codec);
}

/**
 * Decodes an HTTP request into the route's input message: the body first
 * (`body: "*"`: the whole request; `body: "field"`: that field; none: no
 * body is read), then the query string (unless `body` is "*"), then the path
 * variables on top, so the path wins. Throws RpcError INVALID_ARGUMENT naming
 * the parameter or field at fault. REQUIRED fields are not checked here; call
 * checkRequired on the result.
 */
export function decodeRequest(route: RouteBinding, input: DecodeRequestInput, options?: DecodeOptions): Message {
  const plan = routePlan(route);
  const codec = routeCodecs(route, options)?.input;
  // A generated reader given no fields makes the message create() makes, without reflection.
  const msg = route.body === "" ? (codec?.read(NO_FIELDS) ?? create(plan.input)) : decodeBody(plan, input.body, options?.registry, codec);
  const hasQuery = plan.readQuery && input.query !== "";
  if (!hasQuery && plan.paths.length === 0) return msg;
  if (hasQuery) applyQuery(plan, msg, input.query, options?.commaLists === true);
  applyPath(plan, msg, input.variables);
  return msg;
}

const outputFields = new WeakMap<RouteBinding, DescField | null>();

function responseField(route: RouteBinding): DescField | null {
  let f = outputFields.get(route);
  if (f === undefined) {
    f = null;
    if (route.responseBody !== "") {
      f = route.output.fields.find((x) => x.name === route.responseBody) ?? fieldByName(route.output, route.responseBody) ?? null;
      if (f === null) throw new Error(`${route.rpc}: response_body "${route.responseBody}" is not a field of ${route.output.typeName}`);
    }
    outputFields.set(route, f);
  }
  return f;
}

/**
 * The response JSON for `result`, a message of the route's output type or
 * its init shape: its ProtoJSON, or with `response_body` only that field's
 * JSON (its default value when it is unset: "" / 0 / false / [] / {}).
 * google.protobuf.Empty is `{}`.
 */
export function encodeResponse(route: RouteBinding, result: unknown, options?: EncodeOptions): unknown {
  const schema = route.output;
  const f = responseField(route);
  if (f === null)
    return writeResult(
      schema,
      routeCodecs(route, options)?.output,
      result,
      options?.emitRequired === true,
      options?.registry,
      options?.onSkip,
    );
  const message = create(schema, result as never);
  const opts = options?.registry ? { registry: options.registry } : undefined;
  // Copy the one field into an empty message and convert that, so only that
  // field is converted.
  const src = reflect(schema, message, false);
  const copy = reflect(schema);
  const set = src.isSet(f);
  if (set) copy.set(f, src.get(f) as never);
  const implicit = !set && (f.fieldKind === "scalar" || f.fieldKind === "enum");
  const json = toJson(schema, copy.message, implicit ? { ...opts, alwaysEmitImplicit: true } : opts) as Record<string, unknown>;
  const v = json[f.jsonName];
  if (v !== undefined) return v;
  // Unset: the empty value of the field's JSON type.
  switch (f.fieldKind) {
    case "list":
      return [];
    case "map":
    case "message":
      return {};
    default:
      return null;
  }
}
