// Issue 28, items 6 and 9 (Fastify 431): a cross-site POST without a JSON
// media type (what a no-cors browser fetch sends without a preflight) is
// refused on HTTP+JSON and /jsonrpc; a DNS-rebinding page (a Host that is not
// the loopback agent's) reads nothing; what the HTTP parser refuses is a
// google.rpc.Status on Fastify. Against example/server.ts on each framework,
// listening on 127.0.0.1 with its default allowedHosts: HTTP+JSON, JSON-RPC,
// the card, the docs pages and the gRPC port; each also on A2A v0.3's routes,
// methods and gRPC service (`/v1/...`, `message/send`, `a2a.v1.A2AService`,
// no A2A-Version: issue 38), whose refusals must come in v0.3's shape
// (lib/v03.mjs).
import http2 from "node:http2";
import { tsImport } from "tsx/esm/api";
import {
  V03_REST_MESSAGE,
  V03_RPC_MESSAGE,
  rawPost,
  rawRequest,
  rpcErrorCode,
  rpcRequest,
  taskCount,
  v03RestError,
  versionHeaders,
} from "./lib/v03.mjs";

const { startExampleAgent } = await tsImport("../../example/server.ts", import.meta.url);
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] };

/** A check of an answer's status alone. */
const statusIs = (want) => (r) => ({ ok: r.status === want, detail: `HTTP ${r.status}` });
/** A check of a JSON-RPC answer's status and error code. */
const rpcIs = (want, code) => (r) => ({ ok: r.status === want && rpcErrorCode(r.text) === code, detail: r.text.slice(0, 90) });
/** A check of a v0.3 REST error answer. */
const v03Is = (want, code) => (r) => v03RestError(r, want, code);

/** One h2c POST of an empty gRPC request to `path` with the `:authority` given (a2a-version `version`, none when null); the status and grpc-status. */
function grpcWithAuthority(target, authority, path, version) {
  return new Promise((resolve) => {
    const session = http2.connect(`http://${target}`);
    session.on("error", () => resolve({ status: 0 }));
    const req = session.request({
      ":method": "POST",
      ":path": path,
      ":authority": authority,
      "content-type": "application/grpc",
      te: "trailers",
      ...versionHeaders(version),
    });
    let status = 0;
    let grpcStatus;
    req.on("response", (h) => ((status = h[":status"]), (grpcStatus ??= h["grpc-status"])));
    req.on("trailers", (t) => (grpcStatus ??= t["grpc-status"]));
    req.on("data", () => {});
    req.on("error", () => {});
    req.on("close", () => (session.close(), resolve({ status, grpcStatus })));
    req.end(Uint8Array.of(0, 0, 0, 0, 0));
  });
}

export async function run(probe) {
  for (const framework of ["express", "fastify", "hono"]) {
    const agent = await startExampleAgent({ framework, port: 0, grpcPort: 0 });
    const tag = `[${framework}]`;
    const port = new URL(agent.url).port;
    const rebind = { host: `rebind.attacker.example:${port}` };
    const v03 = { version: null };
    const v03Send = JSON.stringify({ message: V03_REST_MESSAGE });
    const v03Rpc = rpcRequest("message/send", { message: V03_RPC_MESSAGE });
    try {
      // A no-cors POST: no Content-Type, A2A-Version (v1.0) in the query, or none (v0.3).
      const before = await taskCount(agent.url);
      for (const [name, url, body, check] of [
        [
          "a no-cors POST (no Content-Type) to /message:send is 400 CONTENT_TYPE_NOT_SUPPORTED",
          `${agent.url}/message:send?A2A-Version=1.0`,
          JSON.stringify({ message }),
          (r) => ({ ok: r.status === 400 && r.text.includes("CONTENT_TYPE_NOT_SUPPORTED"), detail: `HTTP ${r.status}` }),
        ],
        [
          "the same on /jsonrpc is ContentTypeNotSupported (-32005)",
          `${agent.jsonRpcUrl}?A2A-Version=1.0`,
          rpcRequest("SendMessage", { message }),
          rpcIs(200, -32005),
        ],
        [
          "v0.3: a no-cors POST to /v1/message:send (no A2A-Version) is 400 with code -32005",
          `${agent.url}/v1/message:send`,
          v03Send,
          v03Is(400, -32005),
        ],
        ["v0.3: the same on /jsonrpc (message/send, no A2A-Version) is -32005", agent.jsonRpcUrl, v03Rpc, rpcIs(200, -32005)],
      ]) {
        const res = await fetch(url, { method: "POST", body: new Blob([body]) });
        const { ok, detail } = check({ status: res.status, text: await res.text() });
        probe(`${tag} cross-site: ${name}`, ok, detail);
      }
      // DNS rebinding: a Host that is not the loopback agent's, on every route; v0.3's without A2A-Version.
      for (const [name, head, options, check] of [
        ["GET /tasks with Host rebind.attacker.example is 421", "GET /tasks HTTP/1.1", rebind, statusIs(421)],
        [
          "POST /jsonrpc with that Host is 421",
          "POST /jsonrpc HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 43",
          rebind,
          statusIs(421),
        ],
        ["the agent card with that Host is 421", "GET /.well-known/agent-card.json HTTP/1.1", rebind, statusIs(421)],
        ["the example's /openapi.json with that Host is 421", "GET /openapi.json HTTP/1.1", rebind, statusIs(421)],
        // v0.3's REST routes, each answered in v0.3's shape.
        ...[
          ["GET /v1/tasks/t1 (no A2A-Version)", "GET /v1/tasks/t1 HTTP/1.1"],
          ["POST /v1/message:send", rawPost("/v1/message:send", v03Send), v03Send],
          ["GET /v1/card (the extended card)", "GET /v1/card HTTP/1.1"],
        ].map(([what, head, body]) => [
          `v0.3: ${what} with that Host is 421 with a JSON-RPC code`,
          head,
          { ...rebind, ...v03, body },
          v03Is(421),
        ]),
        [
          "v0.3: POST /jsonrpc message/send with that Host is 421 (-32600)",
          rawPost("/jsonrpc", v03Rpc),
          { ...rebind, ...v03, body: v03Rpc },
          rpcIs(421, -32600),
        ],
        [
          "v0.3: the card at v0.2's /.well-known/agent.json with that Host is 421",
          "GET /.well-known/agent.json HTTP/1.1",
          { ...rebind, ...v03 },
          statusIs(421),
        ],
        ["Host localhost:<port> is served", "GET /tasks HTTP/1.1", { host: `localhost:${port}` }, statusIs(200)],
        [
          "v0.3: GET /v1/card with Host localhost:<port> is served",
          "GET /v1/card HTTP/1.1",
          { host: `localhost:${port}`, ...v03 },
          statusIs(200),
        ],
      ]) {
        const { ok, detail } = check(await rawRequest(agent.url, head, options));
        probe(`${tag} rebinding: ${name}`, ok, detail);
      }
      // Neither the cross-site POSTs nor the rebinding ones (v1.0 or v0.3) stored anything.
      const after = await taskCount(agent.url);
      probe(
        `${tag} cross-site and rebinding: none of the requests above (v1.0 and v0.3) created a task`,
        after === before && after >= 0,
        `${before} tasks before, ${after} after`,
      );
      // The gRPC port: v1.0's service and v0.3's (a2a.v1.A2AService, no a2a-version) behind the same check.
      const grpcPort = agent.grpcTarget.split(":").pop();
      const list = "/lf.a2a.v1.A2AService/ListTasks";
      const card03 = "/a2a.v1.A2AService/GetAgentCard";
      for (const [name, authority, path, version, want] of [
        ["gRPC ListTasks with :authority rebind.attacker.example is INVALID_ARGUMENT", "rebind.attacker.example", list, "1.0", "3"],
        ["v0.3: gRPC GetAgentCard with that :authority is INVALID_ARGUMENT", "rebind.attacker.example", card03, null, "3"],
        ["gRPC with :authority localhost:<port> is served", "localhost", list, "1.0", "0"],
        ["v0.3: gRPC GetAgentCard with :authority localhost:<port> is served", "localhost", card03, null, "0"],
      ]) {
        const grpc = await grpcWithAuthority(agent.grpcTarget, `${authority}:${grpcPort}`, path, version);
        probe(`${tag} rebinding: ${name}`, grpc.grpcStatus === want, `HTTP ${grpc.status}, grpc-status ${grpc.grpcStatus}`);
      }

      // Node's parser refuses the headers before any route or A2A-Version is read: v0.3's request gets v1.0's answer.
      for (const [name, path, options] of [
        ["headers too large", "/tasks", {}],
        ["v0.3: headers too large on GET /v1/tasks/t1 (no A2A-Version)", "/v1/tasks/t1", v03],
      ]) {
        const big = await rawRequest(agent.url, `GET ${path} HTTP/1.1\r\nX-Big: ${"x".repeat(20_000)}`, options);
        let status;
        try {
          status = JSON.parse(big.text).error?.code;
        } catch {
          status = undefined;
        }
        // Node answers Express and Hono itself, with an empty body; Fastify's own JSON is what item 9 replaced.
        const ok = big.status === 431 && (framework !== "fastify" || status === 431);
        probe(
          `${tag} ${name}: 431${framework === "fastify" ? " with a google.rpc.Status body" : ""}`,
          ok,
          `HTTP ${big.status}${big.text ? `, ${big.text.slice(0, 60)}` : ""}`,
        );
      }
    } finally {
      await agent.close();
    }
  }
}
