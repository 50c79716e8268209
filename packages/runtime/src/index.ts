/**
 * `a2a-http`: what every host shares, importing nothing from `node:` so that
 * it bundles for browsers, Workers, Bun and Deno: google.rpc errors and codes,
 * the A2A profile's errors and rules, the route and handler types.
 *
 * Each host has its subpath: `a2a-http/client`, `a2a-http/server` (the
 * core, fetch and Hono), `a2a-http/node` (Node's http, Express),
 * `a2a-http/fastify`, `a2a-http/jsonrpc`, `a2a-http/connect` (gRPC),
 * `a2a-http/agent`, `a2a-http/push` (push delivery on Node),
 * `a2a-http/stores`; generated code also calls `a2a-http/codegenv1`, and the
 * plugin `a2a-http/routing` and `a2a-http/profile` (the A2A rules alone). The client, server and JSON-RPC exports below are
 * re-exported so that code written before the subpaths still compiles (none of
 * them reaches `node:`); the Node and Fastify ones moved to their subpaths.
 */
export { parsePathTemplate, PathTemplateError } from "./path-template.js";
export type { PathTemplate, TemplateSegment, TemplateVariable } from "./path-template.js";
export { createRouter } from "./router.js";
export type { Router, RouterBinding, RouteMatch, MethodNotAllowed } from "./router.js";
export {
  Code,
  RpcError,
  isRpcError,
  codeName,
  httpStatusFromCode,
  codeFromHttpStatus,
  errorInfo,
  badRequest,
  ERROR_INFO_TYPE,
  BAD_REQUEST_TYPE,
} from "./errors.js";
export type { ErrorDetail, StatusBody } from "./errors.js";
export type { RouteBinding, HandlerContext } from "./route-binding.js";
export {
  A2A_DOMAIN,
  A2A_DEFAULT_VERSIONS,
  A2A_MEDIA_TYPE,
  A2A_VERSION_WHEN_MISSING,
  A2A_VERSION_HEADER,
  A2A_EXTENSIONS_HEADER,
  A2A_TENANT,
  A2A_SUBSCRIBE_METHODS,
  A2A_JSONRPC_METHOD_ALIASES,
  A2A_LEGACY_PACKAGE_VERSIONS,
  a2aVersionsOfPackage,
  JSON_MEDIA_TYPE,
  A2AErrorReason,
  A2AErrors,
  a2aCode,
  a2aHttpStatus,
  a2aJsonRpcCode,
  a2aReasonOfJsonRpcCode,
  a2aVersionCheck,
  isA2ABodyType,
  isA2ASubscribeMethod,
  mediaTypeOf,
  requestedA2AVersion,
  withSubscribePostTwins,
  a2aError,
  a2aErrorReason,
  isA2AError,
  withA2AErrorInfo,
  isA2AVersionSupported,
  parseA2AExtensions,
} from "./a2a.js";
export { wwwAuthenticate } from "./www-authenticate.js";
export type { WwwAuthenticateOptions } from "./www-authenticate.js";
export * from "./client/index.js";
export * from "./server/index.js";
export * from "./transcoding/index.js";
export * from "./jsonrpc/index.js";
