// What the HTTP+JSON handler works out once from its route table, handlers
// and options, and every request reads: the table and its router, A2A
// v0.3's routes, the limits, the codec options, the answers' headers, the
// error handling and the context factory; and the error answer.
import { servesV03 } from "../a2a-v03/common.js";
import { A2A_V03_REST } from "../a2a-v03/rest.js";
import {
  A2A_DEFAULT_VERSIONS,
  A2A_MEDIA_TYPE,
  JSON_MEDIA_TYPE,
  a2aVersionCheck,
  a2aVersionMatcher,
  isA2ABodyType,
  withSubscribePostTwins,
} from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import { parsePathTemplate } from "../path-template.js";
import type { RouteBinding } from "../route-binding.js";
import { createRouter, type Router } from "../router.js";
import { tenantFieldOf } from "../tenant.js";
import type { DecodeOptions, EncodeOptions } from "../transcoding/index.js";
import type { BodyTypes, ContextFactory } from "./call-setup.js";
import { errorAnswers, type ErrorAnswers } from "./error-answer.js";
import type { HttpDialect, HttpDialectRoute } from "./http-dialect.js";
import type { HttpHandlerOptions } from "./http-json.js";
import { createHostCheck } from "./hosts.js";
import { DEFAULT_BODY_LIMIT, onErrorOf, type ServerErrorInfo } from "./options.js";
import { withHandlerHeaders, type ResponseHeaders, type UniversalServerResponse } from "./request.js";
import { DEFAULT_KEEP_ALIVE_MS } from "./sse.js";

/** A route of a dialect, bound to the service's rpc. */
export type DialectBinding = RouteBinding & { readonly dialect: HttpDialectRoute };

/** A dialect's routes bound to the service's rpcs, with their router. */
export interface BoundDialect {
  readonly dialect: HttpDialect;
  readonly router: Router;
  readonly bindings: readonly DialectBinding[];
  /** Whether a request's A2A-Version is the dialect's. */
  readonly speaks: (requested: string) => boolean;
}

/** An HTTP+JSON handler's state, made once. */
export interface HttpBinding {
  readonly a2a: boolean;
  readonly handlers: object;
  /** The route table, under A2A with the subscribe rpcs' POST twins. */
  readonly table: readonly RouteBinding[];
  readonly router: Router;
  /** A2A v0.3's `/v1/...` routes, when the handler serves v0.3 (a2a-v03/rest.ts). */
  readonly v03: BoundDialect | undefined;
  readonly bodyLimit: number;
  readonly bodyTypes: BodyTypes;
  readonly maxElements: number | undefined;
  readonly decodeOptions: DecodeOptions;
  readonly encodeOptions: EncodeOptions;
  /** The headers of a JSON answer: its Content-Type. */
  readonly jsonHeaders: ResponseHeaders;
  /** The `Allow` of `OPTIONS *`: every method the table serves. */
  readonly allMethods: string;
  readonly versionError: ReturnType<typeof a2aVersionCheck>;
  readonly errors: ErrorAnswers;
  readonly context: ContextFactory<unknown> | undefined;
  readonly unaryTimeoutMs: number | undefined;
  readonly keepAliveMs: number;
  readonly hostCheck: ReturnType<typeof createHostCheck>;
  /** A2A: each route's top-level `tenant` field, where a tenant from the query or body can land. */
  readonly tenantFields: ReadonlyMap<RouteBinding, string | undefined>;
}

/** HTTP+JSON's body types (see call-setup.ts's checkBodyType): any JSON type (`application/*+json`). */
const JSON_BODY_TYPES: BodyTypes = {
  accepts: (type) => type === JSON_MEDIA_TYPE || (type.startsWith("application/") && type.endsWith("+json")),
  send: JSON_MEDIA_TYPE,
  missing: `a request with a body needs Content-Type: ${JSON_MEDIA_TYPE}`,
  refuse: (message) => new RpcError(Code.INVALID_ARGUMENT, message, [], { httpStatus: 415 }),
};

/** Under the A2A profile: JSON and A2A's JSON. */
const A2A_BODY_TYPES: BodyTypes = {
  ...JSON_BODY_TYPES,
  accepts: isA2ABodyType,
  send: `${JSON_MEDIA_TYPE} or ${A2A_MEDIA_TYPE}`,
  missing: `a request with a body needs Content-Type: ${JSON_MEDIA_TYPE} or ${A2A_MEDIA_TYPE}`,
};

/** The state of a handler over these routes, handlers and options. */
export function httpBinding(routes: readonly RouteBinding[], handlers: object, options: HttpHandlerOptions): HttpBinding {
  const a2a = options.profile === "a2a";
  const table = a2a ? withSubscribePostTwins(routes) : [...routes];
  const errors = errorAnswers(onErrorOf(options), a2a);
  const jsonCodec = options.jsonCodec ?? "generated";
  // A2A's REQUIRED response fields (nextPageToken: "", ...) go on the wire even at their defaults.
  // A list item that cannot be written (a Task holding NaN) is left out and reported, not a 500 for the whole list.
  const onSkip = (e: unknown) => errors.report(e, { rpc: undefined, phase: "unary" });
  const tenantFields = new Map<RouteBinding, string | undefined>();
  if (a2a) for (const r of table) tenantFields.set(r, tenantFieldOf(r.input));
  return {
    a2a,
    handlers,
    table,
    router: createRouter(table),
    v03: servesV03(a2a, routes[0]?.descriptor.parent.typeName, options.a2aV03, handlers) ? bindDialect(A2A_V03_REST, table) : undefined,
    bodyLimit: options.bodyLimit ?? DEFAULT_BODY_LIMIT,
    bodyTypes: a2a ? A2A_BODY_TYPES : JSON_BODY_TYPES,
    maxElements: options.maxElements,
    decodeOptions: a2a ? { commaLists: true, jsonCodec } : { jsonCodec },
    encodeOptions: a2a ? { emitRequired: true, jsonCodec, onSkip } : { jsonCodec, onSkip },
    jsonHeaders: { "content-type": options.responseType ?? (a2a ? A2A_MEDIA_TYPE : JSON_MEDIA_TYPE) },
    allMethods: allowHeader([...new Set(table.map((r) => r.method.toUpperCase()).filter((m) => m !== "*"))]),
    versionError: a2aVersionCheck(options.a2aVersions ?? A2A_DEFAULT_VERSIONS),
    errors,
    context: options.context as ContextFactory<unknown> | undefined,
    unaryTimeoutMs: options.unaryTimeoutMs,
    keepAliveMs: options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS,
    hostCheck: createHostCheck(options.allowedHosts, a2a),
    tenantFields,
  };
}

/** Binds a dialect's routes to the route table's rpcs (by proto name); routes to rpcs the table lacks are left out. */
function bindDialect(dialect: HttpDialect, table: readonly RouteBinding[]): BoundDialect {
  const bindings: DialectBinding[] = [];
  for (const d of dialect.routes) {
    const r = table.find((t) => t.descriptor.name === d.rpc && t.binding === "primary") ?? table.find((t) => t.descriptor.name === d.rpc);
    if (r === undefined) continue;
    bindings.push({
      ...r,
      method: d.method,
      template: d.template,
      path: parsePathTemplate(d.template),
      body: d.body ? "*" : "",
      responseBody: "",
      dialect: d,
    });
  }
  return { dialect, router: createRouter(bindings), bindings, speaks: a2aVersionMatcher([dialect.version]) };
}

/** An error as the answer: its status and google.rpc.Status JSON, with the headers the call set. */
export function errorResponse(
  b: HttpBinding,
  e: unknown,
  rpc: string | undefined,
  extra?: Headers,
  phase: ServerErrorInfo["phase"] = "unary",
): UniversalServerResponse {
  const { status, json, retryAfter } = b.errors.statusJson(e, rpc, phase);
  const headers = withHandlerHeaders(b.jsonHeaders, extra);
  return { status, headers: retryAfter === undefined ? headers : { ...headers, "retry-after": retryAfter }, body: json };
}

/** The `Allow` value for the methods a path is served with: HEAD beside GET, and OPTIONS. */
export function allowHeader(methods: readonly string[]): string {
  const out = new Set(methods);
  if (out.has("GET")) out.add("HEAD");
  out.add("OPTIONS");
  return [...out].sort().join(", ");
}
