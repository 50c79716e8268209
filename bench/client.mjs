// Per-call overhead of the generated fetch client against a hand-written
// fetch of the same URL, on loopback, in the same run.
//
//   npm run build && node bench/client.mjs [calls-per-round] [rounds]
//
// The server (node:http, 127.0.0.1, port 0) runs in a worker thread so that it
// does not share the measuring thread. Each round times a block of sequential
// calls of each kind, alternating which goes first; the figure per kind is the
// median of its rounds. The hand-written baseline sets the same headers and
// parses the JSON (res.json()); the generated client also encodes the request
// and decodes the answer into a protobuf-es message (through the generated JSON
// codecs), which is the overhead measured. Target: ratio <= 1.2 (aim 1.1).
import { createServer } from "node:http";
import { Worker, isMainThread, parentPort } from "node:worker_threads";

const TASK = JSON.stringify({
  id: "task-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123Z" },
  artifacts: [{ artifactId: "a1", parts: [{ text: "hello world" }] }],
  history: [{ messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] }],
});
const SEND = JSON.stringify({ task: JSON.parse(TASK) });

if (!isMainThread) {
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      const body = req.method === "POST" ? SEND : TASK;
      res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
  });
  server.keepAliveTimeout = 60_000;
  server.listen(0, "127.0.0.1", () => parentPort.postMessage(server.address().port));
  parentPort.on("message", (m) => m === "close" && server.close(() => process.exit(0)));
} else {
  const { register } = await import("tsx/esm/api");
  register(); // loads the generated .ts files; the runtime comes from dist/

  const { createA2AServiceClient } = await import("../gen/a2a_http_client.ts");
  const { Role } = await import("../gen/a2a_pb.ts");

  const perRound = Number(process.argv[2] ?? 2000);
  const rounds = Number(process.argv[3] ?? 7);
  const worker = new Worker(new URL(import.meta.url));
  const port = await new Promise((resolve) => worker.once("message", resolve));
  const base = `http://127.0.0.1:${port}`;

  const client = createA2AServiceClient({ baseUrl: base });
  const message = { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] };
  const getHeaders = { "A2A-Version": "1.0", Accept: "application/a2a+json, application/json" };
  const postHeaders = { ...getHeaders, "Content-Type": "application/a2a+json" };

  const kinds = {
    "GetTask   client": () => client.getTask({ id: "task-1" }),
    "GetTask   fetch ": async () => (await fetch(`${base}/tasks/task-1`, { headers: getHeaders })).json(),
    "SendMsg   client": () => client.sendMessage({ message }),
    "SendMsg   fetch ": async () =>
      (
        await fetch(`${base}/message:send`, {
          method: "POST",
          headers: postHeaders,
          body: JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } }),
        })
      ).json(),
  };

  async function block(fn, n) {
    const t0 = process.hrtime.bigint();
    for (let i = 0; i < n; i++) await fn();
    return Number(process.hrtime.bigint() - t0) / n / 1000; // µs per call
  }

  // Warm up every path (JIT, connection pool).
  for (const fn of Object.values(kinds)) await block(fn, Math.min(perRound, 1000));

  const times = Object.fromEntries(Object.keys(kinds).map((k) => [k, []]));
  const names = Object.keys(kinds);
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? names : [...names].reverse();
    for (const k of order) times[k].push(await block(kinds[k], perRound));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const m = Object.fromEntries(names.map((k) => [k, median(times[k])]));
  console.log(`node ${process.version}, ${rounds} rounds x ${perRound} sequential calls, median µs per call`);
  for (const k of names) console.log(`  ${k}  ${m[k].toFixed(1).padStart(8)} µs`);
  const rGet = m["GetTask   client"] / m["GetTask   fetch "];
  const rSend = m["SendMsg   client"] / m["SendMsg   fetch "];
  console.log(`ratio GetTask     client/fetch = ${rGet.toFixed(3)}x  (target <= 1.2x) ${rGet <= 1.2 ? "ok" : "OVER"}`);
  console.log(`ratio SendMessage client/fetch = ${rSend.toFixed(3)}x  (target <= 1.2x) ${rSend <= 1.2 ? "ok" : "OVER"}`);

  // The same calls against a fetch that answers at once from memory: the
  // client's own cost per call, without the network.
  const canned = (body) => async () => new Response(body, { status: 200, headers: { "content-type": "application/json" } });
  const memGet = createA2AServiceClient({ baseUrl: base, fetch: canned(TASK) });
  const memSend = createA2AServiceClient({ baseUrl: base, fetch: canned(SEND) });
  const mem = {
    "GetTask client": () => memGet.getTask({ id: "task-1" }),
    "GetTask fetch ": async () => (await canned(TASK)(`${base}/tasks/task-1`, { headers: getHeaders })).json(),
    "SendMsg client": () => memSend.sendMessage({ message }),
    "SendMsg fetch ": async () =>
      (await canned(SEND)(`${base}/message:send`, { method: "POST", headers: postHeaders, body: JSON.stringify({ message: {} }) })).json(),
  };
  for (const fn of Object.values(mem)) await block(fn, 2000);
  console.log("without the network (fetch answers from memory), median µs per call:");
  for (const k of Object.keys(mem)) {
    const xs = [];
    for (let r = 0; r < rounds; r++) xs.push(await block(mem[k], 2000));
    console.log(`  ${k}  ${median(xs).toFixed(1).padStart(8)} µs`);
  }
  worker.postMessage("close");
}
