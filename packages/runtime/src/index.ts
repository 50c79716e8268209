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
  A2AErrorReason,
  A2AErrors,
  a2aCode,
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
export * from "./codec/index.js";
export * from "./jsonrpc/index.js";
