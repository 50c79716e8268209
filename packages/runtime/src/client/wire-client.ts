// The call every binding of the client shares: the request message to
// ProtoJSON (tenant filled in), the headers, the interceptors, fetch with
// redirects, the signal and deadline, bounded reads, SSE, and the message read
// from the answer's JSON. What differs between HTTP+JSON and JSON-RPC (the
// URL, method and body; where the message sits in the answer; how an error
// looks) is the binding's {@link ClientWire}.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { EventSourceMessage } from "eventsource-parser";
import { A2A_DEFAULT_VERSIONS, A2A_TENANT, mediaTypeOf } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import { DEFAULT_MAX_RESPONSE_SIZE, readBounded } from "./body.js";
import { startCallSignal } from "./call-signal.js";
import { clientError } from "./client-error.js";
import type { ClientRoute } from "../route-binding.js";
import { DEFAULT_MAX_EVENT_SIZE, type CallOptions, type ClientNext, type ClientOptions, type ClientProfile } from "./options.js";
import { callHeaders, OutgoingRequest, type CallHeaders } from "./outgoing-request.js";
import { fetchFollowing } from "./redirect.js";
import { isIdempotent, mayRetry, retryDelay, retryPolicy } from "./retry.js";
import { readSseEvents } from "./sse.js";
import { pause } from "../retry-wait.js";
import { telemetry, type RpcSystem } from "../telemetry.js";

/** The media type of a server-sent event stream. */
export const SSE_MEDIA_TYPE = "text/event-stream";

/** A binding of the client (HTTP+JSON, JSON-RPC): its media types and how it puts each rpc on the wire. */
export interface ClientWire {
  /** The binding, as telemetry names it (telemetry.ts); default `http` (HTTP+JSON). */
  readonly system?: RpcSystem;
  /** Content-Type of request bodies unless `options.contentType` says otherwise. */
  readonly contentType: string;
  /** Accept of a unary call unless the headers set it. */
  readonly acceptUnary: string;
  /** Accept of a streaming call unless the headers set it. */
  readonly acceptStream: string;
  /** One rpc's wire, from its bindings in proto order; called once per rpc. */
  rpc(bindings: readonly ClientRoute[]): RpcWire<unknown>;
}

/** The HTTP request of one call; `key` is handed back when its answer is read. */
export interface WireRequest<K> {
  readonly binding: ClientRoute;
  readonly method: string;
  readonly url: string;
  readonly body: string | undefined;
  readonly key: K;
}

/**
 * How one rpc goes on the wire and comes back. Every method may throw an
 * RpcError (a request that cannot be sent, an answer that is wrong or carries
 * an error); the shared call maps nothing else.
 */
export interface RpcWire<K> {
  /** The request of a call, from its ProtoJSON (which it may change). */
  request(json: JsonObject): WireRequest<K>;
  /** The error of a non-2xx answer. */
  answerError(res: Response): Promise<RpcError>;
  /** The message's JSON in the text of a 2xx unary answer. */
  answer(text: string, status: number, key: K): JsonValue;
  /** The message's JSON in one server-sent event, or undefined for an event without one. */
  event(e: EventSourceMessage, status: number, key: K): JsonValue | undefined;
  /** A 2xx answer to a streaming call that is not an event stream: its one message's JSON, or throws. */
  notAStream(res: Response, key: K): Promise<JsonValue>;
}

/** How one rpc's messages are written to and read from ProtoJSON. */
export interface RpcCodec {
  /** The request's ProtoJSON, a fresh object the call may change; throws when the request cannot be written. */
  write(request: object): JsonObject;
  /** The message of an answer's ProtoJSON; throws when the JSON is not one. */
  read(json: JsonValue): unknown;
}

/** The codec of each rpc, asked once per rpc with its first binding: by reflection (reflect-codec.ts) or generated (a lean client). */
export type ClientCodecs<R extends ClientRoute = ClientRoute> = (route: R) => RpcCodec;

type AnyMethod = (request: object, options?: CallOptions) => unknown;

interface RpcPlan {
  readonly rpc: string;
  /** The output's full name, for errors. */
  readonly outputName: string;
  readonly streaming: boolean;
  readonly wire: RpcWire<unknown>;
  /** The JSON name of the input's top-level string `tenant` field, when it has one. */
  readonly tenantJsonName: string | undefined;
  readonly headers: CallHeaders;
  readonly codec: RpcCodec;
  /** Whether an UNAVAILABLE answer is tried again (an idempotent unary rpc, retries on: retry.ts). */
  readonly retries: boolean;
}

/**
 * Builds a client object with one method per rpc of a route table, calling
 * over `wire`. Every failure is an RpcError; see `createRouteClient` for
 * which code means what.
 */
export function createWireClient<T, R extends ClientRoute = ClientRoute>(
  routes: readonly R[],
  options: ClientOptions,
  profile: ClientProfile,
  wire: ClientWire,
  codecs: ClientCodecs<R>,
): T {
  const a2aVersion = profile.profile === "a2a" ? (profile.a2aVersion ?? A2A_DEFAULT_VERSIONS[0]) : undefined;
  const contentType = options.contentType ?? wire.contentType;
  const tenant = options.tenant ?? "";
  const maxEventSize = options.maxEventSize ?? DEFAULT_MAX_EVENT_SIZE;
  const maxResponseSize = options.maxResponseSize ?? DEFAULT_MAX_RESPONSE_SIZE;
  const retry = retryPolicy(options.retry);

  let send: ClientNext = (req) => {
    const init: RequestInit = { method: req.method, headers: req instanceof OutgoingRequest ? req.headersInit() : req.headers };
    if (req.body !== undefined) init.body = req.body;
    if (req.signal) init.signal = req.signal;
    const t = telemetry.on;
    if (t === undefined) return fetchFollowing(options.fetch ?? globalThis.fetch, req.url, init, options.redirects);
    // Traced (telemetry.ts): the request carries the active trace context (traceparent, tracestate, baggage).
    const m = req.binding.descriptor;
    return t.clientCall(wire.system ?? "http", m.parent.typeName, m.name, (trace) => {
      for (const k in trace) req.headers.set(k, trace[k]!);
      init.headers = req.headers;
      return fetchFollowing(options.fetch ?? globalThis.fetch, req.url, init, options.redirects);
    });
  };
  for (const icpt of [...(options.interceptors ?? [])].reverse()) send = icpt(send);

  const byRpc = new Map<string, R[]>();
  for (const b of routes) {
    const list = byRpc.get(b.rpc);
    if (list) list.push(b);
    else byRpc.set(b.rpc, [b]);
  }
  const client: Record<string, AnyMethod> = {};
  for (const [rpc, bindings] of byRpc) {
    const first = bindings[0]!;
    const streaming = first.streaming === "server";
    const plan: RpcPlan = {
      rpc,
      outputName: first.output.typeName,
      streaming,
      wire: wire.rpc(bindings),
      tenantJsonName: first.input.fields.find((f) => f.name === A2A_TENANT && f.fieldKind === "scalar")?.jsonName,
      headers: callHeaders(options, { a2aVersion, accept: streaming ? wire.acceptStream : wire.acceptUnary, contentType }),
      codec: codecs(first),
      retries: retry !== undefined && !streaming && isIdempotent(first.descriptor, first.method),
    };
    client[rpc] = streaming ? (request, o) => stream(plan, request, o) : (request, o) => unary(plan, request, o);
  }
  return client as T;

  /** The request of a call (the call adds its signal), and the key to read its answer with. */
  async function prepare(
    plan: RpcPlan,
    request: object,
    callOptions: CallOptions | undefined,
  ): Promise<{ req: OutgoingRequest; key: unknown }> {
    let json: JsonObject;
    try {
      json = plan.codec.write(request);
    } catch (cause) {
      if (cause instanceof RpcError) throw cause;
      throw clientError(Code.INVALID_ARGUMENT, `${plan.rpc}: the request cannot be encoded: ${String(cause)}`, cause);
    }
    if (tenant !== "" && plan.tenantJsonName !== undefined && (json[plan.tenantJsonName] ?? "") === "") {
      json[plan.tenantJsonName] = tenant;
    }
    const w = plan.wire.request(json);
    let headers = plan.headers(w.body !== undefined, callOptions?.headers);
    // Awaited only when a headers function made it a promise: a call without one takes no extra turn.
    if (headers instanceof Promise) headers = await headers;
    return { req: new OutgoingRequest(plan.rpc, w.binding, plan.streaming, w.method, w.url, headers, w.body), key: w.key };
  }

  /** The message of an answer's JSON; `what` names the JSON in the error ("the response"). */
  function readMessage(plan: RpcPlan, json: JsonValue, status: number, what: string): unknown {
    try {
      return plan.codec.read(json);
    } catch (cause) {
      throw new RpcError(Code.INTERNAL, `${plan.rpc}: ${what} is not a valid ${plan.outputName}: ${String(cause)}`, [], {
        httpStatus: status,
        cause,
      });
    }
  }

  async function unary(plan: RpcPlan, request: object, callOptions: CallOptions | undefined): Promise<unknown> {
    const { req, key } = await prepare(plan, request, callOptions);
    const call = startCallSignal(callOptions, options.timeoutMs, false);
    try {
      req.signal = call.signal;
      let res: Response;
      let json: JsonValue;
      for (let attempt = 1; ; attempt++) {
        let retryAfter: string | null = null;
        try {
          res = await send(req);
          if (!res.ok) {
            retryAfter = res.headers.get("retry-after");
            throw await plan.wire.answerError(res);
          }
          // JSON-RPC's errors come in a 200 answer: read here, so that its UNAVAILABLE is tried again too.
          json = plan.wire.answer(await readBounded(res, maxResponseSize, `${plan.rpc}: the response`), res.status, key);
          break;
        } catch (e) {
          const error = call.mapError(e);
          if (!plan.retries || !mayRetry(error, attempt, retry!)) throw error;
          await pause(retryDelay(attempt, retry!, retryAfter, error), call.signal);
          // Cancelled or out of time while waiting: that, not the agent's answer, is why the call ends.
          const stopped = call.stopped();
          if (stopped) throw stopped;
        }
      }
      return readMessage(plan, json, res.status, "the response");
    } finally {
      call.done();
    }
  }

  async function* stream(plan: RpcPlan, request: object, callOptions: CallOptions | undefined): AsyncGenerator<unknown> {
    const { req, key } = await prepare(plan, request, callOptions);
    const call = startCallSignal(callOptions, options.timeoutMs, true);
    let reader: ReadableStreamDefaultReader<Uint8Array> | undefined;
    let finished = false;
    try {
      req.signal = call.signal;
      let res: Response;
      let single: JsonValue | undefined;
      try {
        res = await send(req);
        if (!res.ok) throw await plan.wire.answerError(res);
        if (!isEventStream(res.headers.get("content-type"))) single = await plan.wire.notAStream(res, key);
      } catch (e) {
        throw call.mapError(e);
      }
      if (single !== undefined) {
        // The body is read: nothing to close if the consumer stops here.
        finished = true;
        yield readMessage(plan, single, res.status, "the response");
        return;
      }
      if (!res.body) {
        finished = true;
        return;
      }
      reader = res.body.getReader();
      for await (const e of readSseEvents(reader, call, maxEventSize, plan.rpc, res.status)) {
        const json = plan.wire.event(e, res.status, key);
        if (json !== undefined) yield readMessage(plan, json, res.status, "a stream event");
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
}

function isEventStream(contentType: string | null): boolean {
  return contentType !== null && mediaTypeOf(contentType) === SSE_MEDIA_TYPE;
}
