// JSON-RPC's method table: the route table's rpcs by method name (the
// proto's, and under A2A the spec text's spellings), A2A v0.3's methods when
// v0.3 is served, and which of them a request's A2A-Version reaches.
import type { DescMessage } from "@bufbuild/protobuf";
import { A2A_DEFAULT_VERSIONS, A2A_JSONRPC_METHOD_ALIASES, a2aVersionCheck, a2aVersionMatcher, requestedA2AVersion } from "../a2a.js";
import { servesV03 } from "../a2a-v03/common.js";
import { A2A_V03_JSONRPC } from "../a2a-v03/jsonrpc.js";
import type { MessageJsonCodec } from "../codegen/index.js";
import type { RpcError } from "../errors.js";
import type { RouteBinding } from "../route-binding.js";
import type { UniversalServerRequest } from "../server/request.js";
import { pathBoundFields, tenantFieldOf } from "../tenant.js";
import { routeCodecs } from "../transcoding/message-json.js";
import type { JsonRpcDialect, JsonRpcDialectMethod } from "./dialect.js";
import type { JsonRpcHandlerOptions } from "./server.js";

/** One rpc as JSON-RPC sees it. */
export interface JsonRpcMethod {
  readonly name: string;
  readonly rpc: string;
  /** Its first HTTP binding, handed to the context factory. */
  readonly route: RouteBinding;
  readonly input: DescMessage;
  readonly output: DescMessage;
  readonly streaming: boolean;
  /** The input's top-level string `tenant` field (A2A), when it has one. */
  readonly tenantField: string | undefined;
  /** The fields an HTTP binding of the rpc puts in one path segment (A2A): checked as the path checks them. */
  readonly pathBound: readonly { name: string; localName: string }[];
  /** The route table's generated JSON codecs, unless turned off. */
  readonly json: { input?: MessageJsonCodec; output?: MessageJsonCodec } | undefined;
}

/** A method of the dialect: the rpc it calls and its translations. */
export interface DialectMethod {
  readonly method: JsonRpcMethod;
  readonly tr: JsonRpcDialectMethod;
}

/** What a request's A2A-Version allows (see {@link MethodTable.versionOf}). */
export interface RequestVersion {
  readonly error: RpcError | undefined;
  /** The version is the dialect's: its methods are served. */
  readonly dialect: boolean;
}

const SERVED: RequestVersion = { error: undefined, dialect: false };

/** The methods a handler serves. */
export interface MethodTable {
  readonly methods: ReadonlyMap<string, JsonRpcMethod>;
  /** A2A v0.3's JSON-RPC (a2a-v03/jsonrpc.ts), when the handler serves it. */
  readonly dialect: JsonRpcDialect | undefined;
  readonly dialectMethods: ReadonlyMap<string, DialectMethod>;
  /**
   * What the request's A2A-Version allows: `error`, the error every request
   * of the body gets unless `dialect` (the version's own methods) serves it.
   */
  versionOf(req: UniversalServerRequest): RequestVersion;
}

/** The method table of a route table's rpcs on these handlers. */
export function methodTable(
  routes: readonly RouteBinding[],
  handlers: object,
  options: Pick<JsonRpcHandlerOptions, "profile" | "a2aV03" | "a2aVersions" | "jsonCodec">,
): MethodTable {
  const a2a = options.profile === "a2a";
  const methods = new Map<string, JsonRpcMethod>();
  for (const r of routes) {
    const name = r.descriptor.name;
    if (methods.has(name)) continue;
    methods.set(name, {
      name,
      rpc: r.rpc,
      route: r,
      input: r.input,
      output: r.output,
      streaming: r.streaming === "server",
      tenantField: a2a ? tenantFieldOf(r.input) : undefined,
      pathBound: a2a ? pathBoundFields(routes, r.rpc) : [],
      json: routeCodecs(r, options),
    });
  }
  // The spec text's spellings of a method, beside the proto's.
  if (a2a) {
    for (const [alias, name] of A2A_JSONRPC_METHOD_ALIASES) {
      const m = methods.get(name);
      if (m && !methods.has(alias)) methods.set(alias, m);
    }
  }
  // A2A v0.3's methods, for requests that speak it (a2a-v03/jsonrpc.ts).
  const dialect: JsonRpcDialect | undefined = servesV03(a2a, routes[0]?.descriptor.parent.typeName, options.a2aV03, handlers)
    ? A2A_V03_JSONRPC
    : undefined;
  const dialectMethods = new Map<string, DialectMethod>();
  if (dialect) {
    for (const [name, tr] of dialect.methods) {
      const m = methods.get(tr.rpc);
      if (m) dialectMethods.set(name, { method: m, tr });
    }
  }
  return { methods, dialect, dialectMethods, versionOf: versionRule(a2a, dialect, options.a2aVersions ?? A2A_DEFAULT_VERSIONS) };
}

function versionRule(a2a: boolean, dialect: JsonRpcDialect | undefined, versions: readonly string[]): MethodTable["versionOf"] {
  if (!a2a) return () => SERVED;
  const versionCheck = a2aVersionCheck(versions);
  const speaksDialect = dialect ? a2aVersionMatcher([dialect.version]) : () => false;
  return (req) => {
    const requested = requestedA2AVersion(req.header("a2a-version"), req.rawQuery);
    // A dialect's request is answered without building the error it needs only for a method outside the dialect.
    if (speaksDialect(requested))
      return {
        dialect: true,
        get error() {
          return versionCheck(requested);
        },
      };
    const error = versionCheck(requested);
    return error === undefined ? SERVED : { error, dialect: false };
  };
}
