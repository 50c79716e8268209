/**
 * The JSON-RPC 2.0 binding of a service (A2A spec §9), on the same handler
 * object and route table as HTTP+JSON: the server core, the client, and the
 * mapping between JSON-RPC error objects and RpcError.
 */
export { createJsonRpcHandler } from "./server.js";
export type { JsonRpcHandlerOptions, JsonRpcServerOptions } from "./server.js";
export { createJsonRpcClient } from "./client.js";
export { JsonRpcCode, toJsonRpcError, fromJsonRpcError, jsonRpcCodeOfReason } from "./errors.js";
export type { JsonRpcErrorObject } from "./errors.js";
