/**
 * `a2a-http/node`: serving on Node's http module and on Express (whose
 * requests are Node's). A subpath of its own because it imports `node:http`:
 * the root `a2a-http` and `a2a-http/server` must bundle for browsers and
 * Workers, which have no such module.
 */
export { createNodeHandler, nodeHandlerOf, nodeMiddleware, serveNode, writeNodeResponse, NodeRequest } from "./server/node.js";
export type { NodeHandler, NodeRequestInfo } from "./server/node.js";
export { agentCardExpress } from "./server/agent-card.js";
export { healthExpress } from "./server/node.js";
