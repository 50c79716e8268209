// The client of a lean generated file (plugin option `client=lean`): its
// route table names the generated message tables of lean-json.ts instead of
// protobuf-es schemas; the planning sees them as ClientMessages and the
// messages are written and read by lean-json.ts, so that nothing here reaches
// a protobuf-es value.
import type { ClientField, ClientMessage, ClientRoute } from "../route-binding.js";
import {
  kindOf,
  readLean,
  writeLean,
  type LeanEnum,
  type LeanField,
  type LeanMessage,
  type LeanScalar,
  type LeanWkt,
} from "./lean-json.js";
import type { ClientOptions, ClientProfile } from "./options.js";
import { createCodecClient } from "./route-client.js";
import { protoNameOf } from "../proto-name.js";

/**
 * A binding of a lean generated route table: a ClientRoute written short
 * (defaults left out, the template's parts as plain arrays), whose input and
 * output are lean message tables.
 */
export interface LeanRoute {
  /** The rpc's proto name. */
  readonly name: string;
  /** The rpc's local name, lowerCamel, when it is not {@link leanRpcName} of the proto name. */
  readonly rpc?: string;
  /** Its idempotency option, when set (google.protobuf.MethodOptions.IdempotencyLevel). */
  readonly idempotency?: number;
  readonly method: string;
  /**
   * The template: its segments (a literal's text, or `*`, `**`), its verb,
   * and its variables as [field path, first segment, end segment,
   * multi-segment]. Its text, which the client's errors quote, is
   * {@link leanTemplate} of these: "{tenant=*}" is written "{tenant}".
   */
  readonly path: readonly [segments: readonly string[], verb: string, variables: readonly LeanVariable[]];
  /** The rule's `body`; none when left out. */
  readonly body?: string;
  /** The rule's `response_body`; the whole response when left out. */
  readonly responseBody?: string;
  readonly streaming?: "server";
  /** One of the rule's additional_bindings. */
  readonly additional?: 1;
  /**
   * The field path of a variable the same binding is also served under, as
   * the additional binding that follows it ({@link leanUnder}): one row for
   * `/tasks/{id}` and `/{tenant}/tasks/{id}`.
   */
  readonly under?: readonly string[];
  readonly input: LeanMessage;
  readonly output: LeanMessage;
}

/** A template variable of a {@link LeanRoute}: [field path, first segment, end segment, multi-segment]. */
export type LeanVariable = readonly [fieldPath: readonly string[], start: number, end: number, multiSegment?: 1];

/** The rpc's local name from its proto name, as protobuf-es makes it for an UpperCamel name ("GetTask": "getTask"). */
export const leanRpcName = (name: string): string => name[0]!.toLowerCase() + name.slice(1);

/**
 * A template's text from its parts (the text a lean route table leaves out):
 * "/tasks/{id}:cancel", "/{name=shelves/*}". The same template as the
 * proto's, which may write `{id=*}` for `{id}`.
 */
function leanTemplate(segments: readonly string[], verb: string, variables: readonly LeanVariable[]): string {
  const parts = [...segments];
  // From the last variable back, so that the indices of the earlier ones hold.
  for (const [path, start, end] of [...variables].sort((a, b) => b[1] - a[1])) {
    const pattern = parts.slice(start, end).join("/");
    parts.splice(start, end - start, `{${path.join(".")}${pattern === "*" ? "" : `=${pattern}`}}`);
  }
  return `/${parts.join("/")}${verb === "" ? "" : `:${verb}`}`;
}

/**
 * A path (a {@link LeanRoute}'s) under one more leading single-segment
 * variable `{fieldPath}`: "/tasks/{id}" under tenant is "/{tenant}/tasks/{id}".
 */
export function leanUnder(path: LeanRoute["path"], fieldPath: readonly string[]): LeanRoute["path"] {
  const [segments, verb, variables] = path;
  return [
    ["*", ...segments],
    verb,
    [[fieldPath, 0, 1], ...variables.map(([p, start, end, ...multi]): LeanVariable => [p, start + 1, end + 1, ...multi])],
  ];
}

/** The rows of a lean route table with each `under` written out as its own additional binding, in proto order. */
function leanBindings(routes: readonly LeanRoute[]): LeanRoute[] {
  return routes.flatMap((r) => (r.under ? [r, { ...r, path: leanUnder(r.path, r.under), additional: 1 as const }] : [r]));
}

interface Planned extends ClientRoute {
  readonly lean: LeanRoute;
}

/**
 * `createRouteClient` for a lean route table: the same client (both
 * bindings, v0.3 agents, SSE, errors, interceptors, retries). `registry`
 * serves google.protobuf.Any alone (the one type read by reflection);
 * `jsonCodec` is not read.
 */
export function createLeanClient<T>(service: string, routes: readonly LeanRoute[], options: ClientOptions, profile: ClientProfile = {}): T {
  const parent = { typeName: service };
  // The registry reaches google.protobuf.Any alone (lean-any.ts).
  const leanOptions = options.registry === undefined ? undefined : { registry: options.registry };
  const planned = leanBindings(routes).map((r): Planned => {
    const [segments, verb, variables] = r.path;
    const template = leanTemplate(segments, verb, variables);
    return {
      rpc: r.rpc ?? leanRpcName(r.name),
      descriptor: { name: r.name, parent, idempotency: r.idempotency ?? 0 },
      method: r.method,
      template,
      path: {
        template,
        segments: segments.map((s) => (s === "*" || s === "**" ? { kind: s } : { kind: "literal", value: s })),
        verb,
        variables: variables.map(([fieldPath, start, end, multi]) => ({ fieldPath, start, end, multiSegment: multi === 1 })),
      },
      body: r.body ?? "",
      responseBody: r.responseBody ?? "",
      streaming: r.streaming ?? "unary",
      input: clientMessage(r.input),
      output: clientMessage(r.output),
      binding: r.additional ? "additional" : "primary",
      lean: r,
    };
  });
  return createCodecClient<T, Planned>(
    planned,
    ({ lean }) => ({
      write: (request) => writeLean(lean.input, request, 1, leanOptions),
      read: (json) => readLean(lean.output, json, 1, leanOptions),
    }),
    options,
    profile,
  );
}

const planned = new WeakMap<LeanMessage, ClientMessage>();

/** A lean message table as the planning reads it (names, JSON names, kinds); nested types on first use. */
function clientMessage(m: LeanMessage): ClientMessage {
  let out = planned.get(m);
  if (out === undefined) {
    const fields: ClientField[] = [];
    out = { typeName: m.typeName, fields };
    planned.set(m, out);
    for (const f of m.fields) fields.push(clientField(f));
  }
  return out;
}

function clientField(f: LeanField): ClientField {
  const names = { name: f.p ?? protoNameOf(f.j), jsonName: f.j };
  if (f.c === "m") return { ...names, fieldKind: "map" };
  const t = f.t as Partial<LeanScalar & LeanWkt & { e: LeanEnum }>;
  const kind = kindOf(f.t);
  const scalar = kind === "lean" ? t.scalar : kind === "scalar" ? (f.t as number) : undefined;
  if (f.c === "l" && (scalar !== undefined || kind === "enum"))
    return { ...names, fieldKind: "list", listKind: scalar === undefined ? "enum" : "scalar" };
  if (scalar !== undefined) return { ...names, fieldKind: "scalar", scalar };
  if (kind === "enum") return { ...names, fieldKind: "enum", enum: { values: [{ name: t.e![0] as string }] } };
  // A well-known type (a wrapper too) has no fields to plan with: the planning sends it whole, as its ProtoJSON.
  let message: ClientMessage | undefined;
  return {
    ...names,
    ...(f.c === "l" ? { fieldKind: "list", listKind: "message" } : { fieldKind: "message" }),
    // Resolved on first read (types may refer to each other).
    get message() {
      return (message ??= kind === "message" ? clientMessage((f.t as () => LeanMessage)()) : { typeName: t.typeName!, fields: [] });
    },
  } as ClientField;
}
