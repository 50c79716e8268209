// Probes of issue 28 items 1, 3, 5, 7, 8 and 9 (gRPC Struct keys) against
// the example agent on each framework (docs/security.md, "Bounded requests
// and connections"), on v1.0's routes, methods and gRPC service and on A2A
// v0.3's (no A2A-Version: `/v1/message:send`, `message/send`,
// `a2a.v1.A2AService`; issue 38). Slow: the
// stalled-reader probes wait for the server's 30 s write-stall timeout, on
// the three frameworks and both versions at once (the other probes run one
// framework at a time: all three agents share this process).
import net from "node:net";
import http2 from "node:http2";
import { createServer } from "node:http";
import { register } from "tsx/esm/api";

register();
const { create } = await import("@bufbuild/protobuf");
const { ConnectError, createClient } = await import("@connectrpc/connect");
const { createGrpcTransport } = await import("@connectrpc/connect-node");
const pb = await import("../../gen/a2a_pb.ts");
const pb03 = await import("../../gen/a2a-v0_3_pb.ts");
const { createA2AServiceClient } = await import("../../gen/a2a_http_client.ts");
const { startExampleAgent } = await import("../../example/server.ts");

const { taskCount, v03RestError, rpcErrorCode } = await import("./lib/v03.mjs");

const frameworks = ["express", "fastify", "hono"];
const v = { "a2a-version": "1.0", "content-type": "application/json" };
const send = (data, text = "hi") =>
  `{"message":{"messageId":"m-${Math.random()}","role":"ROLE_USER","parts":[{"text":${JSON.stringify(text)}},{"data":${data}}]}}`;
const rpcBody = (method, params) => `{"jsonrpc":"2.0","id":1,"method":"${method}","params":${params}}`;
const text = (t) => JSON.stringify(t);

/**
 * The probes' requests as each version's client writes them: SendMessage of
 * a text part and a data part holding `data` (raw JSON; v0.3's data part
 * holds an object, so it is `{"value": data}` there) on HTTP+JSON and
 * JSON-RPC, a request for a large answer, and how a refusal on HTTP+JSON
 * reads (v1.0: the status; v0.3: the status and `{code, message}`); on
 * gRPC (`lf.a2a.v1.A2AService`, v0.3's `a2a.v1.A2AService` on the same port)
 * SendMessage of a data part holding a google.protobuf.Value (v0.3: a
 * Struct holding it as `value`), made by protobuf-es or written on the wire.
 * v0.3's requests carry no A2A-Version.
 */
const dialects = [
  {
    name: "",
    version: "1.0",
    headers: v,
    sendPath: "/message:send",
    send,
    rpc: (data) => rpcBody("SendMessage", send(data)),
    refused: (res, status) => ({ ok: res.status === status, detail: `status ${res.status}` }),
    code: () => "",
    grpc: {
      service: pb.A2AService,
      headers: { "a2a-version": "1.0" },
      send: (value) =>
        create(pb.SendMessageRequestSchema, {
          message: { messageId: `g-${Math.random()}`, role: pb.Role.USER, parts: [{ content: { case: "data", value } }] },
        }),
      path: "/lf.a2a.v1.A2AService/SendMessage",
      // SendMessageRequest.message{message_id "m", role USER, parts[{data: <Value>}]}
      wire: (value) => wireField(0x12, Uint8Array.of(0x0a, 0x01, 0x6d, 0x20, 0x01), wireField(0x2a, wireField(0x22, value))),
    },
    /** A large answer: every task, artifacts included. */
    bigAnswer: {
      what: "a 20+ MB ListTasks answer",
      request: (host) => `GET /tasks?includeArtifacts=true HTTP/1.1\r\nHost: ${host}\r\nA2A-Version: 1.0\r\n\r\n`,
    },
  },
  {
    name: "v0.3: ",
    version: null,
    headers: { "content-type": "application/json" },
    sendPath: "/v1/message:send",
    send: (data, t = "hi") =>
      `{"message":{"messageId":"m-${Math.random()}","role":"ROLE_USER","content":[{"text":${text(t)}},{"data":{"data":{"value":${data}}}}]}}`,
    rpc: (data) =>
      rpcBody(
        "message/send",
        `{"message":{"kind":"message","messageId":"m-${Math.random()}","role":"user","parts":[{"kind":"text","text":"hi"},{"kind":"data","data":{"value":${data}}}]}}`,
      ),
    refused: (res, status, code) => v03RestError(res, status, code),
    code: (c) => (c === undefined ? " and a JSON-RPC code" : ` (${c})`),
    grpc: {
      service: pb03.A2AService,
      headers: {},
      send: (value) =>
        create(pb03.SendMessageRequestSchema, {
          request: {
            messageId: `g-${Math.random()}`,
            role: pb03.Role.USER,
            content: [{ part: { case: "data", value: { data: { fields: { value } } } } }],
          },
        }),
      path: "/a2a.v1.A2AService/SendMessage",
      // SendMessageRequest.request{message_id "m", role USER, content[{data: {data: Struct{"v": <Value>}}}]}
      wire: (value) =>
        wireField(
          0x0a,
          Uint8Array.of(0x0a, 0x01, 0x6d, 0x20, 0x01),
          wireField(0x2a, wireField(0x1a, wireField(0x0a, wireField(0x0a, Uint8Array.of(0x0a, 0x01, 0x76), wireField(0x12, value))))),
        ),
    },
    /** A large answer v0.3 can ask for (it has no ListTasks): the large tasks one after another, pipelined. */
    bigAnswer: {
      what: "pipelined GET /v1/tasks/{id} answers of 6 MB each",
      request: (host, ids) => ids.map((id) => `GET /v1/tasks/${id} HTTP/1.1\r\nHost: ${host}\r\n\r\n`).join(""),
    },
  },
];

/** A POST of `body`: the status and the answer's text. */
async function post(url, headers, body) {
  const res = await fetch(url, { method: "POST", headers, body });
  return { status: res.status, text: await res.text() };
}

/** A length-delimited field `tag` (one byte) holding the byte arrays given, one after another. */
function wireField(tag, ...payloads) {
  const varint = [];
  let length = payloads.reduce((sum, p) => sum + p.length, 0);
  for (; length > 127; length = Math.floor(length / 128)) varint.push((length & 127) | 128);
  varint.push(length);
  const out = new Uint8Array(1 + varint.length + payloads.reduce((sum, p) => sum + p.length, 0));
  out.set([tag, ...varint]);
  let at = 1 + varint.length;
  for (const p of payloads) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Value{list_value: n x null} written by hand (protobuf-es takes seconds for 1M Values). */
function nullValues(n) {
  const list = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) list.set([0x0a, 0x02, 0x08, 0x00], i * 4);
  return wireField(0x32, list);
}

async function grpcError(promise) {
  const e = await promise.then(
    () => undefined,
    (x) => x,
  );
  return e instanceof ConnectError ? e.code : e === undefined ? "accepted" : String(e);
}

/** Sends a request and never reads the answer; resolves with the seconds until the server closes the connection (or null past `maxS`). */
function stalledReader(port, request, maxS) {
  return new Promise((resolve) => {
    const socket = net.connect(port, "127.0.0.1");
    socket.pause();
    socket.on("error", () => {});
    const t0 = Date.now();
    const timer = setTimeout(() => {
      socket.destroy();
      resolve(null);
    }, maxS * 1000);
    // A paused socket notices the server's reset only when it writes: an empty line (allowed between requests) now and then.
    const peek = setInterval(() => socket.write("\r\n"), 1000);
    socket.once("close", () => {
      clearTimeout(timer);
      clearInterval(peek);
      resolve((Date.now() - t0) / 1000);
    });
    socket.write(request);
  });
}

/** A raw POST to `path` announcing 100 000 bytes of body and trickling a space every 200 ms: the status line answered (within 60 s). */
function trickled(port, path, version) {
  return new Promise((resolve) => {
    const s = net.connect(port, "127.0.0.1");
    let got = "";
    s.on("data", (d) => (got += d.toString("latin1")));
    s.on("error", () => {});
    const a2aVersion = version ? `A2A-Version: ${version}\r\n` : "";
    s.write(
      `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n${a2aVersion}Content-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
    );
    const trickle = setInterval(() => s.write(" "), 200);
    const stop = setTimeout(() => s.destroy(), 60_000);
    s.once("close", () => {
      clearInterval(trickle);
      clearTimeout(stop);
      resolve(got.split("\r\n")[0]);
    });
  });
}

/** The probes that work the agent, one framework at a time (the wire probes time a refusal: another agent's 2M-number parse in this process would be in that time). */
async function busyProbes(agent, p) {
  const transport = createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` });
  // Items 1, 9, 3 and 5, on each version's routes, methods and gRPC service: nothing stored; ListTasks answers.
  for (const d of dialects) {
    const g = d.grpc;
    const grpc = createClient(g.service, transport);
    const grpcSend = (value) => grpcError(grpc.sendMessage(g.send(value), { headers: g.headers }));
    const before = await taskCount(agent.url);
    // Item 1: non-finite numbers, every binding.
    const refusals = [];
    for (const data of ["1e400", "[1,-1e400]"])
      refusals.push(d.refused(await post(agent.url + d.sendPath, d.headers, d.send(data)), 400, -32602));
    p(
      `${d.name}HTTP+JSON data part 1e400 and [1,-1e400] refused with 400${d.code(-32602)}`,
      refusals.every((r) => r.ok),
      refusals.map((r) => r.detail).join(", "),
    );
    const rpc = rpcErrorCode((await post(agent.jsonRpcUrl, d.headers, d.rpc("1e400"))).text);
    p(`${d.name}JSON-RPC data part 1e400 refused (-32602)`, rpc === -32602, `error ${rpc}`);
    const codes = [];
    for (const n of [Infinity, -Infinity, NaN]) codes.push(await grpcSend({ kind: { case: "numberValue", value: n } }));
    p(
      `${d.name}gRPC binary numberValue Infinity, -Infinity, NaN refused (INVALID_ARGUMENT)`,
      codes.every((c) => c === 3),
      `codes ${codes.join(", ")}`,
    );

    // Item 9: a Struct key `constructor`, on every binding alike.
    const keyCode = await grpcSend({
      kind: { case: "structValue", value: { fields: { constructor: { kind: { case: "boolValue", value: true } } } } },
    });
    const keyHttp = d.refused(await post(agent.url + d.sendPath, d.headers, d.send('{"constructor":true}')), 400, -32602);
    const keyRpc = rpcErrorCode((await post(agent.jsonRpcUrl, d.headers, d.rpc('{"constructor":true}'))).text);
    p(
      `${d.name}Struct key constructor refused on gRPC, HTTP+JSON${d.code(-32602)} and JSON-RPC (-32600) alike`,
      keyCode === 3 && keyHttp.ok && keyRpc === -32600,
      `gRPC code ${keyCode}, HTTP+JSON ${keyHttp.detail}, JSON-RPC error ${keyRpc}`,
    );

    // Item 3: the element cap, on a 3.9 MiB body of numbers.
    const numbers = `[${Array.from({ length: 2_000_000 }, () => "0").join(",")}]`;
    const t0 = performance.now();
    const capped = d.refused(await post(agent.url + d.sendPath, d.headers, d.send(numbers)), 413);
    const ms = performance.now() - t0;
    p(`${d.name}3.9 MiB of numbers (2M Values) refused with 413${d.code()}`, capped.ok, `${capped.detail} in ${ms.toFixed(0)} ms`);
    const cappedRpc = await post(agent.jsonRpcUrl, d.headers, d.rpc(numbers));
    p(
      `${d.name}the same over JSON-RPC refused with 413 (-32600)`,
      cappedRpc.status === 413 && rpcErrorCode(cappedRpc.text) === -32600,
      `status ${cappedRpc.status}, error ${rpcErrorCode(cappedRpc.text)}`,
    );

    // Item 5: the gRPC port's bounds.
    const bigCode = await grpcSend({ kind: { case: "stringValue", value: "x".repeat(5 * 1024 * 1024) } });
    p(`${d.name}gRPC message over 4 MiB refused (RESOURCE_EXHAUSTED)`, bigCode === 8, `code ${bigCode}`);
    // Item 3 on gRPC: 4 MiB of null Values (about 1M, 1.2 s for protobuf-es to decode) refused on the wire first.
    const nullsBytes = g.wire(nullValues(1_048_000));
    const frame = new Uint8Array(5 + nullsBytes.length);
    new DataView(frame.buffer).setUint32(1, nullsBytes.length);
    frame.set(nullsBytes, 5);
    const h2 = http2.connect(`http://${agent.grpcTarget}`);
    h2.on("error", () => {});
    const t1 = performance.now();
    const wire = await new Promise((ok) => {
      const req = h2.request({ ":method": "POST", ":path": g.path, "content-type": "application/grpc", te: "trailers", ...g.headers });
      let code;
      req.on("response", (h) => (code ??= h["grpc-status"]));
      req.on("trailers", (t) => (code ??= t["grpc-status"]));
      req.on("data", () => {});
      req.on("error", () => {});
      req.on("close", () => ok(code));
      req.end(frame);
    });
    const wireMs = performance.now() - t1;
    h2.destroy();
    p(
      `${d.name}gRPC 4 MiB of null Values (1M elements) refused before decoding (RESOURCE_EXHAUSTED)`,
      wire === "8" && wireMs < 1000,
      `grpc-status ${wire} in ${wireMs.toFixed(0)} ms`,
    );

    const after = await taskCount(agent.url);
    p(`${d.name}nothing stored, and ListTasks still answers 200`, after === before && after >= 0, `tasks before ${before}, after ${after}`);
  }

  const session = http2.connect(`http://${agent.grpcTarget}`);
  session.on("error", () => {});
  const settings = await new Promise((ok) => session.once("remoteSettings", ok));
  session.destroy();
  p(
    "gRPC announces at most 100 concurrent streams",
    settings.maxConcurrentStreams === 100,
    `maxConcurrentStreams ${settings.maxConcurrentStreams}`,
  );
}

/** The probes that wait, the frameworks at once: the trickled body, the stalled readers (30-60 s each). */
async function waitingProbes(agent, framework, p) {
  const port = Number(new URL(agent.url).port);
  // Item 8: a trickled body (Fastify: the probe sets a 3 s request timeout; Express and Hono have Node's 300 s).
  if (framework === "fastify") {
    for (const d of dialects) {
      const answer = await trickled(port, d.sendPath, d.version);
      p(`${d.name}a trickled body is answered 408 (requestTimeoutMs 3000)`, answer.includes(" 408 "), answer || "no answer in 60 s");
    }
  }

  // Item 3: a reader that never reads a large answer is closed after the write-stall timeout (both versions at once).
  const ids = [];
  for (let i = 0; i < 4; i++) {
    const made = await post(`${agent.url}/message:send`, v, send("1", "y".repeat(3 * 1024 * 1024)));
    ids.push(JSON.parse(made.text).task?.id);
  }
  const host = `127.0.0.1:${port}`;
  const stalled = await Promise.all(dialects.map((d) => stalledReader(port, d.bigAnswer.request(host, ids), 120)));
  for (const [i, d] of dialects.entries()) {
    const seconds = stalled[i];
    p(
      `${d.name}a client that never reads ${d.bigAnswer.what} is disconnected`,
      seconds !== null,
      seconds === null ? "still open after 120 s" : `closed after ${seconds.toFixed(1)} s`,
    );
  }
}

async function probeRedirects(probe) {
  const seen = [];
  const other = createServer((req, res) => {
    seen.push(req.headers);
    req.resume();
    res.writeHead(200, { "content-type": "application/json" }).end('{"id":"t1"}');
  });
  await new Promise((ok) => other.listen(0, "127.0.0.1", ok));
  const otherUrl = `http://127.0.0.1:${other.address().port}`;
  const agent = createServer((req, res) => {
    req.resume();
    res.writeHead(307, { location: `${otherUrl}${req.url}` }).end();
  });
  await new Promise((ok) => agent.listen(0, "127.0.0.1", ok));
  const baseUrl = `http://127.0.0.1:${agent.address().port}`;
  try {
    const headers = { "x-api-key": "secret", authorization: "Bearer secret" };
    const e = await createA2AServiceClient({ baseUrl, headers })
      .getTask({ id: "t1" })
      .then(
        () => undefined,
        (x) => x,
      );
    probe(
      "limits client: a redirect to another origin is refused, nothing sent there",
      e?.code === 9 && seen.length === 0,
      e ? e.message : "followed",
    );
    const allowed = await createA2AServiceClient({ baseUrl, headers, redirects: () => true })
      .getTask({ id: "t1" })
      .then(
        () => true,
        () => false,
      );
    probe(
      "limits client: an allowed cross-origin redirect carries no credentials",
      allowed && seen.length === 1 && seen[0]["x-api-key"] === undefined && seen[0].authorization === undefined,
      `headers there: ${Object.keys(seen[0] ?? {}).join(", ")}`,
    );
  } finally {
    await new Promise((ok) => agent.close(ok));
    await new Promise((ok) => other.close(ok));
  }
}

export async function run(probe) {
  await probeRedirects(probe);
  const lines = [];
  const agents = [];
  try {
    for (const framework of frameworks)
      agents.push(await startExampleAgent({ framework, port: 0, requestTimeoutMs: framework === "fastify" ? 3000 : undefined }));
    const ps = frameworks.map((f) => (name, ok, detail) => lines.push([`limits ${f}: ${name}`, ok, detail]));
    for (const [i, agent] of agents.entries()) await busyProbes(agent, ps[i]);
    await Promise.all(agents.map((agent, i) => waitingProbes(agent, frameworks[i], ps[i])));
  } finally {
    await Promise.all(agents.map((agent) => agent.close()));
  }
  lines.sort((a, b) => a[0].localeCompare(b[0]));
  for (const args of lines) probe(...args);
}
