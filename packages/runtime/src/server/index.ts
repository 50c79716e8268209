/**
 * `a2a-http/server`: the HTTP+JSON server core (framework-free
 * `UniversalHandler`) and its glue to web-standard Request and Response
 * (fetch, Hono). Nothing here imports from `node:`, so it bundles for
 * browsers, Workers, Bun and Deno; Node's http and Express are
 * `a2a-http/node`, Fastify `a2a-http/fastify`.
 */
export { createHttpHandler } from "./http-json.js";
export type { HttpHandlerOptions } from "./http-json.js";
export { SseStream } from "./sse.js";
export { DEFAULT_BODY_LIMIT } from "./options.js";
export type { ServerErrorInfo, ServerOptions } from "./options.js";
export type { ContextInput, ContextExtra } from "./context.js";
export type { UniversalServerRequest, UniversalServerResponse, UniversalHandler, ResponseHeaders } from "./request.js";
export { createFetchHandler, fetchHandlerOf, healthFetch, healthHono } from "./fetch.js";
export type { FetchHandler, FetchRequestInfo } from "./fetch.js";
export { stripMountSegments } from "./mount.js";
export {
  agentCardAnswer,
  agentCardExpress,
  agentCardFastify,
  agentCardFetch,
  agentCardHono,
  DEFAULT_AGENT_CARD_MAX_AGE,
} from "./agent-card.js";
export { A2A_AGENT_CARD_PATHS } from "../a2a.js";
export type { AgentCardSource, AgentCardOptions, AgentCardAnswer, AgentCardResponder, HeaderReader } from "./agent-card.js";
export type { AllowedHosts } from "./hosts.js";
export { allowedHostsCheck } from "./hosts.js";
export { DEFAULT_STALL_TIMEOUT_MS } from "./stall.js";
export { healthAnswer, healthPath, HEALTH_PATHS, DEFAULT_READY_TIMEOUT_MS } from "./health.js";
export type { HealthAnswer, HealthOptions, HealthResponder, Readiness } from "./health.js";
export { consoleLogger, jsonLogger, loggerFromEnv } from "../logger.js";
export type { Logger, JsonLoggerOptions } from "../logger.js";
