// Issue 28, items 2, 4 and 9 (path ids): one tenant per request, seen by
// authentication, on every binding; authentication before work; an early
// answer reaches a client still sending; ids and tenants that cannot name a
// resource. Against the example agent behind a two-token context factory
// (lib/auth-agent.ts), on each framework, 127.0.0.1 only.
import { connect } from "node:net";
import { create } from "@bufbuild/protobuf";
import { createClient, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { tsImport } from "tsx/esm/api";

const { startAuthAgent } = await tsImport("./lib/auth-agent.ts", import.meta.url);
const { A2AService, ListTasksRequestSchema } = await tsImport("../../gen/a2a_pb.ts", import.meta.url);

const v = { "a2a-version": "1.0" };
const as = (who, more = {}) => ({ ...v, authorization: `Bearer ${who}-token`, ...more });
const json = { "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] };

async function call(url, init) {
  const res = await fetch(url, init);
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** `n` raw POSTs of `bytes` each, Connection: close, sent faster than the answer comes; the status each read, or "lost: ...". */
function closingSenders(origin, path, bytes, n, version = "1.0") {
  const { hostname, port } = new URL(origin);
  const one = () =>
    new Promise((resolve) => {
      const socket = connect(Number(port), hostname);
      let text = "";
      let error = "";
      let sent = 0;
      socket.setEncoding("latin1");
      socket.on("data", (c) => void (text += c));
      socket.on("error", (e) => void (error = e.code ?? e.message));
      socket.on("close", () => {
        clearInterval(timer);
        const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
        resolve(m ? m[1] : `lost (${error || "closed"})`);
      });
      socket.write(
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: ${version}\r\nContent-Type: application/json\r\nConnection: close\r\nContent-Length: ${bytes}\r\n\r\n`,
      );
      const chunk = Buffer.alloc(65536, 32);
      const chunks = Math.ceil(bytes / 65536);
      const timer = setInterval(() => {
        for (let k = 0; k < 8 && sent < chunks && !socket.destroyed; k++, sent++)
          socket.write(sent === chunks - 1 ? chunk.subarray(0, bytes - 65536 * (chunks - 1)) : chunk);
        if (sent >= chunks || socket.destroyed) clearInterval(timer);
      }, 1);
    });
  return Promise.all(Array.from({ length: n }, one));
}

/**
 * A raw JSON-RPC POST that announces `bytes` of body and sends only its first
 * `sendFirst`: the status, the headers, the body and the ms from the headers
 * to the whole answer, or undefined when none came in `waitMs` (a server that
 * reads the body before authenticating waits for the rest).
 */
function withheld(origin, bytes, sendFirst, waitMs = 3000) {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    let start = 0;
    const timer = setTimeout(() => (socket.destroy(), resolve(undefined)), waitMs);
    socket.setEncoding("latin1");
    socket.on("error", () => {});
    socket.on("data", (c) => {
      text += c;
      const end = text.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(text);
      if (end < 0 || !length || text.length < end + 4 + Number(length[1])) return;
      clearTimeout(timer);
      socket.destroy();
      resolve({
        status: Number(text.slice(9, 12)),
        headers: text.slice(0, end).toLowerCase(),
        body: text.slice(end + 4),
        ms: performance.now() - start,
      });
    });
    socket.write(
      `POST /jsonrpc HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
      () => {
        start = performance.now();
        if (sendFirst > 0) socket.write(Buffer.alloc(sendFirst, 32));
      },
    );
  });
}

/** Runs `work` while sampling this process's heap (the agent runs in it): the result and the peak above the start, in MB. */
async function heapPeak(work) {
  const base = process.memoryUsage().heapUsed;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 2);
  try {
    const result = await work();
    peak = Math.max(peak, process.memoryUsage().heapUsed);
    return { result, mb: (peak - base) / 2 ** 20 };
  } finally {
    clearInterval(timer);
  }
}

export async function run(probe) {
  for (const framework of ["express", "fastify", "hono"]) {
    const agent = await startAuthAgent(framework);
    const at = (p) => agent.origin + p;
    const tag = `[${framework}]`;
    try {
      // Bob's task, in bob's tenant.
      const made = await call(at("/bob/message:send"), { method: "POST", headers: as("bob", json), body: JSON.stringify({ message }) });
      const id = JSON.parse(made.text).task?.id;
      probe(`${tag} setup: bob creates a task in tenant bob`, made.status === 200 && typeof id === "string", `HTTP ${made.status}`);

      // Item 2: one tenant, seen by authentication.
      const cases = [
        ["GET /tasks?tenant=bob with alice's token", "GET", "/tasks?tenant=bob", undefined, 403],
        ["GET /tasks/{bob's}?tenant=bob with alice's token", "GET", `/tasks/${id}?tenant=bob`, undefined, 403],
        ['POST /tasks/{bob\'s}:cancel {"tenant":"bob"} with alice\'s token', "POST", `/tasks/${id}:cancel`, { tenant: "bob" }, 403],
        ["GET /alice/tasks?tenant=bob (tenants disagree)", "GET", "/alice/tasks?tenant=bob", undefined, 400],
        ['POST /alice/tasks/{id}:cancel {"tenant":"bob"} (tenants disagree)', "POST", `/alice/tasks/${id}:cancel`, { tenant: "bob" }, 400],
      ];
      for (const [name, method, path, body, want] of cases) {
        const res = await call(at(path), {
          method,
          headers: as("alice", body ? json : {}),
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        probe(`${tag} tenant: ${name} is ${want}`, res.status === want, `HTTP ${res.status}`);
      }
      const still = await call(at(`/bob/tasks/${id}`), { headers: as("bob") });
      probe(
        `${tag} tenant: bob's task was not canceled by alice`,
        still.status === 200 && !still.text.includes("TASK_STATE_CANCELED"),
        JSON.parse(still.text).status?.state ?? still.text.slice(0, 80),
      );
      const rpc = await call(at("/jsonrpc"), {
        method: "POST",
        headers: as("alice", json),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: { tenant: "bob" } }),
      });
      probe(`${tag} tenant: JSON-RPC ListTasks {tenant: bob} with alice's token is 403`, rpc.status === 403, `HTTP ${rpc.status}`);
      const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: agent.grpcBaseUrl }));
      const g = await grpc.listTasks(create(ListTasksRequestSchema, { tenant: "bob" }), { headers: as("alice") }).then(
        () => "OK",
        (e) => ConnectError.from(e).code,
      );
      probe(`${tag} tenant: gRPC ListTasks {tenant: bob} with alice's token is PERMISSION_DENIED`, g === 7, `code ${g}`);

      // Item 9: ids and tenants that cannot name a resource.
      for (const [name, path] of [
        ["a task id of NUL", "/bob/tasks/a%00b"],
        ["a task id with a control character", "/bob/tasks/a%1Bb"],
        ["a task id with /", "/bob/tasks/a%2Fb"],
        ["a tenant with /", "/b%2Fob/tasks"],
      ]) {
        const res = await call(at(path), { headers: as("bob") });
        probe(`${tag} path: ${name} is 400`, res.status === 400, `HTTP ${res.status}`);
      }
      // fetch would resolve a dot segment itself: this one goes raw.
      const dots = await closingSenders(agent.origin, "/%2E%2E/tasks", 2, 1);
      probe(`${tag} path: a tenant of .. (as %2E%2E) is 400`, dots[0] === "400", dots[0]);
      const nulRpc = await call(at("/jsonrpc"), {
        method: "POST",
        headers: as("bob", json),
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "a\u0000b" } }),
      });
      probe(
        `${tag} path: JSON-RPC GetTask of a NUL id is refused as the path refuses it`,
        nulRpc.text.includes("-32602"),
        nulRpc.text.slice(0, 100),
      );

      // Item 4: authentication before work. JSON-RPC authenticates on the
      // headers: a body withheld after them still gets its 401.
      const early = await withheld(agent.origin, 3_000_000, 0);
      probe(
        `${tag} auth: JSON-RPC 3 MB SendMessage without a token, its body withheld, is a 401 (id null, WWW-Authenticate) before the body is read`,
        early?.status === 401 &&
          early.headers.includes(`www-authenticate: ${agent.challenge.toLowerCase()}`) &&
          JSON.parse(early.body).id === null,
        early ? `HTTP ${early.status} in ${early.ms.toFixed(1)} ms` : "no answer in 3 s",
      );
      const held = await heapPeak(() => Promise.all(Array.from({ length: 8 }, () => withheld(agent.origin, 3_000_000, 65536))));
      probe(
        `${tag} auth: eight of them at once, 64 KiB of each 3 MB sent, are all 401`,
        held.result.every((r) => r?.status === 401),
        `${held.result.map((r) => r?.status ?? "none").join(" ")}, slowest ${Math.max(...held.result.map((r) => r?.ms ?? Infinity)).toFixed(1)} ms, heap +${held.mb.toFixed(1)} MB`,
      );
      const big = JSON.stringify({
        jsonrpc: "2.0",
        id: 1,
        method: "SendMessage",
        params: { message: { ...message, parts: [{ data: Array(90_000).fill("x".repeat(28)) }] } },
      });
      let t = performance.now();
      const noToken = await call(at("/jsonrpc"), { method: "POST", headers: { ...v, ...json }, body: big });
      const ms401 = performance.now() - t;
      probe(
        `${tag} auth: JSON-RPC ${(big.length / 2 ** 20).toFixed(1)} MiB SendMessage sent whole without a token is a 401 with WWW-Authenticate`,
        noToken.status === 401 && noToken.headers.get("www-authenticate") === agent.challenge,
        `HTTP ${noToken.status} in ${ms401.toFixed(0)} ms`,
      );
      t = performance.now();
      const eight = await heapPeak(() =>
        Promise.all(Array.from({ length: 8 }, () => call(at("/jsonrpc"), { method: "POST", headers: { ...v, ...json }, body: big }))),
      );
      probe(
        `${tag} auth: eight of them at once are all 401`,
        eight.result.every((r) => r.status === 401),
        `${eight.result.map((r) => r.status).join(" ")} in ${(performance.now() - t).toFixed(0)} ms, heap +${eight.mb.toFixed(1)} MB`,
      );
      const rpcSenders = await closingSenders(agent.origin, "/jsonrpc", 3 * 2 ** 20, 8);
      probe(
        `${tag} auth: 8 clients still sending 3 MiB to /jsonrpc (Connection: close) all read their 401, no EPIPE`,
        rpcSenders.every((s) => s === "401"),
        rpcSenders.join(" "),
      );
      const http = await call(at("/message:send"), { method: "POST", headers: { ...v, ...json }, body: "{" });
      probe(
        `${tag} auth: HTTP+JSON 401 carries WWW-Authenticate`,
        http.status === 401 && http.headers.get("www-authenticate") === agent.challenge,
        `HTTP ${http.status}, ${http.headers.get("www-authenticate")}`,
      );
      const senders = await closingSenders(agent.origin, "/message:send", 3 * 2 ** 20, 8);
      probe(
        `${tag} auth: 8 clients still sending 3 MiB (Connection: close) all read their 401, no EPIPE`,
        senders.every((s) => s === "401"),
        senders.join(" "),
      );
      const version = await closingSenders(agent.origin, "/message:send", 3 * 2 ** 20, 8, "9.9");
      probe(
        `${tag} auth: 8 clients still sending 3 MiB with A2A-Version 9.9 all read their 400`,
        version.every((s) => s === "400"),
        version.join(" "),
      );
    } finally {
      await agent.close();
    }
  }
}
