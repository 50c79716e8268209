/**
 * The fetch client runtime behind the generated `create<Service>Client`.
 *
 * - Binding: of an rpc's bindings, those whose path variables are all set (a
 *   non-empty value) and match their patterns are eligible; the one binding the
 *   most fields wins, ties go to proto order. A single-segment variable takes
 *   any non-empty text (its "/" is escaped); a multi-segment one must match its
 *   pattern segment by segment. `.`/`..` segments are refused.
 * - Encoding: path values escape every byte but `[-_.~0-9a-zA-Z]` (multi-segment
 *   values keep "/"); unbound fields go to the query by JSON name, dotted for
 *   nested messages, ProtoJSON values, repeated keys; `body: "*"` sends the
 *   request without its path fields, `body: "field"` that field's JSON.
 * - Tenant: `options.tenant` fills an unset top-level `tenant` field of the
 *   request (any profile), so the `/{tenant}/...` binding wins.
 * - A2A profile (its rules from `a2a.ts`): `A2A-Version` on every call,
 *   `application/a2a+json` bodies over HTTP+JSON (option `contentType`), POST
 *   for the subscribe rpcs (SubscribeToTask, v0.3's TaskSubscription), any
 *   2xx, empty bodies as empty messages; see {@link a2aErrorReason} for A2A
 *   error types.
 * - Transport: HTTP+JSON, or JSON-RPC 2.0 (`transport: "jsonrpc"`), sharing
 *   one call (`wire-client.ts`): headers, interceptors, redirects, signal and
 *   deadline, bounded reads, SSE.
 * - Errors are all RpcError; see {@link createRouteClient} for which code means what
 *   (`httpStatus` 0 when no HTTP answer was received).
 */
export { createCodecClient, createRouteClient } from "./route-client.js";
export type { ClientField, ClientMessage, ClientRoute } from "../route-binding.js";
export type { ClientCodecs, RpcCodec } from "./wire-client.js";
export { protoNameOf } from "../proto-name.js";
export { createLeanClient, leanRpcName, leanUnder, type LeanRoute, type LeanVariable } from "./lean-client.js";
export { leanDuration, leanFieldMask, leanListValue, leanStruct, leanTimestamp, leanValue, leanWrapper } from "./lean-wkt.js";
export { leanAsString, leanDouble, leanFloat, leanInt64, leanMapKey, leanUint64 } from "./lean-numbers.js";
export { leanAny } from "./lean-any.js";
export {
  readLean,
  writeLean,
  type LeanEnum,
  type LeanField,
  type LeanMapKey,
  type LeanMessage,
  type LeanOptions,
  type LeanScalar,
  type LeanType,
  type LeanWkt,
} from "./lean-json.js";
export { DEFAULT_MAX_EVENT_SIZE } from "./options.js";
export type {
  CallOptions,
  ClientInterceptor,
  ClientNext,
  ClientOptions,
  ClientProfile,
  ClientRequest,
  HeadersOption,
} from "./options.js";
export { escapeComponent, escapeMultiSegment } from "./encode.js";
export { DEFAULT_MAX_RESPONSE_SIZE } from "./body.js";
export { rpcErrorFromResponse, rpcErrorFromStatusJson } from "./status.js";
export { pickTransport } from "./transport.js";
export { fetchFollowing, MAX_REDIRECTS, type RedirectPolicy } from "./redirect.js";
export type { AgentInterfaceLike, ClientBinding, PickedTransport } from "./transport.js";
