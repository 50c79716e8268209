// The JSON-RPC 2.0 binding of the client (A2A spec §9): the same typed
// methods, streams, errors and signals as HTTP+JSON (the call is the shared
// one of client/wire-client.ts), every call a POST of
// {"jsonrpc": "2.0", id, method, params} to one URL.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { JSON_MEDIA_TYPE } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import { DEFAULT_MAX_RESPONSE_SIZE, jsonOrUndefined, readBounded } from "../client/body.js";
import type { ClientOptions, ClientProfile } from "../client/options.js";
import { reflectCodecs } from "../client/reflect-codec.js";
import type { RouteBinding } from "../route-binding.js";
import { rpcErrorFromResponse } from "../client/status.js";
import { createWireClient, SSE_MEDIA_TYPE, type ClientWire, type RpcWire } from "../client/wire-client.js";
import { fromJsonRpcError } from "./errors.js";
import { isJsonObject } from "../json-object.js";

/**
 * Builds a client object with one method per rpc of a route table that
 * speaks JSON-RPC 2.0 to `options.baseUrl` (the interface URL itself; no
 * path is added). `createRouteClient` hands over to it for `transport:
 * "jsonrpc"`. Errors are RpcErrors as over HTTP+JSON: a JSON-RPC error object
 * becomes the code of its A2A reason (see {@link fromJsonRpcError}); a
 * response that is not JSON-RPC, or answers another id, is INTERNAL.
 */
export function createJsonRpcClient<T>(routes: readonly RouteBinding[], options: ClientOptions, profile: ClientProfile = {}): T {
  return createWireClient<T, RouteBinding>(routes, options, profile, jsonRpcWire(options), reflectCodecs(options));
}

/** One rpc in another protocol version's JSON-RPC: its method name and its translations. */
export interface JsonRpcClientMethod {
  readonly name: string;
  /** The rpc's request ProtoJSON as the method's params. */
  readonly params: (request: JsonObject) => JsonValue;
  /** The method's `result` (untrusted) as the rpc's response ProtoJSON; throws for a wrong shape. */
  readonly result: (result: unknown) => JsonValue;
}

/** Another protocol version's JSON-RPC methods for the service's rpcs (A2A v0.3's: a2a-v03/client.ts). */
export interface JsonRpcClientDialect {
  /** The method of an rpc (proto name); throws an RpcError when the version has none. */
  method(rpc: string): JsonRpcClientMethod;
}

/**
 * JSON-RPC on the wire: the method is the proto's rpc name ("SendMessage"),
 * the params the request's ProtoJSON; with a dialect, its method and
 * translations instead.
 */
export function jsonRpcWire(options: ClientOptions, dialect?: JsonRpcClientDialect): ClientWire {
  const url = options.baseUrl;
  const maxResponseSize = options.maxResponseSize ?? DEFAULT_MAX_RESPONSE_SIZE;
  let nextId = 1;
  return {
    system: "jsonrpc",
    contentType: JSON_MEDIA_TYPE,
    acceptUnary: JSON_MEDIA_TYPE,
    // A server may answer a stream that fails at once with a plain JSON-RPC error.
    acceptStream: `${SSE_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}`,
    rpc(bindings) {
      const binding = bindings[0]!;
      const rpc = binding.rpc;
      let spoken: JsonRpcClientMethod | undefined;
      const dialectMethod = () => (spoken ??= dialect!.method(binding.descriptor.name));
      const method = binding.descriptor.name;
      /** The message's JSON in one JSON-RPC response (a unary answer or one stream event). */
      const result = (envelope: unknown, text: string, status: number, id: number): JsonValue => {
        if (!isEnvelope(envelope)) {
          throw new RpcError(Code.INTERNAL, `${rpc}: the answer is not a JSON-RPC 2.0 response: ${text.slice(0, 200)}`, [], {
            httpStatus: status,
          });
        }
        if (envelope["error"] !== undefined) throw withStatus(fromJsonRpcError(envelope["error"], status), status);
        if (envelope["id"] !== id) {
          throw new RpcError(Code.INTERNAL, `${rpc}: the JSON-RPC response answers id ${JSON.stringify(envelope["id"])}, not ${id}`, [], {
            httpStatus: status,
          });
        }
        if (dialect) {
          try {
            return dialectMethod().result(envelope["result"]);
          } catch (cause) {
            const why = cause instanceof Error ? cause.message : String(cause);
            throw new RpcError(Code.INTERNAL, `${rpc}: the result is not the version's: ${why}`, [], { httpStatus: status, cause });
          }
        }
        // DeleteTaskPushNotificationConfig answers `result: null` on some servers (google.protobuf.Empty).
        return (envelope["result"] ?? {}) as JsonValue;
      };
      const wire: RpcWire<number> = {
        request(params) {
          const id = nextId++;
          const m = dialect ? dialectMethod() : undefined;
          const body = m ? { jsonrpc: "2.0", id, method: m.name, params: m.params(params) } : { jsonrpc: "2.0", id, method, params };
          return { binding, method: "POST", url, body: JSON.stringify(body), key: id };
        },
        /** A non-2xx answer: its JSON-RPC error object when it has one, else a google.rpc.Status or the status alone. */
        async answerError(res) {
          const text = await readBounded(res, maxResponseSize, `the HTTP ${res.status} error body`).catch(() => "");
          const envelope = jsonOrUndefined(text);
          if (isEnvelope(envelope) && envelope["error"] !== undefined)
            return withStatus(fromJsonRpcError(envelope["error"], res.status), res.status);
          return rpcErrorFromResponse(new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers }));
        },
        answer: (text, status, id) => result(jsonOrUndefined(text), text, status, id),
        // Every event (`event: error` too) is one JSON-RPC response.
        event: (e, status, id) => (e.data === "" ? undefined : result(jsonOrUndefined(e.data), e.data, status, id)),
        // An error before the first event comes as a plain JSON-RPC answer; a
        // server that answers with one result gave the stream's one event.
        async notAStream(res, id) {
          const text = await readBounded(res, maxResponseSize, `${rpc}: the response`);
          return result(jsonOrUndefined(text), text, res.status, id);
        },
      };
      return wire as RpcWire<unknown>;
    },
  };
}

function isEnvelope(v: unknown): v is Record<string, unknown> {
  return isJsonObject(v) && v["jsonrpc"] === "2.0";
}

/** The error as decoded, but with the HTTP status of the answer when it was not a 2xx. */
function withStatus(err: RpcError, status: number): RpcError {
  if (status >= 200 && status < 300) return err;
  return new RpcError(err.code, err.message, err.details, { httpStatus: status });
}
