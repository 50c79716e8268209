// Probes of issue 28 items 1, 3, 5, 7, 8 and 9 (gRPC Struct keys) against
// the example agent on each framework (docs/security.md, "Bounded requests
// and connections"). Slow: the stalled-reader probes wait for the server's
// 30 s write-stall timeout, on the three frameworks at once.
import net from "node:net";
import http2 from "node:http2";
import { createServer } from "node:http";
import { register } from "tsx/esm/api";

register();
const { create } = await import("@bufbuild/protobuf");
const { ConnectError, createClient } = await import("@connectrpc/connect");
const { createGrpcTransport } = await import("@connectrpc/connect-node");
const pb = await import("../../gen/a2a_pb.ts");
const { createA2AServiceClient } = await import("../../gen/a2a_http_client.ts");
const { startExampleAgent } = await import("../../example/server.ts");

const frameworks = ["express", "fastify", "hono"];
const v = { "a2a-version": "1.0", "content-type": "application/json" };
const send = (data, text = "hi") =>
  `{"message":{"messageId":"m-${Math.random()}","role":"ROLE_USER","parts":[{"text":${JSON.stringify(text)}},{"data":${data}}]}}`;
const rpcBody = (params) => `{"jsonrpc":"2.0","id":1,"method":"SendMessage","params":${params}}`;

async function taskCount(agent) {
  const res = await fetch(`${agent.url}/tasks`, { headers: v });
  return res.status === 200 ? ((await res.json()).tasks ?? []).length : -res.status;
}

/** SendMessageRequest{message{message_id "m", role USER, parts[{data: Value{list_value: n x null}}]}} written by hand (protobuf-es takes seconds for 1M Values). */
function nullValuesOnTheWire(n) {
  const varint = (v) => {
    const out = [];
    for (; v > 127; v = Math.floor(v / 128)) out.push((v & 127) | 128);
    out.push(v);
    return out;
  };
  const field = (tag, payload) => {
    const head = [tag, ...varint(payload.length)];
    const out = new Uint8Array(head.length + payload.length);
    out.set(head);
    out.set(payload, head.length);
    return out;
  };
  const list = new Uint8Array(n * 4);
  for (let i = 0; i < n; i++) list.set([0x0a, 0x02, 0x08, 0x00], i * 4);
  const part = field(0x22, field(0x32, list));
  const head = Uint8Array.from([0x0a, 0x01, 0x6d, 0x20, 0x01]);
  const parts = field(0x2a, part);
  const message = new Uint8Array(head.length + parts.length);
  message.set(head);
  message.set(parts, head.length);
  return field(0x12, message);
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

async function probeFramework(framework, probe) {
  const agent = await startExampleAgent({ framework, port: 0, requestTimeoutMs: framework === "fastify" ? 3000 : undefined });
  const p = (name, ok, detail) => probe(`limits ${framework}: ${name}`, ok, detail);
  try {
    // Item 1: non-finite numbers, every binding; nothing stored; ListTasks answers.
    const before = await taskCount(agent);
    const statuses = [];
    for (const data of ["1e400", "[1,-1e400]"]) {
      const res = await fetch(`${agent.url}/message:send`, { method: "POST", headers: v, body: send(data) });
      statuses.push(res.status);
    }
    p(
      "HTTP+JSON data part 1e400 and [1,-1e400] refused with 400",
      statuses.every((s) => s === 400),
      `statuses ${statuses.join(", ")}`,
    );
    const rpc = await (await fetch(agent.jsonRpcUrl, { method: "POST", headers: v, body: rpcBody(send("1e400")) })).json();
    p("JSON-RPC data part 1e400 refused (-32602)", rpc.error?.code === -32602, `error ${JSON.stringify(rpc.error?.code)}`);
    const grpc = createClient(pb.A2AService, createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` }));
    const gmsg = (data) =>
      create(pb.SendMessageRequestSchema, {
        message: { messageId: `g-${Math.random()}`, role: pb.Role.USER, parts: [{ content: { case: "data", value: data } }] },
      });
    const codes = [];
    for (const n of [Infinity, -Infinity, NaN])
      codes.push(
        await grpcError(grpc.sendMessage(gmsg({ kind: { case: "numberValue", value: n } }), { headers: { "a2a-version": "1.0" } })),
      );
    p(
      "gRPC binary numberValue Infinity, -Infinity, NaN refused (INVALID_ARGUMENT)",
      codes.every((c) => c === 3),
      `codes ${codes.join(", ")}`,
    );
    const after = await taskCount(agent);
    p("nothing stored, and ListTasks still answers 200", after === before && after >= 0, `tasks before ${before}, after ${after}`);

    // Item 9: a Struct key `constructor` on gRPC, as on HTTP+JSON.
    const keyCode = await grpcError(
      grpc.sendMessage(
        gmsg({ kind: { case: "structValue", value: { fields: { constructor: { kind: { case: "boolValue", value: true } } } } } }),
        { headers: { "a2a-version": "1.0" } },
      ),
    );
    const keyHttp = (await fetch(`${agent.url}/message:send`, { method: "POST", headers: v, body: send('{"constructor":true}') })).status;
    p(
      "Struct key constructor refused on gRPC and HTTP+JSON alike",
      keyCode === 3 && keyHttp === 400,
      `gRPC code ${keyCode}, HTTP ${keyHttp}`,
    );

    // Item 3: the element cap, on a 3.9 MiB body of numbers.
    const numbers = `[${Array.from({ length: 2_000_000 }, () => "0").join(",")}]`;
    const t0 = performance.now();
    const capped = await fetch(`${agent.url}/message:send`, { method: "POST", headers: v, body: send(numbers) });
    const ms = performance.now() - t0;
    p("3.9 MiB of numbers (2M Values) refused with 413", capped.status === 413, `status ${capped.status} in ${ms.toFixed(0)} ms`);
    const cappedRpc = await fetch(agent.jsonRpcUrl, { method: "POST", headers: v, body: rpcBody(send(numbers)) });
    p("the same over JSON-RPC refused with 413", cappedRpc.status === 413, `status ${cappedRpc.status}`);

    // Item 5: the gRPC port's bounds.
    const big = create(pb.SendMessageRequestSchema, {
      message: { messageId: "big", role: pb.Role.USER, parts: [{ content: { case: "text", value: "x".repeat(5 * 1024 * 1024) } }] },
    });
    const bigCode = await grpcError(grpc.sendMessage(big, { headers: { "a2a-version": "1.0" } }));
    p("gRPC message over 4 MiB refused (RESOURCE_EXHAUSTED)", bigCode === 8, `code ${bigCode}`);
    // Item 3 on gRPC: 4 MiB of null Values (about 1M, 1.2 s for protobuf-es to decode) refused on the wire first.
    const nullsBytes = nullValuesOnTheWire(1_048_000);
    const frame = new Uint8Array(5 + nullsBytes.length);
    new DataView(frame.buffer).setUint32(1, nullsBytes.length);
    frame.set(nullsBytes, 5);
    const h2 = http2.connect(`http://${agent.grpcTarget}`);
    h2.on("error", () => {});
    const t1 = performance.now();
    const wire = await new Promise((ok) => {
      const req = h2.request({
        ":method": "POST",
        ":path": "/lf.a2a.v1.A2AService/SendMessage",
        "content-type": "application/grpc",
        te: "trailers",
        "a2a-version": "1.0",
      });
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
      "gRPC 4 MiB of null Values (1M elements) refused before decoding (RESOURCE_EXHAUSTED)",
      wire === "8" && wireMs < 1000,
      `grpc-status ${wire} in ${wireMs.toFixed(0)} ms`,
    );
    const session = http2.connect(`http://${agent.grpcTarget}`);
    session.on("error", () => {});
    const settings = await new Promise((ok) => session.once("remoteSettings", ok));
    session.destroy();
    p(
      "gRPC announces at most 100 concurrent streams",
      settings.maxConcurrentStreams === 100,
      `maxConcurrentStreams ${settings.maxConcurrentStreams}`,
    );

    // Item 8: a trickled body (Fastify: the probe sets a 3 s request timeout; Express and Hono have Node's 300 s).
    if (framework === "fastify") {
      const port = Number(new URL(agent.url).port);
      const answer = await new Promise((resolve) => {
        const s = net.connect(port, "127.0.0.1");
        let got = "";
        s.on("data", (d) => (got += d.toString("latin1")));
        s.on("error", () => {});
        s.write(
          `POST /message:send HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`,
        );
        const trickle = setInterval(() => s.write(" "), 200);
        const stop = setTimeout(() => s.destroy(), 60_000);
        s.once("close", () => {
          clearInterval(trickle);
          clearTimeout(stop);
          resolve(got.split("\r\n")[0]);
        });
      });
      p("a trickled body is answered 408 (requestTimeoutMs 3000)", answer.includes(" 408 "), answer || "no answer in 60 s");
    }

    // Item 3: a reader that never reads a large answer is closed after the write-stall timeout.
    for (let i = 0; i < 4; i++)
      await fetch(`${agent.url}/message:send`, { method: "POST", headers: v, body: send("1", "y".repeat(3 * 1024 * 1024)) });
    const port = Number(new URL(agent.url).port);
    const seconds = await stalledReader(
      port,
      `GET /tasks?includeArtifacts=true HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nA2A-Version: 1.0\r\n\r\n`,
      120,
    );
    p(
      "a client that never reads a 20+ MB ListTasks answer is disconnected",
      seconds !== null,
      seconds === null ? "still open after 120 s" : `closed after ${seconds.toFixed(1)} s`,
    );
  } finally {
    await agent.close();
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
  // The frameworks at once: the stalled-reader probes wait 30-60 s each.
  const lines = [];
  await Promise.all(frameworks.map((f) => probeFramework(f, (...args) => lines.push(args))));
  lines.sort((a, b) => a[0].localeCompare(b[0]));
  for (const args of lines) probe(...args);
}
