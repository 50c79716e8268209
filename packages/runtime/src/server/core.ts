// Only a forwarder for the adapters (fetch.ts, node.ts, fastify.ts) that still
// import the server core from here: it is split into request.ts, options.ts,
// context.ts, error-answer.ts, deadline.ts, sse.ts and http-json.ts. To be
// deleted once they import from those.
export { createHttpHandler, type HttpHandlerOptions } from "./http-json.js";
export { SseStream } from "./sse.js";
export type { ResponseHeaders, UniversalHandler, UniversalServerRequest, UniversalServerResponse } from "./request.js";
