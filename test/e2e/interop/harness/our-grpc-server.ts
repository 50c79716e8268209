/**
 * Our example agent's gRPC binding: the generated connect-es adapter
 * (gen/a2a_http_connect.ts) on `@connectrpc/connect-node` over a plain-text
 * HTTP/2 server (h2c), which serves gRPC, gRPC-Web and Connect. Its card lists
 * the GRPC interface as `127.0.0.1:<port>`, the target form the SDK's gRPC
 * client (grpc-js) dials. Listens on 127.0.0.1, port 0.
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { connectNodeAdapter } from "@connectrpc/connect-node";
import type { AgentCard } from "../../../../gen/a2a_pb.js";
import type { A2AServiceHandlers } from "../../../../gen/a2a_http.js";
import { a2aServiceConnect } from "../../../../gen/a2a_http_connect.js";
import { createPushSender } from "a2a-http/push";
import { createExampleAgent, exampleAgentCard } from "../../../../example/agent.js";

export interface OurGrpcServer {
  /** `127.0.0.1:<port>`, as the card lists it. */
  readonly target: string;
  /** `http://127.0.0.1:<port>`, for connect-es clients. */
  readonly baseUrl: string;
  readonly tenant: string;
  readonly card: AgentCard;
  /** The metadata of every call, by lower-case name. */
  readonly requests: { path: string; headers: Record<string, string | string[] | undefined> }[];
  close(): Promise<void>;
}

export async function startOurGrpcServer(
  options: { tenant?: string; wrap?: (agent: A2AServiceHandlers) => A2AServiceHandlers } = {},
): Promise<OurGrpcServer> {
  const tenant = options.tenant ?? "";
  const card = exampleAgentCard("", tenant);
  card.supportedInterfaces[0]!.protocolBinding = "GRPC";
  // Loopback test webhooks (http://127.0.0.1:9/hook) are allowed: the harness is a local agent.
  const example = createExampleAgent({
    card,
    stepMs: 1,
    pushSender: createPushSender({ allow: { http: true, addresses: ["127.0.0.0/8"] } }),
  });
  const agent = options.wrap ? options.wrap(example) : example;
  const requests: OurGrpcServer["requests"] = [];
  const adapter = connectNodeAdapter({ routes: a2aServiceConnect(agent) });
  const server = http2.createServer((req, res) => {
    requests.push({ path: req.url, headers: { ...req.headers } });
    adapter(req, res);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  const target = `127.0.0.1:${port}`;
  card.supportedInterfaces[0]!.url = target;
  const sessions = new Set<http2.ServerHttp2Session>();
  server.on("session", (s) => {
    sessions.add(s);
    s.once("close", () => sessions.delete(s));
  });
  return {
    target,
    baseUrl: `http://${target}`,
    tenant,
    card,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sessions) s.destroy();
        server.close(() => resolve());
      }),
  };
}
