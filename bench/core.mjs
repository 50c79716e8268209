// The HTTP+JSON core in process, without a framework or a socket, against
// what bench/server.mjs's floor does for the same request: what the A2A
// work itself costs per request, which no adapter can take away.
//
//   npm run generate && node --import tsx bench/core.mjs [requests]   (by hand)
//
// - floor GetTask: JSON.stringify of the stored Task's JSON (as bench/server.mjs's bare routes);
// - ours GetTask: the core (createHttpHandler over a2a.proto's routes, the
//   A2A profile) answering the same Task held as a protobuf-es message:
//   routing, A2A-Version, the tenant rule, the request message, REQUIRED
//   fields, the context, the generated writer and JSON.stringify;
// - floor SendMessage: JSON.parse of the body, then JSON.stringify of {task};
// - ours SendMessage: the core, adding the media type, the body's bounds
//   (docs/security.md) and the generated reader.
// Each is timed hot (one after another) and with the caches flushed before
// each request (FLUSH_BYTES written over first), which is closer to what a
// server sees on the wire, where the framework, the kernel and the client
// run between two requests. Allocation per request is the young
// generation's growth over batches that no garbage collection interrupted.
import { PerformanceObserver } from "node:perf_hooks";
import { fromJson } from "@bufbuild/protobuf";
import { TASK_JSON } from "./task.mjs";

const requests = Number(process.argv[2] ?? 4000);
const FLUSH_BYTES = 4 * 1024 * 1024;

const { TaskSchema } = await import("../gen/a2a_pb.ts");
const { A2AServiceRoutes } = await import("../gen/a2a_http.ts");
const { createHttpHandler } = await import("a2a-http/server");

const task = fromJson(TaskSchema, TASK_JSON);
const body = JSON.stringify({
  message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello world" }], contextId: "ctx-1" },
});
const handle = createHttpHandler(
  A2AServiceRoutes,
  {
    getTask: () => task,
    sendMessage: (req) => {
      void req.message?.messageId;
      return { payload: { case: "task", value: task } };
    },
  },
  { profile: "a2a" },
);
const headers = { "a2a-version": "1.0", "content-type": "application/json", "content-length": String(body.length) };
/** The framework-free request an adapter builds (server/request.ts), with what these two requests read. */
const request = (method, rawPath) => ({
  method,
  rawPath,
  rawQuery: "",
  native: undefined,
  header: (name) => headers[name],
  readBody: () => Promise.resolve(body),
});
const answerOf = (a) => {
  if (a.status !== 200) throw new Error(`the core answered ${a.status}: ${a.body}`);
  return a.body;
};

const cases = {
  "floor GetTask": async () => JSON.stringify(TASK_JSON),
  "ours GetTask": async () => answerOf(handle(request("GET", "/tasks/task-1"))),
  "floor SendMessage": async () => {
    const parsed = JSON.parse(await Promise.resolve(body));
    void parsed.message.messageId;
    return JSON.stringify({ task: TASK_JSON });
  },
  "ours SendMessage": async () => answerOf(await handle(request("POST", "/message:send"))),
};
if ((await cases["ours GetTask"]()) !== (await cases["floor GetTask"]()))
  throw new Error("ours and the floor answer different GetTask JSON");

const junk = new Float64Array(FLUSH_BYTES / 8);
const flush = () => {
  for (let i = 0; i < junk.length; i += 8) junk[i] += 1;
};
let gcs = 0;
new PerformanceObserver((list) => {
  gcs += list.getEntries().length;
}).observe({ entryTypes: ["gc"] });
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

const ROUNDS = 5;
const runs = Object.fromEntries(Object.keys(cases).map((name) => [name, { hot: [], flushed: [], bytes: [] }]));
for (const f of Object.values(cases)) for (let i = 0; i < 5000; i++) await f(); // warm-up
// Round by round, every case in turn, so that drift in the machine's load hits them alike.
for (let round = 0; round < ROUNDS; round++) {
  for (const [name, f] of Object.entries(cases)) {
    const r = runs[name];
    for (let i = 0; i < requests / ROUNDS; i++) {
      flush();
      const t = process.hrtime.bigint();
      await f();
      r.flushed.push(Number(process.hrtime.bigint() - t) / 1000);
    }
    const t = process.hrtime.bigint();
    for (let i = 0; i < requests; i++) await f();
    r.hot.push(Number(process.hrtime.bigint() - t) / 1000 / requests);
    for (let batch = 0; batch < 8; batch++) {
      const before = gcs;
      const used = process.memoryUsage().heapUsed;
      for (let i = 0; i < 200; i++) await f();
      const grown = process.memoryUsage().heapUsed - used;
      if (gcs === before && grown > 0) r.bytes.push(grown / 200);
    }
  }
}
const rows = {};
for (const [name, r] of Object.entries(runs)) {
  rows[name] = { hot: median(r.hot), flushed: median(r.flushed), bytes: r.bytes.length > 0 ? median(r.bytes) : Number.NaN };
}

const us = (x) => x.toFixed(2).padStart(7);
console.log(
  `node ${process.version}; ${ROUNDS} alternating rounds of ${requests / ROUNDS} requests flushed (${FLUSH_BYTES >> 20} MiB written before each) and ${requests} hot; medians`,
);
console.log("case                  hot µs  flushed µs   bytes allocated");
for (const [name, r] of Object.entries(rows)) {
  console.log(
    `${name.padEnd(20)} ${us(r.hot)}     ${us(r.flushed)}   ${Number.isNaN(r.bytes) ? "      –" : Math.round(r.bytes).toString().padStart(7)}`,
  );
}
for (const rpc of ["GetTask", "SendMessage"]) {
  const o = rows[`ours ${rpc}`];
  const f = rows[`floor ${rpc}`];
  console.log(
    `${rpc}: ours - floor = ${(o.hot - f.hot).toFixed(2)} µs hot, ${(o.flushed - f.flushed).toFixed(2)} µs flushed, ${Math.round(o.bytes - f.bytes)} bytes`,
  );
}
