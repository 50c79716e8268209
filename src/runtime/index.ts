export { parsePathTemplate, PathTemplateError } from "../httprule/path-template.js";
export type { PathTemplate, TemplateSegment, TemplateVariable } from "../httprule/path-template.js";
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
export * from "./client/index.js";
export * from "./server/index.js";
export * from "./codec/index.js";
