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
export { createNodeHandler, nodeHandlerOf, nodeMiddleware, serveNode, writeNodeResponse, NodeRequest } from "./node.js";
export type { NodeHandler, NodeRequestInfo } from "./node.js";
export { createFetchHandler, fetchHandlerOf } from "./fetch.js";
export type { FetchHandler, FetchRequestInfo } from "./fetch.js";
export { registerFastifyService, registerFastifyHandler, fastifyFrameworkErrors, fastifyClientErrors, fastifyOptions, DEFAULT_REQUEST_TIMEOUT_MS, DEFAULT_HEADERS_TIMEOUT_MS } from "./fastify.js";
export { stripMountSegments } from "./mount.js";
export {
  agentCardAnswer,
  agentCardExpress,
  agentCardFastify,
  agentCardFetch,
  agentCardHono,
  DEFAULT_AGENT_CARD_MAX_AGE,
} from "./agent-card.js";
export type { AgentCardSource, AgentCardOptions, AgentCardAnswer, AgentCardResponder, HeaderReader } from "./agent-card.js";
export type { AllowedHosts } from "./hosts.js";
export { allowedHostsCheck } from "./hosts.js";
export { DEFAULT_STALL_TIMEOUT_MS } from "./stall.js";
