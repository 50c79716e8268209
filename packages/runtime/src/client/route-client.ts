import { createJsonRpcClient } from "../jsonrpc/client.js";
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
  if (options.transport === "jsonrpc") return createJsonRpcClient<T>(routes, options, profile);
  return createWireClient<T>(routes, options, profile, httpJsonWire(options, profile));
}
