import {
  create,
  fromJson,
  toJson,
  type DescField,
  type DescMessage,
  type JsonObject,
  type JsonValue,
  type Message,
  type Registry,
} from "@bufbuild/protobuf";
import type { EventSourceMessage } from "eventsource-parser";
import { readLenient, routeCodecs, writeMessage } from "../codec/message-json.js";
import type { MessageJsonCodec } from "../json/index.js";
import type { JsonCodec } from "../codec/message-json.js";
import { Code, RpcError } from "../errors.js";
import type { RouteBinding } from "../route-binding.js";
import { appendQuery, choosePlan, clientError, compileBinding, type BindingPlan } from "./plan.js";
import { rpcErrorFromResponse, rpcErrorFromStatusJson } from "./status.js";
import { createJsonRpcClient } from "../jsonrpc/client.js";
import { DEFAULT_MAX_RESPONSE_SIZE, readBounded } from "./body.js";
import { readSseEvents } from "./sse.js";
import { fetchFollowing, type RedirectPolicy } from "./redirect.js";

/** Headers as a value, or a function (sync or async) called on every request. */
export type HeadersOption = HeadersInit | (() => HeadersInit | Promise<HeadersInit>);

/** A request as it is about to go to `fetch`; interceptors may change it. */
export interface ClientRequest {
  /** The rpc, lowerCamel ("getTask"). */
  readonly rpc: string;
  /** The binding the request was built from. */
  readonly binding: RouteBinding;
  /** True for a server-streaming rpc (the response is text/event-stream). */
  readonly streaming: boolean;
  method: string;
  url: string;
  readonly headers: Headers;
  /** The JSON body, or undefined when the binding sends none. */
  body: string | undefined;
  signal: AbortSignal | undefined;
}

/** Sends a request and resolves to the HTTP response. */
export type ClientNext = (request: ClientRequest) => Promise<Response>;

/** Wraps the next step: `(next) => async (req) => { req.headers.set(...); return next(req); }`. */
export type ClientInterceptor = (next: ClientNext) => ClientNext;

/** Options of a generated `create<Service>Client`. */
export interface ClientOptions {
  /** Where the service is mounted, e.g. `https://agent.example.com/a2a` (a trailing "/" is fine). */
  readonly baseUrl: string;
  /**
   * Copied into the request's top-level `tenant` field when the request has one
   * and it is unset, so the binding rule picks the `/{tenant}/...` route. Leave
   * it out (or "") when the agent card sets no tenant.
   */
  readonly tenant?: string | undefined;
  /** The fetch to use; default `globalThis.fetch` (looked up on every call). */
  readonly fetch?: typeof globalThis.fetch | undefined;
  /** Headers sent with every call; a function is called on every call. */
  readonly headers?: HeadersOption | undefined;
  /** Applied in order: the first is the outermost. */
  readonly interceptors?: readonly ClientInterceptor[] | undefined;
  /** Content-Type of request bodies. Default `application/json`; `application/a2a+json` in the A2A profile. */
  readonly contentType?: string | undefined;
  /** For `google.protobuf.Any` in requests and responses. */
  readonly registry?: Registry | undefined;
  /**
   * The largest server-sent event accepted, in characters of its lines as
   * sent; default 4 MiB. A bigger one fails the stream with RESOURCE_EXHAUSTED.
   */
  readonly maxEventSize?: number | undefined;
  /** The largest unary response body read, in bytes (error bodies too); default 8 MiB. A bigger one is RESOURCE_EXHAUSTED. */
  readonly maxResponseSize?: number | undefined;
  /** Default per-call timeout in milliseconds; none by default. */
  readonly timeoutMs?: number | undefined;
  /**
   * Which redirects are followed: `"same-origin"` (default), `"none"`, or a
   * function that may allow other origins, which never get the call's
   * credentials (see {@link RedirectPolicy}). A refused one fails the call
   * with FAILED_PRECONDITION.
   */
  readonly redirects?: RedirectPolicy | undefined;
  /**
   * The binding to call: `http+json` (the default: the rpcs' HttpRule routes
   * below `baseUrl`) or `jsonrpc` (JSON-RPC 2.0 POSTed to `baseUrl`, A2A §9).
   * {@link pickTransport} chooses it from an agent card.
   */
  readonly transport?: "http+json" | "jsonrpc" | undefined;
  /**
   * How request and response JSON is written and read. `generated` (default):
   * the codecs of the route table (plugin option `json_codec`), giving exactly
   * what protobuf-es gives; `protobuf-es`: its reflective toJson/fromJson on
   * every call. With a registry, protobuf-es is used either way.
   */
  readonly jsonCodec?: JsonCodec | undefined;
}

/** Options of one call. */
export interface CallOptions {
  /** Aborting it cancels the call (RpcError CANCELLED); for a stream, it closes the connection. */
  readonly signal?: AbortSignal | undefined;
  /** Headers for this call, over the client's. */
  readonly headers?: HeadersInit | undefined;
  /** Deadline for the whole call (for a stream: until its end); past it, RpcError DEADLINE_EXCEEDED. */
  readonly timeoutMs?: number | undefined;
}

/** What the generator knows about the file: its profile. */
export interface ClientProfile {
  readonly profile?: "none" | "a2a" | undefined;
  /** The `A2A-Version` header in the A2A profile; default "1.0". */
  readonly a2aVersion?: string | undefined;
}

export const DEFAULT_MAX_EVENT_SIZE = 4 * 1024 * 1024;

const A2A_JSON = "application/a2a+json";
const JSON_TYPE = "application/json";

type AnyMethod = (request: object, options?: CallOptions) => unknown;

interface RpcPlan {
  readonly rpc: string;
  readonly input: DescMessage;
  readonly output: DescMessage;
  readonly streaming: boolean;
  readonly plans: readonly BindingPlan[];
  /** The input's top-level string `tenant` field, when it has one. */
  readonly tenantJsonName: string | undefined;
  /** True when a top-level `"error"` key in a stream event is a field of the output, not an error. */
  readonly outputHasErrorField: boolean;
  /** The headers of a call without a headers function, as entries: with a body, and without. */
  readonly headersWithBody: [string, string][];
  readonly headersWithoutBody: [string, string][];
  /** The route table's generated JSON codecs, unless turned off. */
  readonly json: { input?: MessageJsonCodec; output?: MessageJsonCodec } | undefined;
}

/**
 * Builds a client object with one method per rpc of a route table. Generated
 * `create<Service>Client` functions call it; the generated interface types it.
 *
 * Errors: every failure is an {@link RpcError}.
 * - the server answered non-2xx: the decoded google.rpc.Status (`httpStatus` is the answer's);
 * - no binding fits the request, or a path value is `.`/`..`: INVALID_ARGUMENT, `httpStatus` 0;
 * - the network failed (connection refused, reset, DNS): UNAVAILABLE, `httpStatus` 0, `cause` the fetch error;
 * - `timeoutMs` passed: DEADLINE_EXCEEDED, `httpStatus` 0;
 * - the caller's signal aborted: CANCELLED, `httpStatus` 0, `cause` the signal's reason;
 * - a 2xx whose body is not the expected JSON: INTERNAL with the answer's status;
 * - a streaming call answered with a 2xx that is not `text/event-stream`: INTERNAL with the answer's status;
 * - a stream event over `maxEventSize`, a unary body over `maxResponseSize`: RESOURCE_EXHAUSTED.
 */
export function createRouteClient<T>(
  routes: readonly RouteBinding[],
  options: ClientOptions,
  profile: ClientProfile = {},
): T {
  if (options.transport === "jsonrpc") return createJsonRpcClient<T>(routes, options, profile);
  const a2a = profile.profile === "a2a";
  const a2aVersion = profile.a2aVersion ?? "1.0";
  const contentType = options.contentType ?? (a2a ? A2A_JSON : JSON_TYPE);
  const acceptUnary = a2a ? `${A2A_JSON}, ${JSON_TYPE}` : JSON_TYPE;
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const tenant = options.tenant ?? "";
  const registry = options.registry;
  const maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  const maxResponseSize = options.maxResponseSize ?? DEFAULT_MAX_RESPONSE_SIZE;
  const staticHeaders = typeof options.headers === "function" ? undefined : options.headers;
  const headersFn = typeof options.headers === "function" ? options.headers : undefined;
  const writeOptions = registry ? { registry } : undefined;
  const readOptions = registry ? { ignoreUnknownFields: true, registry } : { ignoreUnknownFields: true };
  const writeJson = (plan: RpcPlan, msg: Message) =>
    writeOptions === undefined ? writeMessage(plan.input, plan.json?.input, msg) : toJson(plan.input, msg, writeOptions);
  const readJson = (plan: RpcPlan, json: JsonValue) =>
    registry === undefined ? readLenient(plan.output, plan.json?.output, json) : fromJson(plan.output, json, readOptions);
  /** The static headers with the defaults that they leave unset, worked out once per kind of call. */
  const baseHeaders = (streaming: boolean, withBody: boolean): [string, string][] => {
    const h = new Headers(staticHeaders);
    if (a2a && !h.has("A2A-Version")) h.set("A2A-Version", a2aVersion);
    if (!h.has("Accept")) h.set("Accept", streaming ? "text/event-stream" : acceptUnary);
    if (withBody && !h.has("Content-Type")) h.set("Content-Type", contentType);
    const entries: [string, string][] = [];
    h.forEach((v, k) => void entries.push([k, v]));
    return entries;
  };

  let send: ClientNext = (req) => {
    const init: RequestInit = { method: req.method, headers: req instanceof OutgoingRequest ? req.headersInit() : req.headers };
    if (req.body !== undefined) init.body = req.body;
    if (req.signal) init.signal = req.signal;
    return fetchFollowing(options.fetch ?? globalThis.fetch, req.url, init, options.redirects);
  };
  for (const icpt of [...(options.interceptors ?? [])].reverse()) send = icpt(send);

  const byRpc = new Map<string, RouteBinding[]>();
  for (const b of routes) {
    const list = byRpc.get(b.rpc);
    if (list) list.push(b);
    else byRpc.set(b.rpc, [b]);
  }

  const client: Record<string, AnyMethod> = {};
  for (const [rpc, bindings] of byRpc) {
    const first = bindings[0]!;
    const tenantField = first.input.fields.find((f) => f.name === "tenant" && f.fieldKind === "scalar");
    const plan: RpcPlan = {
      rpc,
      input: first.input,
      output: first.output,
      streaming: first.streaming === "server",
      plans: bindings.map((b) => compileBinding(b, clientMethod(b, a2a))),
      tenantJsonName: tenantField?.jsonName,
      outputHasErrorField: first.output.fields.some((f) => f.jsonName === "error" || f.name === "error"),
      headersWithBody: baseHeaders(first.streaming === "server", true),
      headersWithoutBody: baseHeaders(first.streaming === "server", false),
      json: routeCodecs(first, options),
    };
    client[rpc] = plan.streaming
      ? (request, callOptions) => stream(plan, request, callOptions)
      : (request, callOptions) => unary(plan, request, callOptions);
  }
  return client as T;

  /** Builds the request: binding, URL, headers and body (the call adds its signal). */
  async function prepare(
    plan: RpcPlan,
    request: object,
    callOptions: CallOptions | undefined,
  ): Promise<{ chosen: BindingPlan; req: OutgoingRequest }> {
    let json: JsonObject;
    try {
      const msg = create(plan.input, request as never) as Message;
      json = writeJson(plan, msg) as JsonObject;
    } catch (cause) {
      if (cause instanceof RpcError) throw cause;
      throw clientError(Code.INVALID_ARGUMENT, `${plan.rpc}: the request cannot be encoded: ${String(cause)}`, cause);
    }
    if (tenant !== "" && plan.tenantJsonName !== undefined && (json[plan.tenantJsonName] ?? "") === "") {
      json[plan.tenantJsonName] = tenant;
    }
    const { plan: chosen, path } = choosePlan(plan.rpc, plan.plans, json);
    let body: string | undefined;
    let url = baseUrl + path;
    if (chosen.body === "*") {
      body = JSON.stringify(json);
    } else {
      if (chosen.body !== "") {
        const { jsonName, field } = chosen.body;
        body = JSON.stringify(json[jsonName] ?? defaultJson(field));
        delete json[jsonName];
      }
      const query: string[] = [];
      appendQuery(plan.rpc, plan.input, json, "", query);
      if (query.length > 0) url += "?" + query.join("&");
    }
    let headers: Headers | [string, string][];
    if (headersFn) {
      const h = new Headers(staticHeaders);
      new Headers(await headersFn()).forEach((v, k) => h.set(k, v));
      if (a2a && !h.has("A2A-Version")) h.set("A2A-Version", a2aVersion);
      if (!h.has("Accept")) h.set("Accept", plan.streaming ? "text/event-stream" : acceptUnary);
      if (body !== undefined && !h.has("Content-Type")) h.set("Content-Type", contentType);
      headers = h;
    } else {
      headers = body !== undefined ? plan.headersWithBody : plan.headersWithoutBody;
    }
    if (callOptions?.headers) {
      const h = headers instanceof Headers ? headers : new Headers(headers);
      new Headers(callOptions.headers).forEach((v, k) => h.set(k, v));
      headers = h;
    }
    return {
      chosen,
      req: new OutgoingRequest(plan.rpc, chosen.binding, plan.streaming, chosen.method, url, headers, body),
    };
  }

  async function unary(plan: RpcPlan, request: object, callOptions: CallOptions | undefined): Promise<unknown> {
    const { chosen, req: prepared } = await prepare(plan, request, callOptions);
    const call = startCall(callOptions, options.timeoutMs, false);
    try {
      const req = prepared;
      req.signal = call.signal;
      let res: Response;
      let text: string;
      try {
        res = await send(req);
        if (!res.ok) throw await rpcErrorFromResponse(res, maxResponseSize);
        text = await readBounded(res, maxResponseSize, `${plan.rpc}: the response`);
      } catch (e) {
        throw call.mapError(e);
      }
      return decodeMessage(plan, chosen, text, res.status);
    } finally {
      call.done();
    }
  }

  function decodeMessage(plan: RpcPlan, chosen: BindingPlan, text: string, status: number): unknown {
    if (text.length === 0 || /^\s*$/.test(text)) return create(plan.output);
    let json: JsonValue;
    try {
      json = JSON.parse(text) as JsonValue;
    } catch (cause) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: the response is not JSON: ${text.slice(0, 200)}`, [], {
        httpStatus: status,
        cause,
      });
    }
    if (chosen.responseJsonName !== undefined) json = { [chosen.responseJsonName]: json };
    try {
      return readJson(plan, json);
    } catch (cause) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: the response is not a valid ${plan.output.typeName}: ${String(cause)}`, [], {
        httpStatus: status,
        cause,
      });
    }
  }

  async function* stream(plan: RpcPlan, request: object, callOptions: CallOptions | undefined): AsyncGenerator<unknown> {
    const { chosen, req: prepared } = await prepare(plan, request, callOptions);
    const call = startCall(callOptions, options.timeoutMs, true);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let finished = false;
    try {
      const req = prepared;
      req.signal = call.signal;
      let res: Response;
      try {
        res = await send(req);
        if (!res.ok) throw await rpcErrorFromResponse(res, maxResponseSize);
        if (!isEventStream(res.headers.get("content-type"))) throw await notAStream(plan.rpc, res);
      } catch (e) {
        throw call.mapError(e);
      }
      if (!res.body) {
        finished = true;
        return;
      }
      reader = res.body.getReader();
      for await (const e of readSseEvents(reader, call, maxEventSize, plan.rpc, res.status)) {
        const message = decodeEvent(plan, chosen, e, res.status);
        if (message !== undefined) yield message;
      }
      finished = true;
    } finally {
      call.done();
      if (!finished) {
        // Left early (break, error, abort): stop reading and close the connection.
        reader?.cancel().catch(() => {});
        call.abort();
      }
    }
  }

  function decodeEvent(plan: RpcPlan, chosen: BindingPlan, e: EventSourceMessage, status: number): unknown {
    if (e.event === "error") {
      let json: unknown;
      try {
        json = JSON.parse(e.data);
      } catch {
        json = undefined;
      }
      throw (
        rpcErrorFromStatusJson(json, undefined) ??
        new RpcError(Code.UNKNOWN, `${plan.rpc}: stream error: ${e.data.slice(0, 200)}`, [], { httpStatus: status })
      );
    }
    if (e.data === "") return undefined;
    let json: JsonValue;
    try {
      json = JSON.parse(e.data) as JsonValue;
    } catch (cause) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: a stream event is not JSON: ${e.data.slice(0, 200)}`, [], {
        httpStatus: status,
        cause,
      });
    }
    if (
      !plan.outputHasErrorField &&
      json !== null &&
      typeof json === "object" &&
      !Array.isArray(json) &&
      json["error"] !== undefined
    ) {
      throw (
        rpcErrorFromStatusJson(json, undefined) ??
        new RpcError(Code.UNKNOWN, `${plan.rpc}: stream error: ${e.data.slice(0, 200)}`, [], { httpStatus: status })
      );
    }
    if (chosen.responseJsonName !== undefined) json = { [chosen.responseJsonName]: json };
    try {
      return readJson(plan, json);
    } catch (cause) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: a stream event is not a valid ${plan.output.typeName}: ${String(cause)}`, [], {
        httpStatus: status,
        cause,
      });
    }
  }
}

function isEventStream(contentType: string | null): boolean {
  if (contentType === null) return false;
  const semi = contentType.indexOf(";");
  return (semi < 0 ? contentType : contentType.slice(0, semi)).trim().toLowerCase() === "text/event-stream";
}

/** The error for a 2xx answer to a streaming call that is not an event stream (an HTML page, JSON, nothing). */
async function notAStream(rpc: string, res: Response): Promise<RpcError> {
  let snippet = "";
  try {
    snippet = (await readBounded(res, 4096, "the body")).replace(/\s+/g, " ").trim().slice(0, 200);
  } catch {
    res.body?.cancel().catch(() => {});
  }
  const type = res.headers.get("content-type");
  return new RpcError(
    Code.INTERNAL,
    `${rpc}: expected a text/event-stream answer, got HTTP ${res.status} with ${type === null ? "no Content-Type" : `Content-Type ${type}`}${snippet === "" ? "" : `: ${snippet}`}`,
    [],
    { httpStatus: res.status },
  );
}

/**
 * A {@link ClientRequest} whose `Headers` object is made only when someone
 * (an interceptor) looks at it; otherwise fetch gets the entries worked out
 * once per rpc, as a hand-written call would pass a plain object.
 */
class OutgoingRequest implements ClientRequest {
  signal: AbortSignal | undefined = undefined;
  declare readonly headers: Headers;
  private made: Headers | undefined;
  constructor(
    readonly rpc: string,
    readonly binding: RouteBinding,
    readonly streaming: boolean,
    public method: string,
    public url: string,
    private readonly init: Headers | [string, string][],
    public body: string | undefined,
  ) {
    if (init instanceof Headers) this.made = init;
    // An own, enumerable accessor: `{ ...req }` in an interceptor copies the Headers.
    Object.defineProperty(this, "headers", { get: () => (this.made ??= new Headers(this.init)), enumerable: true });
  }
  /** What to hand to fetch: the Headers if made, else the shared entries. */
  headersInit(): HeadersInit {
    return this.made ?? this.init;
  }
}

/** The HTTP method the client sends for a binding. */
function clientMethod(b: RouteBinding, a2a: boolean): string {
  // A2A: the proto says GET for SubscribeToTask (TaskSubscription in v0.3), the
  // spec text says POST, and every SDK server takes POST (Java only POST).
  if (a2a && b.method === "GET" && (b.descriptor.name === "SubscribeToTask" || b.descriptor.name === "TaskSubscription")) {
    return "POST";
  }
  // A custom rule of kind "*" takes any method.
  if (b.method === "*") return b.body === "" ? "GET" : "POST";
  return b.method;
}

/** The JSON a body field has when it is unset. */
function defaultJson(field: DescField): JsonValue {
  switch (field.fieldKind) {
    case "list":
      return [];
    case "map":
    case "message":
      return field.fieldKind === "message" && /^google\.protobuf\.(?!Struct$|Empty$|Any$)/.test(field.message.typeName) ? null : {};
    case "enum":
      return field.enum.values[0]?.name ?? 0;
    case "scalar":
      switch (field.scalar) {
        case 9 /* STRING */:
        case 12 /* BYTES */:
          return "";
        case 8 /* BOOL */:
          return false;
        case 3 /* INT64 */:
        case 4 /* UINT64 */:
        case 6 /* FIXED64 */:
        case 16 /* SFIXED64 */:
        case 18 /* SINT64 */:
          return "0";
        default:
          return 0;
      }
  }
}

/** One call's signal, deadline and error mapping (shared with the JSON-RPC client). */
export interface Call {
  readonly signal: AbortSignal | undefined;
  mapError(e: unknown): unknown;
  /** The error for a call the caller cancelled or the deadline ended, else undefined. */
  stopped(): RpcError | undefined;
  abort(): void;
  done(): void;
}

const noSignalCall: Call = {
  signal: undefined,
  mapError: (e) => mapNetworkError(e, false, undefined),
  stopped: () => undefined,
  abort() {},
  done() {},
};

/** Links the caller's signal and the timeout to one controller, and tells them apart afterwards. */
export function startCall(callOptions: CallOptions | undefined, defaultTimeout: number | undefined, always: boolean): Call {
  const outer = callOptions?.signal;
  const timeoutMs = callOptions?.timeoutMs ?? defaultTimeout;
  if (!outer && timeoutMs === undefined && !always) return noSignalCall;
  const ctl = new AbortController();
  let timedOut = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const onAbort = () => ctl.abort(outer?.reason);
  if (outer) {
    if (outer.aborted) ctl.abort(outer.reason);
    else outer.addEventListener("abort", onAbort, { once: true });
  }
  if (timeoutMs !== undefined && !ctl.signal.aborted) {
    timer = setTimeout(() => {
      timedOut = true;
      ctl.abort(new Error(`timed out after ${timeoutMs} ms`));
    }, timeoutMs);
  }
  return {
    signal: ctl.signal,
    mapError(e) {
      if (e instanceof RpcError) return e;
      if (timedOut) return clientError(Code.DEADLINE_EXCEEDED, `the call timed out after ${timeoutMs} ms`, e);
      if (outer?.aborted) return clientError(Code.CANCELLED, "the call was cancelled", outer.reason);
      return mapNetworkError(e, ctl.signal.aborted, timeoutMs);
    },
    stopped() {
      if (timedOut) return clientError(Code.DEADLINE_EXCEEDED, `the call timed out after ${timeoutMs} ms`);
      if (outer?.aborted) return clientError(Code.CANCELLED, "the call was cancelled", outer.reason);
      return undefined;
    },
    abort() {
      ctl.abort();
    },
    done() {
      if (timer !== undefined) clearTimeout(timer);
      outer?.removeEventListener("abort", onAbort);
    },
  };
}

function mapNetworkError(e: unknown, aborted: boolean, _timeoutMs: number | undefined): unknown {
  if (e instanceof RpcError) return e;
  if (aborted) return clientError(Code.CANCELLED, "the call was cancelled", e);
  const detail = e instanceof Error ? (e.cause instanceof Error ? `${e.message}: ${e.cause.message}` : e.message) : String(e);
  return clientError(Code.UNAVAILABLE, `network error: ${detail}`, e);
}

