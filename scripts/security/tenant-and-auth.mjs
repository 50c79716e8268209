// Issue 28, items 2, 4 and 9 (path ids): one tenant per request, seen by
// authentication, on every binding; authentication before work; an early
// answer reaches a client still sending; ids and tenants that cannot name a
// resource. Against the example agent behind a two-token context factory
// (lib/auth-agent.ts), on each framework, 127.0.0.1 only. Each also on A2A
// v0.3's routes, methods and gRPC service (no A2A-Version: `/v1/...`,
// `message/send`, `a2a.v1.A2AService`; issue 38), whose refusals must come in v0.3's shape
// (lib/v03.mjs). v0.3 has no tenants: a tenant a v0.3 request names is not
// read, so it acts for none and finds no tenant's task.
import { connect } from "node:net";
import { create } from "@bufbuild/protobuf";
import { createClient, ConnectError } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { tsImport } from "tsx/esm/api";

const { startAuthAgent } = await tsImport("./lib/auth-agent.ts", import.meta.url);
const { A2AService, ListTasksRequestSchema } = await tsImport("../../gen/a2a_pb.ts", import.meta.url);
const { A2AService: A2AServiceV03 } = await tsImport("../../gen/a2a-v0_3_pb.ts", import.meta.url);
const { V03_RPC_MESSAGE, rawRequest, rpcErrorCode, rpcRequest, v03RestError, versionHeaders } = await import("./lib/v03.mjs");

/** `who`'s bearer token in a request of `version` (null: v0.3, no A2A-Version). */
const as = (who, more = {}, version = "1.0") => ({ ...versionHeaders(version), authorization: `Bearer ${who}-token`, ...more });
const json = { "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello" }] };

/** The gRPC code a call fails with, or "OK". */
const grpcCode = (promise) =>
  promise.then(
    () => "OK",
    (e) => ConnectError.from(e).code,
  );

/** A fetch: its status, headers and body; a request that got no answer has the status `lost (<cause>)`, for the probe to report. */
async function call(url, init) {
  try {
    const res = await fetch(url, init);
    return { status: res.status, headers: res.headers, text: await res.text() };
  } catch (e) {
    return { status: `lost (${e.cause?.code ?? e.cause?.message ?? e.message})`, headers: new Headers(), text: "" };
  }
}

/** A2A-Version's header line in a raw request (none for v0.3). */
const versionLine = (version) => (version ? `A2A-Version: ${version}\r\n` : "");

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
        `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${versionLine(version)}Content-Type: application/json\r\nConnection: close\r\nContent-Length: ${bytes}\r\n\r\n`,
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
 * A raw JSON-RPC POST of A2A-Version `version` (none when null: v0.3) that
 * announces `bytes` of body and sends only its first `sendFirst`: the
 * status, the headers, the body and the ms from the headers to the whole
 * answer, or undefined when none came in `waitMs` (a server that reads the
 * body before authenticating waits for the rest).
 */
function withheld(origin, bytes, sendFirst, version, waitMs = 3000) {
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
      `POST /jsonrpc HTTP/1.1\r\nHost: ${hostname}:${port}\r\n${versionLine(version)}Content-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
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

/**
 * The JSON-RPC requests of the authentication probes, as each version's
 * client sends them: SendMessage of 2.7 MiB (90 000 strings in a data part).
 */
const bigRpc = [
  { name: "", version: "1.0", method: "SendMessage", message: { ...message, parts: [{ data: Array(90_000).fill("x".repeat(28)) }] } },
  {
    name: "v0.3: ",
    version: null,
    method: "message/send",
    message: { ...V03_RPC_MESSAGE, parts: [{ kind: "data", data: { value: Array(90_000).fill("x".repeat(28)) } }] },
  },
];

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

      // Item 2: one tenant, seen by authentication. A case with a JSON-RPC
      // `code` is v0.3's: no A2A-Version, and its answer in v0.3's shape.
      const cases = [
        ["GET /tasks?tenant=bob with alice's token", "GET", "/tasks?tenant=bob", undefined, 403],
        ["GET /tasks/{bob's}?tenant=bob with alice's token", "GET", `/tasks/${id}?tenant=bob`, undefined, 403],
        ['POST /tasks/{bob\'s}:cancel {"tenant":"bob"} with alice\'s token', "POST", `/tasks/${id}:cancel`, { tenant: "bob" }, 403],
        ["GET /alice/tasks?tenant=bob (tenants disagree)", "GET", "/alice/tasks?tenant=bob", undefined, 400],
        ['POST /alice/tasks/{id}:cancel {"tenant":"bob"} (tenants disagree)', "POST", `/alice/tasks/${id}:cancel`, { tenant: "bob" }, 400],
        [
          "v0.3: GET /v1/tasks/{bob's}?tenant=bob with alice's token (no tenant read)",
          "GET",
          `/v1/tasks/${id}?tenant=bob`,
          undefined,
          404,
          -32001,
        ],
        [
          'v0.3: POST /v1/tasks/{bob\'s}:cancel {"tenant":"bob"} with alice\'s token (no tenant read)',
          "POST",
          `/v1/tasks/${id}:cancel`,
          { tenant: "bob" },
          404,
          -32001,
        ],
      ];
      for (const [name, method, path, body, want, code] of cases) {
        const res = await call(at(path), {
          method,
          headers: as("alice", body ? json : {}, code === undefined ? "1.0" : null),
          ...(body ? { body: JSON.stringify(body) } : {}),
        });
        const { ok, detail } =
          code === undefined ? { ok: res.status === want, detail: `HTTP ${res.status}` } : v03RestError(res, want, code);
        probe(`${tag} tenant: ${name} is ${want}${code === undefined ? "" : ` (${code})`}`, ok, detail);
      }
      for (const [name, method, params, version, want, code] of [
        ["JSON-RPC ListTasks {tenant: bob} with alice's token is 403", "ListTasks", { tenant: "bob" }, "1.0", 403],
        ...["tasks/get", "tasks/cancel"].map((method) => [
          `v0.3: JSON-RPC ${method} {id: bob's, tenant: bob} with alice's token is -32001 (no tenant read)`,
          method,
          { id, tenant: "bob" },
          null,
          200,
          -32001,
        ]),
      ]) {
        const rpc = await call(at("/jsonrpc"), { method: "POST", headers: as("alice", json, version), body: rpcRequest(method, params) });
        const got = rpcErrorCode(rpc.text);
        probe(`${tag} tenant: ${name}`, rpc.status === want && (code === undefined || got === code), `HTTP ${rpc.status}, error ${got}`);
      }
      const transport = createGrpcTransport({ baseUrl: agent.grpcBaseUrl });
      const grpc = createClient(A2AService, transport);
      const grpc03 = createClient(A2AServiceV03, transport);
      const v03Alice = { headers: as("alice", {}, null) };
      for (const [name, rpc, want] of [
        [
          "gRPC ListTasks {tenant: bob} with alice's token is PERMISSION_DENIED",
          () => grpc.listTasks(create(ListTasksRequestSchema, { tenant: "bob" }), { headers: as("alice") }),
          7,
        ],
        [
          "v0.3: gRPC GetTask {name: tasks/<bob's>} with alice's token is NOT_FOUND (no tenant read)",
          () => grpc03.getTask({ name: `tasks/${id}` }, v03Alice),
          5,
        ],
        [
          "v0.3: gRPC CancelTask {name: tasks/<bob's>} with alice's token is NOT_FOUND (no tenant read)",
          () => grpc03.cancelTask({ name: `tasks/${id}` }, v03Alice),
          5,
        ],
      ]) {
        const g = await grpcCode(rpc());
        probe(`${tag} tenant: ${name}`, g === want, `code ${g}`);
      }
      const still = await call(at(`/bob/tasks/${id}`), { headers: as("bob") });
      probe(
        `${tag} tenant: bob's task was not canceled by alice (v1.0 or v0.3)`,
        still.status === 200 && !still.text.includes("TASK_STATE_CANCELED"),
        JSON.parse(still.text).status?.state ?? still.text.slice(0, 80),
      );

      // Item 9: ids and tenants that cannot name a resource, sent raw (fetch
      // would resolve a dot segment itself). v0.3's ids are in its /v1/ paths.
      for (const [name, path, version = "1.0", check = 400] of [
        ["a task id of NUL", "/bob/tasks/a%00b"],
        ["a task id with a control character", "/bob/tasks/a%1Bb"],
        ["a task id with /", "/bob/tasks/a%2Fb"],
        ["a tenant with /", "/b%2Fob/tasks"],
        ["a tenant of .. (as %2E%2E)", "/%2E%2E/tasks"],
        ["v0.3: GET /v1/tasks/{id} of a task id of NUL", "/v1/tasks/a%00b", null, -32602],
        ["v0.3: GET /v1/tasks/{id} of a task id with a control character", "/v1/tasks/a%1Bb", null, -32602],
        ["v0.3: GET /v1/tasks/{id} of a task id with /", "/v1/tasks/a%2Fb", null, -32602],
        ["v0.3: a task id of .. (as %2E%2E)", "/v1/tasks/%2E%2E", null, -32600],
      ]) {
        const res = await rawRequest(agent.origin, `GET ${path} HTTP/1.1\r\nAuthorization: Bearer bob-token`, { version });
        const { ok, detail } = version ? { ok: res.status === check, detail: `HTTP ${res.status}` } : v03RestError(res, 400, check);
        probe(`${tag} path: ${name} is 400${version ? "" : ` (${check})`}`, ok, detail);
      }
      for (const [name, method, version] of [
        ["JSON-RPC GetTask of a NUL id", "GetTask", "1.0"],
        ["v0.3: JSON-RPC tasks/get of a NUL id", "tasks/get", null],
      ]) {
        const nul = await call(at("/jsonrpc"), {
          method: "POST",
          headers: as("bob", json, version),
          body: rpcRequest(method, { id: "a\u0000b" }),
        });
        probe(`${tag} path: ${name} is refused as the path refuses it (-32602)`, rpcErrorCode(nul.text) === -32602, nul.text.slice(0, 100));
      }
      const nulGrpc = await grpcCode(grpc03.getTask({ name: "tasks/a\u0000b" }, { headers: as("bob", {}, null) }));
      probe(
        `${tag} path: v0.3: gRPC GetTask {name: tasks/<NUL id>} is refused as the path refuses it (INVALID_ARGUMENT)`,
        nulGrpc === 3,
        `code ${nulGrpc}`,
      );

      // Item 4: authentication before work. JSON-RPC authenticates on the
      // headers: a body withheld after them still gets its 401.
      for (const d of bigRpc) {
        const early = await withheld(agent.origin, 3_000_000, 0, d.version);
        probe(
          `${tag} auth: ${d.name}JSON-RPC 3 MB ${d.method} without a token, its body withheld, is a 401 (id null, WWW-Authenticate) before the body is read`,
          early?.status === 401 &&
            early.headers.includes(`www-authenticate: ${agent.challenge.toLowerCase()}`) &&
            JSON.parse(early.body).id === null,
          early ? `HTTP ${early.status} in ${early.ms.toFixed(1)} ms` : "no answer in 3 s",
        );
        const held = await heapPeak(() =>
          Promise.all(Array.from({ length: 8 }, () => withheld(agent.origin, 3_000_000, 65536, d.version))),
        );
        probe(
          `${tag} auth: ${d.name}eight of them at once, 64 KiB of each 3 MB sent, are all 401`,
          held.result.every((r) => r?.status === 401),
          `${held.result.map((r) => r?.status ?? "none").join(" ")}, slowest ${Math.max(...held.result.map((r) => r?.ms ?? Infinity)).toFixed(1)} ms, heap +${held.mb.toFixed(1)} MB`,
        );
        const big = JSON.stringify({ jsonrpc: "2.0", id: 1, method: d.method, params: { message: d.message } });
        const headers = { ...versionHeaders(d.version), ...json };
        let t = performance.now();
        const noToken = await call(at("/jsonrpc"), { method: "POST", headers, body: big });
        const ms401 = performance.now() - t;
        probe(
          `${tag} auth: ${d.name}JSON-RPC ${(big.length / 2 ** 20).toFixed(1)} MiB ${d.method} sent whole without a token is a 401 with WWW-Authenticate`,
          noToken.status === 401 && noToken.headers.get("www-authenticate") === agent.challenge,
          `HTTP ${noToken.status} in ${ms401.toFixed(0)} ms`,
        );
        t = performance.now();
        const eight = await heapPeak(() =>
          Promise.all(Array.from({ length: 8 }, () => call(at("/jsonrpc"), { method: "POST", headers, body: big }))),
        );
        probe(
          `${tag} auth: ${d.name}eight of them at once are all 401`,
          eight.result.every((r) => r.status === 401),
          `${eight.result.map((r) => r.status).join(" ")} in ${(performance.now() - t).toFixed(0)} ms, heap +${eight.mb.toFixed(1)} MB`,
        );
      }
      for (const [name, path, version] of [
        ["HTTP+JSON 401 carries WWW-Authenticate", "/message:send", "1.0"],
        ["v0.3: HTTP+JSON POST /v1/message:send's 401 carries WWW-Authenticate and a JSON-RPC code", "/v1/message:send", null],
      ]) {
        const http = await call(at(path), { method: "POST", headers: { ...versionHeaders(version), ...json }, body: "{" });
        const shape = version ? { ok: true, detail: `HTTP ${http.status}` } : v03RestError(http, 401);
        probe(
          `${tag} auth: ${name}`,
          http.status === 401 && http.headers.get("www-authenticate") === agent.challenge && shape.ok,
          `${shape.detail}, ${http.headers.get("www-authenticate")}`,
        );
      }
      // Clients still sending 3 MiB (Connection: close) read the early answer, no EPIPE.
      for (const [name, path, version, want] of [
        ["8 clients still sending 3 MiB to /jsonrpc (Connection: close) all read their 401, no EPIPE", "/jsonrpc", "1.0", "401"],
        [
          "v0.3: 8 clients still sending 3 MiB to /jsonrpc without A2A-Version (Connection: close) all read their 401, no EPIPE",
          "/jsonrpc",
          null,
          "401",
        ],
        ["8 clients still sending 3 MiB (Connection: close) all read their 401, no EPIPE", "/message:send", "1.0", "401"],
        [
          "v0.3: 8 clients still sending 3 MiB to /v1/message:send without A2A-Version (Connection: close) all read their 401, no EPIPE",
          "/v1/message:send",
          null,
          "401",
        ],
        ["8 clients still sending 3 MiB with A2A-Version 9.9 all read their 400", "/message:send", "9.9", "400"],
        [
          "v0.3: 8 clients still sending 3 MiB without A2A-Version to v1.0's /message:send all read their 400",
          "/message:send",
          null,
          "400",
        ],
      ]) {
        const senders = await closingSenders(agent.origin, path, 3 * 2 ** 20, 8, version);
        probe(
          `${tag} auth: ${name}`,
          senders.every((s) => s === want),
          senders.join(" "),
        );
      }
    } finally {
      await agent.close();
    }
  }
}
