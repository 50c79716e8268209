export { createRouteClient, DEFAULT_MAX_EVENT_SIZE } from "./core.js";
export type {
  CallOptions,
  ClientInterceptor,
  ClientNext,
  ClientOptions,
  ClientProfile,
  ClientRequest,
  HeadersOption,
} from "./core.js";
export { escapeComponent, escapeMultiSegment } from "./encode.js";
export { rpcErrorFromResponse, rpcErrorFromStatusJson } from "./status.js";
export { A2AErrorReason, A2A_ERROR_DOMAIN, a2aErrorReason, isA2AError } from "./a2a-errors.js";
