/**
 * For the probes of scripts/security/tenant-and-auth.mjs: the example agent
 * (example/agent.ts) behind a context factory that takes two bearer tokens,
 * alice's and bob's, each good for its own tenant or none, and refuses any
 * other with 401 and a WWW-Authenticate built from the card. HTTP+JSON at /,
 * JSON-RPC at /jsonrpc on `framework`, gRPC on an h2c port (A2A v1.0's
 * service and v0.3's, as example/server.ts serves them); 127.0.0.1 only.
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import type { ConnectRouter } from "@connectrpc/connect";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import { Code, RpcError, wwwAuthenticate, type ContextInput } from "a2a-http";
import { a2aV03GrpcHandlers } from "a2a-http/connect";
import { A2AService as A2AServiceV03 } from "../../../gen/a2a-v0_3_pb.js";
import { a2aServiceConnect as a2aServiceV03Connect } from "../../../gen/a2a-v0_3_http_connect.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { A2AService } from "../../../gen/a2a_pb.js";
import { startBoth } from "../../../test/runtime/server/serve-both.js";
import { createExampleAgent, exampleAgentCard } from "../../../example/agent.js";

const tokens: Record<string, string> = { "Bearer alice-token": "alice", "Bearer bob-token": "bob" };

export async function startAuthAgent(framework: "express" | "fastify" | "hono") {
  const card = exampleAgentCard("http://127.0.0.1");
  card.securitySchemes = { bearer: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "Bearer" } } } as never };
  const challenge = wwwAuthenticate(card, { realm: "example" })!;
  const context = (input: ContextInput) => {
    const who = tokens[input.headers.get("authorization") ?? ""];
    if (who === undefined) {
      input.responseHeaders.set("www-authenticate", challenge);
      throw new RpcError(Code.UNAUTHENTICATED, "a bearer token is required");
    }
    if (input.tenant !== undefined && input.tenant !== who)
      throw new RpcError(Code.PERMISSION_DENIED, `${who} may not act for tenant ${input.tenant}`);
    // One owner per tenant: a team's tasks are the team's.
    return { owner: "" };
  };
  const handlers = createExampleAgent({ card, stepMs: 1 });
  const options = { context };
  // HTTP+JSON and JSON-RPC as the tests serve them (test/runtime/server/serve-both.ts).
  const http = await startBoth(framework, handlers, options);
  const v03 = a2aV03GrpcHandlers(handlers, { v1: A2AService, v03: A2AServiceV03 });
  const routes = (router: ConnectRouter) => {
    a2aServiceConnect(handlers, options)(router);
    if (v03) a2aServiceV03Connect(v03, options)(router);
  };
  const grpc = http2.createServer(connectNodeAdapter({ routes }));
  const sessions = new Set<http2.ServerHttp2Session>();
  grpc.on("session", (s) => (sessions.add(s), s.once("close", () => sessions.delete(s))));
  await new Promise<void>((r) => grpc.listen(0, "127.0.0.1", r));
  return {
    origin: http.origin,
    grpcBaseUrl: `http://127.0.0.1:${(grpc.address() as AddressInfo).port}`,
    challenge,
    async close() {
      await http.close();
      for (const s of sessions) s.destroy();
      await new Promise<void>((r) => grpc.close(() => r()));
      await handlers.close();
    },
  };
}
