export {
  createHttpHandler,
  SseStream,
  DEFAULT_BODY_LIMIT,
} from "./core.js";
export type {
  UniversalServerRequest,
  UniversalServerResponse,
  UniversalHandler,
  ResponseHeaders,
  ContextInput,
  ContextExtra,
  ServerErrorInfo,
  ServerOptions,
  HttpHandlerOptions,
} from "./core.js";
export { createNodeHandler, nodeMiddleware, serveNode, writeNodeResponse, NodeRequest } from "./node.js";
export type { NodeHandler, NodeRequestInfo } from "./node.js";
export { createFetchHandler } from "./fetch.js";
export type { FetchHandler, FetchRequestInfo } from "./fetch.js";
export { registerFastifyService, fastifyFrameworkErrors } from "./fastify.js";
export { stripMountSegments } from "./mount.js";
export {
  A2A_DOMAIN,
  A2A_DEFAULT_VERSIONS,
  A2A_MEDIA_TYPE,
  A2A_VERSION_WHEN_MISSING,
  A2AErrors,
  a2aCode,
  a2aError,
  withA2AErrorInfo,
  isA2AVersionSupported,
  parseA2AExtensions,
} from "../a2a.js";
