import { A2A_V03_JSONRPC_CLIENT, a2aV03RestWire, clientSpeaksV03 } from "../a2a-v03/client.js";
import { A2A_V03 } from "../a2a-v03/common.js";
import { createJsonRpcClient, jsonRpcWire } from "../jsonrpc/client.js";
import type { RouteBinding } from "../route-binding.js";
import { httpJsonWire } from "./http-json-wire.js";
import type { ClientOptions, ClientProfile } from "./options.js";
import { createWireClient } from "./wire-client.js";

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
  // An agent that speaks only A2A v0.3 (a2a-v03/client.ts): the same API, v0.3 on the wire.
  if (clientSpeaksV03(options)) {
    if (profile.profile !== "a2a" || routes[0]?.descriptor.parent.typeName !== "lf.a2a.v1.A2AService") {
      throw new TypeError(`a2aVersion ${options.a2aVersion}: only a client of A2A v1.0's lf.a2a.v1.A2AService speaks another version`);
    }
    const v03 = { ...profile, a2aVersion: A2A_V03 };
    const wire = options.transport === "jsonrpc" ? jsonRpcWire(options, A2A_V03_JSONRPC_CLIENT) : a2aV03RestWire(options);
    return createWireClient<T>(routes, options, v03, wire);
  }
  if (options.transport === "jsonrpc") return createJsonRpcClient<T>(routes, options, profile);
  return createWireClient<T>(routes, options, profile, httpJsonWire(options, profile));
}
