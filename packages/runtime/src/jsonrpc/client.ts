// The JSON-RPC 2.0 transport of the generated client (A2A spec §9): the same
// typed methods, streams, errors and signals as HTTP+JSON, every call a POST
// of {"jsonrpc": "2.0", id, method, params} to one URL.
import { create, fromJson, toJson, type DescMessage, type JsonObject, type JsonValue, type Registry } from "@bufbuild/protobuf";
import { Code, RpcError } from "../errors.js";
import type { RouteBinding } from "../route-binding.js";
import { fetchFollowing } from "../client/redirect.js";
import {
  DEFAULT_MAX_EVENT_SIZE,
  startCall,
  type CallOptions,
  type ClientNext,
  type ClientOptions,
  type ClientProfile,
  type ClientRequest,
} from "../client/core.js";
import { clientError } from "../client/plan.js";
import { rpcErrorFromResponse } from "../client/status.js";
import { DEFAULT_MAX_RESPONSE_SIZE, readBounded } from "../client/body.js";
import { readSseEvents } from "../client/sse.js";
import { fromJsonRpcError } from "./errors.js";
import { readLenient, routeCodecs, writeMessage } from "../codec/message-json.js";
import type { MessageJsonCodec } from "../json/index.js";

const JSON_TYPE = "application/json";
const SSE_TYPE = "text/event-stream";

interface MethodPlan {
  readonly rpc: string;
  /** The JSON-RPC method: the proto's rpc name ("SendMessage"). */
  readonly method: string;
  readonly binding: RouteBinding;
  readonly input: DescMessage;
  readonly output: DescMessage;
  readonly streaming: boolean;
  readonly tenantJsonName: string | undefined;
  /** The route table's generated JSON codecs, unless turned off. */
  readonly json: { input?: MessageJsonCodec; output?: MessageJsonCodec } | undefined;
}

type AnyMethod = (request: object, options?: CallOptions) => unknown;

/**
 * Builds a client object with one method per rpc of a route table that
 * speaks JSON-RPC 2.0 to `options.baseUrl` (the interface URL itself; no
 * path is added). `createRouteClient` hands over to it for `transport:
 * "jsonrpc"`. Errors are RpcErrors as over HTTP+JSON: a JSON-RPC error object
 * becomes the code of its A2A reason (see {@link fromJsonRpcError}); a
 * response that is not JSON-RPC, or answers another id, is INTERNAL.
 */
export function createJsonRpcClient<T>(routes: readonly RouteBinding[], options: ClientOptions, profile: ClientProfile = {}): T {
  const a2a = profile.profile === "a2a";
  const a2aVersion = profile.a2aVersion ?? "1.0";
  const url = options.baseUrl;
  const tenant = options.tenant ?? "";
  const contentType = options.contentType ?? JSON_TYPE;
  const registry: Registry | undefined = options.registry;
  const maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  const maxResponseSize = options.maxResponseSize ?? DEFAULT_MAX_RESPONSE_SIZE;
  const writeOptions = registry ? { registry } : undefined;
  const readOptions = registry ? { ignoreUnknownFields: true, registry } : { ignoreUnknownFields: true };
  const staticHeaders = typeof options.headers === "function" ? undefined : options.headers;
  const headersFn = typeof options.headers === "function" ? options.headers : undefined;
  let nextId = 1;

  let send: ClientNext = (req) => {
    const init: RequestInit = { method: req.method, headers: req.headers };
    if (req.body !== undefined) init.body = req.body;
    if (req.signal) init.signal = req.signal;
    return fetchFollowing(options.fetch ?? globalThis.fetch, req.url, init, options.redirects);
  };
  for (const icpt of [...(options.interceptors ?? [])].reverse()) send = icpt(send);

  const client: Record<string, AnyMethod> = {};
  for (const b of routes) {
    if (client[b.rpc]) continue;
    const tenantField = b.input.fields.find((f) => f.name === "tenant" && f.fieldKind === "scalar");
    const plan: MethodPlan = {
      rpc: b.rpc,
      method: b.descriptor.name,
      binding: b,
      input: b.input,
      output: b.output,
      streaming: b.streaming === "server",
      tenantJsonName: tenantField?.jsonName,
      json: routeCodecs(b, options),
    };
    client[b.rpc] = plan.streaming ? (r, o) => stream(plan, r, o) : (r, o) => unary(plan, r, o);
  }
  return client as T;

  async function prepare(plan: MethodPlan, request: object, callOptions: CallOptions | undefined): Promise<{ id: number; req: Omit<ClientRequest, "signal"> }> {
    let params: JsonObject;
    try {
      const msg = create(plan.input, request as never);
      params = (writeOptions === undefined ? writeMessage(plan.input, plan.json?.input, msg) : toJson(plan.input, msg, writeOptions)) as JsonObject;
    } catch (cause) {
      throw clientError(Code.INVALID_ARGUMENT, `${plan.rpc}: the request cannot be encoded: ${String(cause)}`, cause);
    }
    if (tenant !== "" && plan.tenantJsonName !== undefined && (params[plan.tenantJsonName] ?? "") === "") {
      params[plan.tenantJsonName] = tenant;
    }
    const id = nextId++;
    const headers = new Headers(staticHeaders);
    if (headersFn) new Headers(await headersFn()).forEach((v, k) => headers.set(k, v));
    if (a2a && !headers.has("A2A-Version")) headers.set("A2A-Version", a2aVersion);
    if (!headers.has("Accept")) headers.set("Accept", plan.streaming ? `${SSE_TYPE}, ${JSON_TYPE}` : JSON_TYPE);
    if (!headers.has("Content-Type")) headers.set("Content-Type", contentType);
    if (callOptions?.headers) new Headers(callOptions.headers).forEach((v, k) => headers.set(k, v));
    const body = JSON.stringify({ jsonrpc: "2.0", id, method: plan.method, params });
    return { id, req: { rpc: plan.rpc, binding: plan.binding, streaming: plan.streaming, method: "POST", url, headers, body } };
  }

  /** Sends the call; a non-2xx answer is an error (its JSON-RPC error object when it has one). */
  async function post(req: ClientRequest): Promise<Response> {
    const res = await send(req);
    if (res.ok) return res;
    const text = await readBounded(res, maxResponseSize, `the HTTP ${res.status} error body`).catch(() => "");
    const envelope = parseJson(text);
    if (isEnvelope(envelope) && envelope["error"] !== undefined) throw withStatus(fromJsonRpcError(envelope["error"], res.status), res.status);
    throw await rpcErrorFromResponse(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
  }

  async function unary(plan: MethodPlan, request: object, callOptions: CallOptions | undefined): Promise<unknown> {
    const { id, req: prepared } = await prepare(plan, request, callOptions);
    const call = startCall(callOptions, options.timeoutMs, false);
    try {
      let res: Response;
      let text: string;
      try {
        res = await post({ ...prepared, signal: call.signal });
        text = await readBounded(res, maxResponseSize, `${plan.rpc}: the response`);
      } catch (e) {
        throw call.mapError(e);
      }
      return result(plan, id, parseJson(text), text, res.status);
    } finally {
      call.done();
    }
  }

  /** The message of one JSON-RPC response (a unary answer or one stream event). */
  function result(plan: MethodPlan, id: number, envelope: unknown, text: string, status: number): unknown {
    if (!isEnvelope(envelope)) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: the answer is not a JSON-RPC 2.0 response: ${text.slice(0, 200)}`, [], { httpStatus: status });
    }
    if (envelope["error"] !== undefined) throw withStatus(fromJsonRpcError(envelope["error"], status), status);
    if (envelope["id"] !== id) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: the JSON-RPC response answers id ${JSON.stringify(envelope["id"])}, not ${id}`, [], { httpStatus: status });
    }
    const value = envelope["result"];
    // DeleteTaskPushNotificationConfig answers `result: null` on some servers (google.protobuf.Empty).
    if (value === null || value === undefined) return create(plan.output);
    try {
      return registry === undefined ? readLenient(plan.output, plan.json?.output, value as JsonValue) : fromJson(plan.output, value as JsonValue, readOptions);
    } catch (cause) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: the result is not a valid ${plan.output.typeName}: ${String(cause)}`, [], { httpStatus: status, cause });
    }
  }

  async function* stream(plan: MethodPlan, request: object, callOptions: CallOptions | undefined): AsyncGenerator<unknown> {
    const { id, req: prepared } = await prepare(plan, request, callOptions);
    const call = startCall(callOptions, options.timeoutMs, true);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let finished = false;
    try {
      let res: Response;
      try {
        res = await post({ ...prepared, signal: call.signal });
      } catch (e) {
        throw call.mapError(e);
      }
      // An error before the first event comes as a plain JSON-RPC answer.
      if (!(res.headers.get("content-type") ?? "").toLowerCase().startsWith(SSE_TYPE)) {
        let text: string;
        try {
          text = await readBounded(res, maxResponseSize, `${plan.rpc}: the response`);
        } catch (e) {
          throw call.mapError(e);
        }
        finished = true;
        // An error throws here; a server that answers with one result gave the stream's one event.
        yield result(plan, id, parseJson(text), text, res.status);
        return;
      }
      if (!res.body) {
        finished = true;
        return;
      }
      reader = res.body.getReader();
      for await (const e of readSseEvents(reader, call, maxEventSize, plan.rpc, res.status)) {
        // Every event (`event: error` too) is one JSON-RPC response.
        if (e.data === "") continue;
        yield result(plan, id, parseJson(e.data), e.data, res.status);
      }
      finished = true;
    } finally {
      call.done();
      if (!finished) {
        reader?.cancel().catch(() => {});
        call.abort();
      }
    }
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

function isEnvelope(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v) && (v as Record<string, unknown>)["jsonrpc"] === "2.0";
}

/** The error as decoded, but with the HTTP status of the answer when it was not a 2xx. */
function withStatus(err: RpcError, status: number): RpcError {
  if (status >= 200 && status < 300) return err;
  return new RpcError(err.code, err.message, err.details, { httpStatus: status });
}
