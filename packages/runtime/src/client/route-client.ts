import { A2A_V03_JSONRPC_CLIENT, a2aV03RestWire, clientSpeaksV03 } from "../a2a-v03/client.js";
import { A2A_V03 } from "../a2a-v03/common.js";
import { jsonRpcWire } from "../jsonrpc/client.js";
import type { RouteBinding } from "../route-binding.js";
import type { ClientRoute } from "../route-binding.js";
import { httpJsonWire } from "./http-json-wire.js";
import type { ClientOptions, ClientProfile } from "./options.js";
import { reflectCodecs } from "./reflect-codec.js";
import { createWireClient, type ClientCodecs } from "./wire-client.js";

/**
 * Builds a client object with one method per rpc of a route table, over
 * HTTP+JSON or (`options.transport: "jsonrpc"`) JSON-RPC. Generated
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
export function createRouteClient<T>(routes: readonly RouteBinding[], options: ClientOptions, profile: ClientProfile = {}): T {
  return createCodecClient<T, RouteBinding>(routes, reflectCodecs(options), options, profile);
}

/**
 * {@link createRouteClient} with the messages written and read by `codecs`:
 * what a lean generated client (plugin option `client=lean`) calls with its
 * descriptor-free table and generated codecs, so that it bundles no reflection.
 */
export function createCodecClient<T, R extends ClientRoute = ClientRoute>(
  routes: readonly R[],
  codecs: ClientCodecs<R>,
  options: ClientOptions,
  profile: ClientProfile = {},
): T {
  // An agent that speaks only A2A v0.3 (a2a-v03/client.ts): the same API, v0.3 on the wire.
  if (clientSpeaksV03(options)) {
    if (profile.profile !== "a2a" || routes[0]?.descriptor.parent.typeName !== "lf.a2a.v1.A2AService") {
      throw new TypeError(`a2aVersion ${options.a2aVersion}: only a client of A2A v1.0's lf.a2a.v1.A2AService speaks another version`);
    }
    const v03 = { ...profile, a2aVersion: A2A_V03 };
    const wire = options.transport === "jsonrpc" ? jsonRpcWire(options, A2A_V03_JSONRPC_CLIENT) : a2aV03RestWire(options);
    return createWireClient<T, R>(routes, options, v03, wire, codecs);
  }
  const wire = options.transport === "jsonrpc" ? jsonRpcWire(options) : httpJsonWire(options, profile);
  return createWireClient<T, R>(routes, options, profile, wire, codecs);
}
