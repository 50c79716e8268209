// Issue 28, items 6 and 9 (Fastify 431): a cross-site POST without a JSON
// media type (what a no-cors browser fetch sends without a preflight) is
// refused on HTTP+JSON and /jsonrpc; a DNS-rebinding page (a Host that is not
// the loopback agent's) reads nothing; what the HTTP parser refuses is a
// google.rpc.Status on Fastify. Against example/server.ts on each framework,
// listening on 127.0.0.1 with its default allowedHosts: HTTP+JSON, JSON-RPC,
// the card, the docs pages and the gRPC port.
import { connect } from "node:net";
import http2 from "node:http2";
import { tsImport } from "tsx/esm/api";

const { startExampleAgent } = await tsImport("../../example/server.ts", import.meta.url);
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] };

/** One raw request with exactly the Host given; status and body. */
function raw(origin, head, host) {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c) => void (text += c));
    socket.on("error", () => {});
    socket.on("close", () => {
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    socket.write(`${head}\r\nHost: ${host}\r\nA2A-Version: 1.0\r\nConnection: close\r\n\r\n`);
  });
}

/** One h2c POST of an empty gRPC ListTasks with the `:authority` given; the status and grpc-status. */
function grpcWithAuthority(target, authority) {
  return new Promise((resolve) => {
    const session = http2.connect(`http://${target}`);
    session.on("error", () => resolve({ status: 0 }));
    const req = session.request({
      ":method": "POST",
      ":path": "/lf.a2a.v1.A2AService/ListTasks",
      ":authority": authority,
      "content-type": "application/grpc",
      te: "trailers",
      "a2a-version": "1.0",
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
    try {
      const before = await (await fetch(agent.url + "/tasks", { headers: { "a2a-version": "1.0" } })).json();
      const noType = await fetch(agent.url + "/message:send?A2A-Version=1.0", {
        method: "POST",
        body: new Blob([JSON.stringify({ message })]),
      });
      const noTypeText = await noType.text();
      probe(
        `${tag} cross-site: a no-cors POST (no Content-Type) to /message:send is 400 CONTENT_TYPE_NOT_SUPPORTED`,
        noType.status === 400 && noTypeText.includes("CONTENT_TYPE_NOT_SUPPORTED"),
        `HTTP ${noType.status}`,
      );
      const rpc = await fetch(agent.jsonRpcUrl + "?A2A-Version=1.0", {
        method: "POST",
        body: new Blob([JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } })]),
      });
      const rpcText = await rpc.text();
      probe(
        `${tag} cross-site: the same on /jsonrpc is ContentTypeNotSupported (-32005)`,
        rpcText.includes("-32005"),
        rpcText.slice(0, 90),
      );
      const after = await (await fetch(agent.url + "/tasks", { headers: { "a2a-version": "1.0" } })).json();
      probe(
        `${tag} cross-site: neither created a task`,
        (after.tasks ?? []).length === (before.tasks ?? []).length,
        `${(before.tasks ?? []).length} tasks before, ${(after.tasks ?? []).length} after`,
      );

      const rebind = await raw(agent.url, "GET /tasks HTTP/1.1", `rebind.attacker.example:${port}`);
      probe(`${tag} rebinding: GET /tasks with Host rebind.attacker.example is 421`, rebind.status === 421, `HTTP ${rebind.status}`);
      const rebindRpc = await raw(
        agent.url,
        "POST /jsonrpc HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: 43",
        `rebind.attacker.example:${port}`,
      );
      probe(`${tag} rebinding: POST /jsonrpc with that Host is 421`, rebindRpc.status === 421, `HTTP ${rebindRpc.status}`);
      const card = await raw(agent.url, "GET /.well-known/agent-card.json HTTP/1.1", `rebind.attacker.example:${port}`);
      probe(`${tag} rebinding: the agent card with that Host is 421`, card.status === 421, `HTTP ${card.status}`);
      const docs = await raw(agent.url, "GET /openapi.json HTTP/1.1", `rebind.attacker.example:${port}`);
      probe(`${tag} rebinding: the example's /openapi.json with that Host is 421`, docs.status === 421, `HTTP ${docs.status}`);
      const grpcPort = agent.grpcTarget.split(":").pop();
      const grpc = await grpcWithAuthority(agent.grpcTarget, `rebind.attacker.example:${grpcPort}`);
      probe(
        `${tag} rebinding: gRPC ListTasks with :authority rebind.attacker.example is INVALID_ARGUMENT`,
        grpc.grpcStatus === "3",
        `HTTP ${grpc.status}, grpc-status ${grpc.grpcStatus}`,
      );
      const grpcLocal = await grpcWithAuthority(agent.grpcTarget, `localhost:${grpcPort}`);
      probe(
        `${tag} rebinding: gRPC with :authority localhost:<port> is served`,
        grpcLocal.grpcStatus === "0",
        `grpc-status ${grpcLocal.grpcStatus}`,
      );
      const local = await raw(agent.url, "GET /tasks HTTP/1.1", `localhost:${port}`);
      probe(`${tag} rebinding: Host localhost:<port> is served`, local.status === 200, `HTTP ${local.status}`);

      const big = await raw(agent.url, `GET /tasks HTTP/1.1\r\nX-Big: ${"x".repeat(20_000)}`, `127.0.0.1:${port}`);
      let status;
      try {
        status = JSON.parse(big.body).error?.code;
      } catch {
        status = undefined;
      }
      // Node answers Express and Hono itself, with an empty body; Fastify's own JSON is what item 9 replaced.
      const ok = big.status === 431 && (framework !== "fastify" || status === 431);
      probe(
        `${tag} headers too large: 431${framework === "fastify" ? " with a google.rpc.Status body" : ""}`,
        ok,
        `HTTP ${big.status}${big.body ? `, ${big.body.slice(0, 60)}` : ""}`,
      );
    } finally {
      await agent.close();
    }
  }
}
