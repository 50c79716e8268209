// The JSON-RPC 2.0 binding (A2A spec §9) over the same handler object as
// HTTP+JSON: one POST endpoint, method names as the proto's rpc names,
// `params` the request's ProtoJSON, `result` the response's; server streams
// as text/event-stream whose events are JSON-RPC responses with the request's id.
import { create, type DescMessage, type JsonValue, type Message } from "@bufbuild/protobuf";
import {
  A2A_DEFAULT_VERSIONS,
  A2A_DOMAIN,
  A2A_JSONRPC_METHOD_ALIASES,
  JSON_MEDIA_TYPE,
  a2aVersionCheck,
  isA2ABodyType,
  a2aVersionMatcher,
  parseA2AExtensions,
  requestedA2AVersion,
} from "../a2a.js";
import { checkRequired } from "../transcoding/required.js";
import { checkJson, findForbiddenKey } from "../transcoding/bounds.js";
import { jsonError } from "../transcoding/json.js";
import { readLenient, routeCodecs, writeResult } from "../transcoding/message-json.js";
import type { MessageJsonCodec } from "../codegen/index.js";
import { Code, RpcError, errorInfo, isRpcError } from "../errors.js";
import { A2A_V03_JSONRPC } from "../a2a-v03/jsonrpc.js";
import { servesV03 } from "../a2a-v03/common.js";
import type { JsonRpcDialect, JsonRpcDialectMethod } from "./dialect.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import {
  applyContext,
  checkBodyType,
  handlerOf,
  notImplemented,
  refusalStatus,
  type AnyHandler,
  ContextRefusal,
  type BodyTypes,
} from "../server/call-setup.js";
import { ServerContext, type ContextInput } from "../server/context.js";
import { withDeadline, type Deadline } from "../server/deadline.js";
import { errorAnswers, streamFailure } from "../server/error-answer.js";
import type { HttpHandlerOptions } from "../server/http-json.js";
import { DEFAULT_BODY_LIMIT, onErrorOf, type ServerErrorInfo, type ServerOptions } from "../server/options.js";
import {
  isBlank,
  withHandlerHeaders,
  type ResponseHeaders,
  type UniversalHandler,
  type UniversalServerRequest,
  type UniversalServerResponse,
} from "../server/request.js";
import { DEFAULT_KEEP_ALIVE_MS, SSE_HEADERS, SseStream, startSseStream } from "../server/sse.js";
import { checkDecodedTenant, checkPathBound, checkPathValue, jsonTenant, pathBoundFields, tenantFieldOf } from "../tenant.js";
import { createHostCheck } from "../server/hosts.js";
import { stallTimeoutOf } from "../server/stall.js";
import { JsonRpcCode, toJsonRpcError, type JsonRpcErrorObject } from "./errors.js";

/**
 * Options of the JSON-RPC binding: those of HTTP+JSON (`keepAliveMs` and
 * `unaryTimeoutMs` included, see {@link ServerOptions}), plus batches.
 */
export interface JsonRpcServerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown> extends ServerOptions<Ctx, Native> {
  /**
   * The most requests one batch may hold; a larger batch is refused whole
   * with -32600. `0` refuses every batch. Default 32. Batched requests run
   * one after the other; a streaming method in a batch is refused with
   * -32600 (its answer could not be one element of a JSON array).
   */
  readonly maxBatchSize?: number;
}

/** What generated adapters pass besides the user's options. */
export interface JsonRpcHandlerOptions<Ctx extends HandlerContext = HandlerContext, Native = unknown>
  extends JsonRpcServerOptions<Ctx, Native>,
    Pick<HttpHandlerOptions<Ctx, Native>, "profile"> {}

/** One rpc as JSON-RPC sees it. */
interface JsonRpcMethod {
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

type Id = string | number | null;

/** What a request's A2A-Version allows (see versionOf). */
interface RequestVersion {
  readonly error: RpcError | undefined;
  /** The version is the dialect's: its methods are served. */
  readonly dialect: boolean;
}

const SERVED: RequestVersion = { error: undefined, dialect: false };
type JsonRpcResponse = { jsonrpc: "2.0"; id: Id; result: unknown } | { jsonrpc: "2.0"; id: Id; error: JsonRpcErrorObject };

/** What one request of a body turned into. */
type Outcome =
  | { kind: "response"; response: JsonRpcResponse; headers: Headers | undefined; status?: number }
  | { kind: "stream"; id: Id; stream: SseStream; headers: Headers | undefined }
  | { kind: "none" };

const DEFAULT_MAX_BATCH = 32;

/** What the context factory's first call, on the headers, gave: its fields and the response headers it set. */
interface Authenticated {
  readonly fields: object;
  readonly headers: Headers | undefined;
}

/** Thrown inside the handler for envelope-level errors that carry a JSON-RPC code of their own. */
class EnvelopeError extends Error {
  constructor(
    readonly rpcCode: number,
    message: string,
    readonly id: Id = null,
  ) {
    super(message);
  }
}

/**
 * Builds the framework-free JSON-RPC 2.0 handler for the rpcs of a route
 * table (the generated `<Service>Routes`). It answers POST at the mount
 * point; the rest of the request pipeline is that of HTTP+JSON: the body
 * limit, the context factory (first on the headers alone, before the body
 * is read; then once per request with its method and tenant, before its
 * params are decoded), ProtoJSON decoding with unknown fields
 * ignored, REQUIRED fields, the A2A version and extensions headers, and the
 * same error mapping (see {@link toJsonRpcError}). Every JSON-RPC answer,
 * errors included, is HTTP 200 `application/json`, except UNAUTHENTICATED and
 * PERMISSION_DENIED from the context factory (401/403), an oversized body
 * (413) and a wrong HTTP method or path (405/404). Notifications (requests
 * without `id`) are served and get no answer; a body of notifications only
 * is answered 204.
 */
export function createJsonRpcHandler<Ctx extends HandlerContext = HandlerContext, Native = unknown>(
  routes: readonly RouteBinding[],
  handlers: object,
  options: JsonRpcHandlerOptions<Ctx, Native> = {},
): UniversalHandler {
  const a2a = options.profile === "a2a";
  const methods = new Map<string, JsonRpcMethod>();
  for (const r of routes) {
    const name = r.descriptor.name;
    if (methods.has(name)) continue;
    const tenant = a2a ? tenantFieldOf(r.input) : undefined;
    methods.set(name, {
      name,
      rpc: r.rpc,
      route: r,
      input: r.input,
      output: r.output,
      streaming: r.streaming === "server",
      tenantField: tenant,
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
  const dialectMethods = new Map<string, { method: JsonRpcMethod; tr: JsonRpcDialectMethod }>();
  if (dialect) {
    for (const [name, tr] of dialect.methods) {
      const m = methods.get(tr.rpc);
      if (m) dialectMethods.set(name, { method: m, tr });
    }
  }
  const bodyLimit = options.bodyLimit ?? DEFAULT_BODY_LIMIT;
  const maxBatch = options.maxBatchSize ?? DEFAULT_MAX_BATCH;
  // §9.1: JSON-RPC requests and responses are application/json.
  const responseType = options.responseType ?? JSON_MEDIA_TYPE;
  const jsonHeaders: ResponseHeaders = { "content-type": responseType };
  const versionCheck = a2aVersionCheck(options.a2aVersions ?? A2A_DEFAULT_VERSIONS);
  const errors = errorAnswers(onErrorOf(options), a2a);
  const toRpcError = errors.toRpcError;
  const contextFactory = options.context;
  const keepAliveMs = options.keepAliveMs ?? DEFAULT_KEEP_ALIVE_MS;
  const unaryTimeoutMs = options.unaryTimeoutMs;
  const registry = undefined;
  // A list item that cannot be written is left out and reported (see writeResult).
  const onSkip = (e: unknown) => errors.report(e, { rpc: undefined, phase: "unary" });
  const bodyTypes = a2a ? A2A_BODY_TYPES : JSON_BODY_TYPES;

  function errorObject(e: unknown, rpc: string | undefined, phase: ServerErrorInfo["phase"] = "unary"): JsonRpcErrorObject {
    if (e instanceof EnvelopeError) return { code: e.rpcCode, message: e.message };
    return toJsonRpcError(toRpcError(e, rpc, phase), a2a);
  }

  function single(body: JsonRpcResponse, status = 200, extra?: Headers): UniversalServerResponse {
    return { status, headers: withHandlerHeaders(jsonHeaders, extra), body: JSON.stringify(body) };
  }

  function failure(id: Id, error: JsonRpcErrorObject, status = 200, extra?: ResponseHeaders): UniversalServerResponse {
    const res = single({ jsonrpc: "2.0", id, error }, status);
    return extra ? { ...res, headers: { ...res.headers, ...extra } } : res;
  }

  const speaksDialect = dialect ? a2aVersionMatcher([dialect.version]) : () => false;
  /**
   * What the request's A2A-Version allows: `error`, the error every request of
   * the body gets unless `dialect` (the version's own methods) serves it.
   */
  function versionOf(req: UniversalServerRequest): RequestVersion {
    if (!a2a) return SERVED;
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
  }

  /** The answer to a body that breaks transcoding/bounds.ts's rules, or undefined. */
  function jsonBounds(parsed: unknown): UniversalServerResponse | undefined {
    try {
      checkJson(parsed, options.maxElements);
      return undefined;
    } catch (e) {
      if (!isRpcError(e)) throw e;
      const id = idOf(parsed);
      // Too many elements is a 413, as a body over the size limit is.
      if (e.httpStatus === 413) return failure(id, { code: JsonRpcCode.INVALID_REQUEST, message: e.message }, 413);
      const key = findForbiddenKey(parsed);
      if (key !== undefined)
        return failure(id, {
          code: JsonRpcCode.INVALID_REQUEST,
          message: `the request has the forbidden key ${JSON.stringify(key.key)} at ${key.path}`,
        });
      return failure(id, errorObject(e, undefined));
    }
  }

  const hostCheck = createHostCheck(options.allowedHosts, a2a);
  const stallTimeoutMs = stallTimeoutOf(options.stallTimeoutMs);

  return function handle(req: UniversalServerRequest): ReturnType<UniversalHandler> {
    // A client that stops reading its answer loses the connection (stall.ts).
    req.closeWhenStalled?.(stallTimeoutMs);
    if (unaryTimeoutMs === undefined) return serve(req, undefined, undefined);
    // The deadline covers the whole POST, body and authentication included, until a method turns out to stream.
    const seen: { id: Id } = { id: null };
    return withDeadline(
      unaryTimeoutMs,
      (deadline) => serve(req, deadline, seen),
      (err) => failure(seen.id, errorObject(err, undefined)),
    );
  };

  /** Serves one POST; `seen.id` learns the id of a single request once the body is parsed (for the deadline's answer). */
  async function serve(
    req: UniversalServerRequest,
    deadline: Deadline | undefined,
    seen: { id: Id } | undefined,
  ): Promise<UniversalServerResponse> {
    const wrongHost = hostCheck?.(req.header("host"), () => req.listener?.());
    if (wrongHost !== undefined) return failure(null, errorObject(wrongHost, undefined), wrongHost.httpStatus);
    if (req.rawPath !== "/" && req.rawPath !== "") {
      return failure(
        null,
        { code: JsonRpcCode.INVALID_REQUEST, message: `no JSON-RPC endpoint at ${req.rawPath}; POST to the mount point` },
        404,
      );
    }
    if (req.method !== "POST") {
      return failure(
        null,
        { code: JsonRpcCode.INVALID_REQUEST, message: `JSON-RPC requests are POSTed, not sent with ${req.method}` },
        405,
        { allow: "POST" },
      );
    }
    // Authentication before work: the factory on the headers, before one
    // byte of the body is read (a refused credential costs no reading,
    // parsing or decoding; the adapters drain what the client still sends,
    // bounded, so that it reads the answer instead of a reset).
    if (!contextFactory) return serveBody(req, undefined, deadline, seen);
    const early = await authenticate(req);
    if (!("fields" in early)) return early;
    // What the first call set goes out with every answer, errors of the body included, under what later steps set.
    return underneath(await serveBody(req, early, deadline, seen), early.headers);
  }

  /** Reads, parses and serves the body, once the first call of the factory (if any) let it through. */
  async function serveBody(
    req: UniversalServerRequest,
    early: Authenticated | undefined,
    deadline: Deadline | undefined,
    seen: { id: Id } | undefined,
  ): Promise<UniversalServerResponse> {
    let text: string;
    try {
      text = await req.readBody(bodyLimit);
    } catch (e) {
      const err = toRpcError(e, undefined, "unary");
      return failure(null, { code: JsonRpcCode.INVALID_REQUEST, message: err.message }, err.httpStatus === 413 ? 413 : 200);
    }
    let parsed: unknown;
    try {
      checkBodyType(req.header("content-type"), bodyTypes, a2a);
      if (isBlank(text)) throw new EnvelopeError(JsonRpcCode.INVALID_REQUEST, "the request body is empty");
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
      try {
        parsed = JSON.parse(text);
      } catch (e) {
        throw new EnvelopeError(
          JsonRpcCode.PARSE_ERROR,
          `the request body is not valid JSON: ${e instanceof Error ? e.message : String(e)}`,
        );
      }
      // Forbidden keys, non-finite numbers and the element cap (transcoding/bounds.ts), before any decoding.
      const bad = jsonBounds(parsed);
      if (bad !== undefined) return bad;
    } catch (e) {
      return failure(e instanceof EnvelopeError ? e.id : null, errorObject(e, undefined));
    }
    const version = versionOf(req);
    const extensions = a2a ? parseA2AExtensions(req.header("a2a-extensions")) : [];

    if (!Array.isArray(parsed)) {
      if (seen !== undefined) seen.id = idOf(parsed);
      const out = await serveOne(req, parsed, false, version, extensions, early, deadline);
      switch (out.kind) {
        case "none":
          return { status: 204, headers: {}, body: "" };
        case "stream":
          return { status: 200, headers: withHandlerHeaders(SSE_HEADERS, out.headers), body: out.stream };
        case "response":
          return single(out.response, out.status ?? 200, out.headers);
      }
    }
    if (parsed.length === 0) return failure(null, { code: JsonRpcCode.INVALID_REQUEST, message: "an empty batch is not a request" });
    if (maxBatch === 0)
      return failure(null, { code: JsonRpcCode.INVALID_REQUEST, message: "batches are not served here; send one request per POST" });
    if (parsed.length > maxBatch) {
      return failure(null, {
        code: JsonRpcCode.INVALID_REQUEST,
        message: `a batch may hold at most ${maxBatch} requests, this one has ${parsed.length}`,
      });
    }
    const answers: JsonRpcResponse[] = [];
    let headers: Headers | undefined;
    for (const item of parsed) {
      const out = await serveOne(req, item, true, version, extensions, early, deadline);
      if (out.kind !== "response") continue;
      answers.push(out.response);
      headers = combine(headers, out.headers);
    }
    if (answers.length === 0) return { status: 204, headers: {}, body: "" };
    return { status: 200, headers: withHandlerHeaders(jsonHeaders, headers), body: JSON.stringify(answers) };
  }

  /**
   * The context factory's first call, on the headers alone (no rpc, route or
   * tenant: they are in the body), or the answer to its refusal: id null, as
   * no request was read; 401/403 for UNAUTHENTICATED/PERMISSION_DENIED, with
   * the headers it set (WWW-Authenticate).
   */
  async function authenticate(req: UniversalServerRequest): Promise<Authenticated | UniversalServerResponse> {
    let set: Headers | undefined;
    const input: ContextInput<Native> = {
      rpc: undefined,
      route: undefined,
      tenant: undefined,
      headers: req.headers,
      signal: req.signal,
      get responseHeaders() {
        return (set ??= new Headers());
      },
      native: req.native as Native,
    };
    const fields = {};
    let refused: ContextRefusal | undefined;
    try {
      const r = applyContext(contextFactory!, input, fields);
      refused = r instanceof Promise ? await r : r;
    } catch (e) {
      refused = new ContextRefusal(e);
    }
    if (refused === undefined) return { fields, headers: set };
    const err = toRpcError(refused.error, undefined, "context");
    return single({ jsonrpc: "2.0", id: null, error: errorObject(err, undefined) }, refusalStatus(err) ?? 200, set);
  }

  /** Serves one request object of a body (the body itself, or one element of a batch). */
  async function serveOne(
    req: UniversalServerRequest,
    item: unknown,
    inBatch: boolean,
    version: RequestVersion,
    extensions: readonly string[],
    early: Authenticated | undefined,
    deadline: Deadline | undefined,
  ): Promise<Outcome> {
    // 1. The envelope. A malformed one is answered even without an id (JSON-RPC §5).
    if (typeof item !== "object" || item === null || Array.isArray(item)) {
      return answerError(null, { code: JsonRpcCode.INVALID_REQUEST, message: "a JSON-RPC request is a JSON object" });
    }
    const o = item as Record<string, unknown>;
    const notification = !("id" in o);
    const id = o["id"];
    if (!notification && !(typeof id === "string" || (typeof id === "number" && Number.isFinite(id)) || id === null)) {
      return answerError(null, { code: JsonRpcCode.INVALID_REQUEST, message: "the id must be a string, a number or null" });
    }
    const rid = (notification ? null : id) as Id;
    if (o["jsonrpc"] !== "2.0") {
      return answerError(rid, { code: JsonRpcCode.INVALID_REQUEST, message: 'the request must have "jsonrpc": "2.0"' });
    }
    if (typeof o["method"] !== "string") {
      return answerError(rid, { code: JsonRpcCode.INVALID_REQUEST, message: "the method must be a string" });
    }
    // The version first (§3.6.2): a v1.0 method without A2A-Version is refused as such, a v0.3 one
    // served; a name of neither is not found when v0.3 is served, and a version not served at all is refused.
    const spoken = version.dialect ? dialectMethods.get(o["method"]) : undefined;
    const tr = spoken?.tr;
    const own = spoken === undefined ? methods.get(o["method"]) : undefined;
    const method = spoken?.method ?? own;
    const answer = (r: JsonRpcResponse, headers?: Headers): Outcome =>
      notification ? { kind: "none" } : { kind: "response", response: r, headers };
    const fail = (e: unknown, rpc: string | undefined, headers?: Headers): Outcome =>
      answer({ jsonrpc: "2.0", id: rid, error: errorObject(e, rpc) }, headers);
    if (spoken === undefined && version.error && (own !== undefined || !version.dialect)) return fail(version.error, own?.rpc);
    if (method === undefined) {
      return answer({
        jsonrpc: "2.0",
        id: rid,
        error: {
          code: JsonRpcCode.METHOD_NOT_FOUND,
          message: `method not found: ${JSON.stringify(o["method"])}`,
          // §9.5: data is a list of typed details.
          data: a2a ? [errorInfo("METHOD_NOT_FOUND", A2A_DOMAIN, { method: o["method"] })] : { method: o["method"] },
        },
      });
    }
    if (method.streaming && (inBatch || notification)) {
      return answer({
        jsonrpc: "2.0",
        id: rid,
        error: { code: JsonRpcCode.INVALID_REQUEST, message: `${method.name} streams its answer; send it alone, with an id` },
      });
    }
    const fn = handlerOf(handlers, method.rpc);
    if (fn === undefined) return fail(notImplemented(method.route, a2a), method.rpc);
    // A stream is not unary: no deadline (and the POST holds nothing else, streams are not batched).
    if (method.streaming) deadline?.lift();

    // 2. The context, before the params are decoded, with the rpc and the
    // tenant the params name (tenant.ts): the factory's second call. It runs
    // always, not only when the params name a tenant: the first call saw
    // no rpc, and a factory that refuses by rpc must see it before the
    // handler runs. The first call's fields are the base its fields replace.
    let params = o["params"];
    let ctx: ServerContext;
    try {
      if (tr) params = tr.params(params ?? {});
      if (params !== undefined && params !== null && (typeof params !== "object" || Array.isArray(params))) {
        throw new RpcError(
          Code.INVALID_ARGUMENT,
          `params must be a JSON object (${method.input.typeName}), not ${Array.isArray(params) ? "an array" : typeof params}`,
        );
      }
      const raw = method.tenantField ? jsonTenant(params) : undefined;
      if (raw) checkPathValue("tenant", raw);
      ctx = new ServerContext(method.rpc, raw || undefined, req, extensions, method.streaming ? undefined : deadline?.signal);
      if (tr) ctx.a2aDialect = dialect!.version;
      if (early !== undefined) Object.assign(ctx, early.fields);
    } catch (e) {
      return fail(e, method.rpc);
    }
    if (contextFactory) {
      let refused: ContextRefusal | undefined;
      try {
        const r = applyContext(contextFactory, ctx.factoryInput<Native>(method.route), ctx);
        refused = r instanceof Promise ? await r : r;
      } catch (e) {
        // A merge that failed is the factory's too here.
        refused = new ContextRefusal(e);
      }
      if (refused !== undefined) {
        const err = toRpcError(refused.error, method.rpc, "context");
        if (notification) return { kind: "none" };
        const status = refusalStatus(err);
        const response: JsonRpcResponse = { jsonrpc: "2.0", id: rid, error: errorObject(err, method.rpc) };
        return status === undefined
          ? { kind: "response", response, headers: ctx.touchedHeaders() }
          : { kind: "response", response, headers: ctx.touchedHeaders(), status };
      }
    }

    // 3. The params: the request message's ProtoJSON (absent is an empty message).
    let message: Message;
    try {
      // Unlike HTTP+JSON bodies, an unknown enum name is read as unset here
      // (protobuf's ignore_unknown_fields rule): the A2A JS SDK's JSON-RPC
      // client sends `"status": "UNRECOGNIZED"` for an unset ListTasks filter
      // (test/e2e/interop/DEVIATIONS.md).
      try {
        message = params == null ? create(method.input) : readLenient(method.input, method.json?.input, params as JsonValue);
      } catch (e) {
        throw jsonError(method.input, params, e, registry);
      }
      checkRequired(method.input, message, method.json?.input?.complete);
      if (a2a) {
        // The decoded request acts for the tenant the context factory saw, and its path-bound ids pass the path's rule.
        checkDecodedTenant(message, method.tenantField, ctx.tenant, "params", "params");
        checkPathBound(message, method.pathBound);
      }
    } catch (e) {
      return fail(e, method.rpc, ctx.touchedHeaders());
    }

    // 4. The call.
    try {
      if (method.streaming) return await startStream(method, fn, message, ctx, rid, tr);
      let result = fn.call(handlers, message, ctx);
      if (result instanceof Promise) result = await result;
      return answer({ jsonrpc: "2.0", id: rid, result: encode(method, result, tr) }, ctx.touchedHeaders());
    } catch (e) {
      return fail(e, method.rpc, ctx.touchedHeaders());
    }

    function answerError(errId: Id, error: JsonRpcErrorObject): Outcome {
      return { kind: "response", response: { jsonrpc: "2.0", id: errId, error }, headers: undefined };
    }
  }

  function encode(method: JsonRpcMethod, value: unknown, tr: JsonRpcDialectMethod | undefined): unknown {
    const json = writeResult(method.output, method.json?.output, value, a2a, undefined, onSkip);
    return tr ? tr.result(json as JsonValue) : json;
  }

  /** A stream: an error before its first message is a plain JSON-RPC error answer; after it, a last event with the error. */
  async function startStream(
    method: JsonRpcMethod,
    fn: AnyHandler,
    message: Message,
    ctx: ServerContext,
    id: Id,
    tr: JsonRpcDialectMethod | undefined,
  ): Promise<Outcome> {
    const event = (body: JsonRpcResponse) => "data: " + JSON.stringify(body) + "\n\n";
    let stream: SseStream;
    try {
      stream = await startSseStream(
        fn.call(handlers, message, ctx) as AsyncIterable<unknown>,
        (value) => event({ jsonrpc: "2.0", id, result: encode(method, value, tr) }),
        (e) => event({ jsonrpc: "2.0", id, error: errorObject(streamFailure(e, ctx.signal), method.rpc, "stream") }),
        keepAliveMs,
      );
    } catch (e) {
      const error = errorObject(e, method.rpc);
      // A dialect's clients read a stream's answer as a stream, its first error too (v0.3's SDKs refuse another media type).
      if (tr) return { kind: "stream", id, stream: SseStream.of(event({ jsonrpc: "2.0", id, error })), headers: ctx.touchedHeaders() };
      return { kind: "response", response: { jsonrpc: "2.0", id, error }, headers: ctx.touchedHeaders() };
    }
    return { kind: "stream", id, stream, headers: ctx.touchedHeaders() };
  }
}

/** JSON-RPC's body types (see call-setup.ts's checkBodyType): JSON (§9.1). */
const JSON_BODY_TYPES: BodyTypes = {
  accepts: (type) => type === JSON_MEDIA_TYPE,
  send: JSON_MEDIA_TYPE,
  missing: `a JSON-RPC request needs Content-Type: ${JSON_MEDIA_TYPE}`,
  refuse: (message) => new EnvelopeError(JsonRpcCode.INVALID_REQUEST, message),
};

/** Under the A2A profile, A2A's JSON too; a refusal still asks for JSON, as §9.1 does. */
const A2A_BODY_TYPES: BodyTypes = { ...JSON_BODY_TYPES, accepts: isA2ABodyType };

/**
 * `res` with `early` (the headers the factory's first call set) under its
 * own: a header the answer has wins; Set-Cookie values of both are kept.
 */
function underneath(res: UniversalServerResponse, early: Headers | undefined): UniversalServerResponse {
  if (early === undefined) return res;
  const headers: ResponseHeaders = { ...res.headers };
  early.forEach((value, name) => {
    // The adapters frame the body (see withHandlerHeaders).
    if (name === "set-cookie" || name === "content-length" || name === "transfer-encoding" || name in headers) return;
    headers[name] = value;
  });
  const cookies = early.getSetCookie();
  if (cookies.length > 0) {
    const own = headers["set-cookie"];
    headers["set-cookie"] = [...cookies, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  }
  return { ...res, headers };
}

/** `b` over `a` (either may be missing); Set-Cookie values of both are kept. */
function combine(a: Headers | undefined, b: Headers | undefined): Headers | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const out = new Headers(a);
  b.forEach((value, name) => {
    if (name !== "set-cookie") out.set(name, value);
  });
  for (const cookie of b.getSetCookie()) out.append("set-cookie", cookie);
  return out;
}

/** The id of a request object, if it has a valid one (for errors found before the envelope is read). */
function idOf(v: unknown): Id {
  if (typeof v !== "object" || v === null || Array.isArray(v)) return null;
  const id = (v as Record<string, unknown>)["id"];
  return typeof id === "string" || typeof id === "number" ? id : null;
}
