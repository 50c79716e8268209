import { ScalarType, fromBinary, getOption, type DescField, type DescMessage, type DescMethod } from "@bufbuild/protobuf";
import { BinaryReader, WireType } from "@bufbuild/protobuf/wire";
import { http } from "../gen/google/api/annotations_pb.js";
import { HttpRuleSchema, type HttpRule } from "../gen/google/api/http_pb.js";
import { parsePathTemplate, PathTemplateError, templateShape, type PathTemplate } from "a2a-http/routing";

/** One HTTP binding of an rpc, resolved against its messages. */
export interface HttpBinding {
  readonly rpc: DescMethod;
  /** "GET", "POST", ... or a custom rule's kind as written. */
  readonly method: string;
  readonly path: PathTemplate;
  readonly body: string;
  readonly responseBody: string;
  readonly additional: boolean;
}

/** A rule that cannot be served; generation stops with this message. */
export class HttpRuleError extends Error {
  override name = "HttpRuleError";
}

/**
 * Reads the `google.api.http` rule of an rpc and its `additional_bindings`,
 * and checks each binding against the request and response messages.
 * Returns [] for an rpc without a rule.
 */
export function readBindings(rpc: DescMethod): HttpBinding[] {
  const rule = httpRuleOf(rpc);
  if (rule === undefined) return [];
  const out = [toBinding(rpc, rule, false)];
  for (const extra of rule.additionalBindings) {
    if (extra.additionalBindings.length > 0) {
      throw ruleError(rpc, patternOf(extra).path, "additional_bindings must not be nested");
    }
    out.push(toBinding(rpc, extra, true));
  }
  return out;
}

/**
 * The rpc's `google.api.http` rule, decoded straight from its options'
 * unknown records, where the request's options keep extensions; undefined
 * when it has none. getOption(rpc, http) gives the same rule but builds a
 * container message per call, its create() compiled anew each time: about
 * 0.05 s of compute.proto's 795 rpcs. A rule given in several records is
 * merged, as their payloads joined are; a record of another wire type is
 * left to getOption.
 */
export function httpRuleOf(rpc: DescMethod): HttpRule | undefined {
  const records = (rpc.proto.options?.$unknown ?? []).filter((u) => u.no === http.number);
  if (records.length === 0) return undefined;
  if (records.some((u) => u.wireType !== WireType.LengthDelimited)) return getOption(rpc, http);
  const payloads = records.map((u) => new BinaryReader(u.data).bytes());
  return fromBinary(HttpRuleSchema, payloads.length === 1 ? payloads[0]! : Buffer.concat(payloads));
}

/** The key under which two bindings cannot be told apart by any router: the method and the template's shape. */
export function shapeKey(b: HttpBinding): string {
  return `${b.method.toUpperCase()} ${templateShape(b.path)}`;
}

/** Client- and bidi-streaming rpcs: HTTP/JSON has no way to carry a stream of requests. */
export function isUnservableStream(rpc: DescMethod): boolean {
  return rpc.methodKind === "client_streaming" || rpc.methodKind === "bidi_streaming";
}

/**
 * True when a variable or `*` follows the template's `**`, as in Firestore's
 * ListDocuments, whose `parent` ends in `**` before `/{collection_id}`:
 * grpc-gateway serves such a template, Envoy's transcoder refuses it.
 */
export function hasWildcardAfterDeep(path: PathTemplate): boolean {
  const deep = path.segments.findIndex((s) => s.kind === "**");
  return deep >= 0 && path.segments.slice(deep + 1).some((s) => s.kind !== "literal");
}

export function ruleError(rpc: DescMethod, template: string, reason: string): HttpRuleError {
  const t = template === "" ? "" : `template ${JSON.stringify(template)} in `;
  return new HttpRuleError(`invalid http rule on ${rpc.parent.typeName}.${rpc.name}: ${reason} (${t}${rpc.parent.file.name}.proto)`);
}

function patternOf(rule: HttpRule): { method: string; path: string } {
  const p = rule.pattern;
  switch (p.case) {
    case "get":
    case "put":
    case "post":
    case "delete":
    case "patch":
      return { method: p.case.toUpperCase(), path: p.value };
    case "custom":
      return { method: p.value.kind, path: p.value.path };
    default:
      return { method: "", path: "" };
  }
}

const httpToken = /^(?:\*|[!#$%&'*+\-.^_`|~0-9A-Za-z]+)$/;

function toBinding(rpc: DescMethod, rule: HttpRule, additional: boolean): HttpBinding {
  const { method, path: template } = patternOf(rule);
  if (method === "" && template === "") {
    throw ruleError(rpc, "", "the rule sets no pattern (get, put, post, delete, patch or custom)");
  }
  if (!httpToken.test(method)) {
    throw ruleError(rpc, template, `custom kind ${JSON.stringify(method)} is not an HTTP method token`);
  }
  let path: PathTemplate;
  try {
    path = parsePathTemplate(template);
  } catch (e) {
    if (e instanceof PathTemplateError) throw ruleError(rpc, template, e.reason);
    throw e;
  }
  const bound = new Set<string>();
  for (const v of path.variables) {
    checkPathField(rpc, template, v.fieldPath);
    bound.add(v.fieldPath.join("."));
  }
  const body = rule.body;
  if (body !== "" && body !== "*") {
    const field = rpc.input.fields.find((f) => f.name === body);
    if (!field) {
      throw ruleError(rpc, template, `body ${JSON.stringify(body)} is not a field of ${rpc.input.typeName}`);
    }
    if (bound.has(body)) {
      throw ruleError(rpc, template, `body field ${JSON.stringify(body)} is also bound by the path`);
    }
  }
  if (body !== "" && (method === "GET" || method === "HEAD")) {
    throw ruleError(rpc, template, `a ${method} binding cannot have a body (fetch refuses to send one)`);
  }
  const responseBody = rule.responseBody;
  if (responseBody !== "" && !rpc.output.fields.some((f) => f.name === responseBody)) {
    throw ruleError(rpc, template, `response_body ${JSON.stringify(responseBody)} is not a field of ${rpc.output.typeName}`);
  }
  return { rpc, method, path, body, responseBody, additional };
}

/** Resolves a path variable's field path; the last field must be a singular scalar or enum. */
function checkPathField(rpc: DescMethod, template: string, fieldPath: readonly string[]): void {
  let message: DescMessage = rpc.input;
  let field: DescField | undefined;
  for (let i = 0; i < fieldPath.length; i++) {
    const name = fieldPath[i]!;
    field = message.fields.find((f) => f.name === name);
    const sofar = fieldPath.slice(0, i + 1).join(".");
    if (!field) {
      throw ruleError(rpc, template, `path variable "${sofar}" is not a field of ${message.typeName}`);
    }
    const last = i === fieldPath.length - 1;
    if (field.fieldKind === "list" || field.fieldKind === "map") {
      throw ruleError(rpc, template, `path variable "${sofar}" is a ${field.fieldKind} field; it must be singular`);
    }
    if (!last) {
      if (field.fieldKind !== "message") {
        throw ruleError(rpc, template, `path variable "${fieldPath.join(".")}" goes through "${sofar}", which is not a message`);
      }
      message = field.message;
    } else if (field.fieldKind === "message") {
      throw ruleError(
        rpc,
        template,
        `path variable "${sofar}" is a message field (${field.message.typeName}); it must be a scalar or enum`,
      );
    } else if (field.fieldKind === "scalar" && field.scalar === ScalarType.BYTES) {
      throw ruleError(rpc, template, `path variable "${sofar}" is a bytes field; it must be a string, number, bool or enum`);
    }
  }
}
