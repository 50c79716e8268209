/**
 * `a2a-http/fastify`: serving on Fastify 5. A subpath of its own because it
 * imports `node:http` (Fastify runs on Node's server), which the root
 * `a2a-http` must not pull into a browser or Worker bundle.
 */
export {
  registerFastifyService,
  registerFastifyHandler,
  fastifyFrameworkErrors,
  fastifyClientErrors,
  fastifyOptions,
  healthFastify,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_HEADERS_TIMEOUT_MS,
} from "./server/fastify.js";
export { agentCardFastify } from "./server/agent-card.js";
