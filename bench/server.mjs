// Requests per second of the generated server adapters against a bare route
// of the same framework that answers the same JSON from the same data (the
// floor), on loopback; and SSE events per second.
//
//   npm run generate && node bench/server.mjs [seconds-per-run] [rounds]
//   (BENCH_FRAMEWORKS=hono,... to run some frameworks only)
//
// Each server runs in its own child process (so it does not share a CPU with
// autocannon, which runs here), on 127.0.0.1, port 0. Every run is bounded in
// time (default 3 s) after a 1 s warm-up. GetTask answers a stored Task;
// SendMessage parses the request (fromJson, as the adapter does) and answers
// the stored Task wrapped in SendMessageResponse; the bare routes do the same
// protobuf-es work by hand (fromJson/toJson) without the runtime. SSE:
// SendStreamingMessage yields EVENTS events per request. Target: adapter
// GetTask >= 0.8x its bare route.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const EVENTS = 50;
const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 3);
const frameworks = (process.env.BENCH_FRAMEWORKS ?? "express,fastify,hono").split(",");

if (process.env.BENCH_CHILD) {
  await child(process.env.BENCH_CHILD);
} else {
  await main();
}

async function main() {
  const { default: autocannon } = await import("autocannon");
  const send = JSON.stringify({
    message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello world" }], contextId: "ctx-1" },
  });
  const headers = { "a2a-version": "1.0", "content-type": "application/json" };
  const run = async (url, opts = {}, duration = seconds) => {
    const r = await autocannon({ url, connections: 16, duration, headers, ...opts });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return r.requests.average;
  };
  // The server's own CPU time per request: steadier than requests/second on a
  // shared machine, where the load generator and neighbours take turns.
  const cpuOf = (proc) =>
    new Promise((resolve) => {
      proc.once("message", (m) => resolve(m.cpu));
      proc.send("cpu");
    });
  const cpuRun = async (server, path, opts = {}) => {
    const before = await cpuOf(server.proc);
    const r = await autocannon({ url: server.base + path, connections: 16, duration: seconds, headers, ...opts });
    const after = await cpuOf(server.proc);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.average, cpuUs: (after - before) / r.requests.total };
  };
  const spawn = async (fw, mode) => {
    const proc = fork(fileURLToPath(import.meta.url), [], {
      env: {
        ...process.env,
        BENCH_CHILD: `${fw}:${mode}`,
      },
      execArgv: ["--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const port = await new Promise((resolve, reject) => {
      proc.once("message", resolve);
      proc.once("exit", (code) => reject(new Error(`${fw}:${mode} exited ${code}`)));
    });
    return { proc, base: `http://127.0.0.1:${port}/a2a` };
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const post = { method: "POST", body: send };
  const rows = [];
  for (const fw of frameworks) {
    // Both servers run at once and the runs alternate, so that drift in the
    // machine's load hits adapter and floor alike; each figure is the median.
    const servers = { adapter: await spawn(fw, "adapter"), bare: await spawn(fw, "bare") };
    const got = { adapter: { get: [], send: [], getCpu: [] }, bare: { get: [], send: [], getCpu: [] } };
    for (const mode of ["adapter", "bare"]) {
      await run(`${servers[mode].base}/tasks/task-1`, {}, 1); // warm-up
      await run(`${servers[mode].base}/message:send`, post, 1);
    }
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? ["adapter", "bare"] : ["bare", "adapter"];
      for (const mode of order) {
        const g = await cpuRun(servers[mode], "/tasks/task-1");
        got[mode].get.push(g.rps);
        got[mode].getCpu.push(g.cpuUs);
      }
      for (const mode of order) got[mode].send.push(await run(`${servers[mode].base}/message:send`, post));
    }
    await run(`${servers.adapter.base}/message:stream`, post, 1);
    const sse = (await run(`${servers.adapter.base}/message:stream`, post)) * EVENTS;
    for (const mode of ["adapter", "bare"]) {
      rows.push({ fw, mode, getRps: median(got[mode].get), getCpu: median(got[mode].getCpu), sendRps: median(got[mode].send), sse });
      servers[mode].proc.kill();
      await new Promise((r) => servers[mode].proc.once("exit", r));
    }
  }
  const fmt = (n) => Math.round(n).toLocaleString("en-US").padStart(9);
  console.log(`server adapters vs bare routes, median of ${rounds} alternating ${seconds} s runs, 16 connections, loopback`);
  console.log("framework  GetTask req/s adapter/bare (ratio)   GetTask server CPU µs/req bare/adapter (ratio)   SendMessage req/s adapter/bare (ratio)   SSE events/s");
  for (const fw of frameworks) {
    const a = rows.find((r) => r.fw === fw && r.mode === "adapter");
    const b = rows.find((r) => r.fw === fw && r.mode === "bare");
    const g = a.getRps / b.getRps;
    const c = b.getCpu / a.getCpu;
    const s = a.sendRps / b.sendRps;
    const mark = (x) => `${x.toFixed(2)}x${x >= 0.8 ? "" : " < 0.8"}`;
    console.log(
      `${fw.padEnd(9)} ${fmt(a.getRps)} /${fmt(b.getRps)} (${mark(g)})   ` +
        `${b.getCpu.toFixed(1).padStart(7)} /${a.getCpu.toFixed(1).padStart(7)} (${mark(c)})   ` +
        `${fmt(a.sendRps)} /${fmt(b.sendRps)} (${s.toFixed(2)}x)   ${fmt(a.sse)}`,
    );
  }
}

async function child(which) {
  const [fw, mode] = which.split(":");
  const { create, fromJson, toJson } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  const task = create(pb.TaskSchema, {
    id: "task-1",
    contextId: "ctx-1",
    status: { state: pb.TaskState.COMPLETED, timestamp: { seconds: 1767323045n, nanos: 123000000 } },
    artifacts: [{ artifactId: "a1", parts: [{ content: { case: "text", value: "hello world" } }] }],
    history: [{ messageId: "m1", role: pb.Role.USER, parts: [{ content: { case: "text", value: "hi" } }] }],
  });
  const store = new Map([["task-1", task]]);
  const sendResponse = (req) => {
    void req.message?.messageId;
    return create(pb.SendMessageResponseSchema, { payload: { case: "task", value: store.get("task-1") } });
  };
  const event = create(pb.StreamResponseSchema, {
    payload: { case: "statusUpdate", value: { taskId: "task-1", contextId: "ctx-1", status: { state: pb.TaskState.WORKING } } },
  });
  const handlers = {
    getTask: (req) => store.get(req.id),
    sendMessage: (req) => sendResponse(req),
    async *sendStreamingMessage() {
      for (let i = 0; i < EVENTS; i++) yield event;
    },
  };
  const type = "application/a2a+json";
  const taskJson = (id) => JSON.stringify(toJson(pb.TaskSchema, store.get(id)));
  const sendJson = (body) => JSON.stringify(toJson(pb.SendMessageResponseSchema, sendResponse(fromJson(pb.SendMessageRequestSchema, body, { ignoreUnknownFields: true }))));
  let listen;
  if (fw === "express") {
    const { default: express } = await import("express");
    const app = express();
    if (mode === "adapter") {
      const { a2aServiceExpress } = await import("../gen/a2a_http_express.ts");
      app.use("/a2a", a2aServiceExpress(handlers));
    } else {
      app.get("/a2a/tasks/:id", (req, res) => void res.type(type).send(taskJson(req.params.id)));
      app.post("/a2a/message\\:send", express.json(), (req, res) => void res.type(type).send(sendJson(req.body)));
    }
    listen = (cb) => {
      const s = app.listen(0, "127.0.0.1", () => cb(s.address().port));
    };
  } else if (fw === "fastify") {
    const { default: Fastify } = await import("fastify");
    const app = Fastify();
    if (mode === "adapter") {
      const { a2aServiceFastify } = await import("../gen/a2a_http_fastify.ts");
      await app.register(a2aServiceFastify, { prefix: "/a2a", handlers });
    } else {
      app.get("/a2a/tasks/:id", (req, reply) => reply.type(type).send(taskJson(req.params.id)));
      app.post("/a2a/message::send", (req, reply) => reply.type(type).send(sendJson(req.body)));
    }
    listen = (cb) => app.listen({ port: 0, host: "127.0.0.1" }).then(() => cb(app.server.address().port));
  } else {
    const { Hono } = await import("hono");
    const { serve } = await import("@hono/node-server");
    const app = new Hono();
    if (mode === "adapter") {
      const { a2aServiceHono } = await import("../gen/a2a_http_hono.ts");
      app.route("/a2a", a2aServiceHono(handlers));
    } else {
      app.get("/a2a/tasks/:id", (c) => c.body(taskJson(c.req.param("id")), 200, { "content-type": type }));
      app.post("/a2a/message:send", async (c) => c.body(sendJson(await c.req.json()), 200, { "content-type": type }));
    }
    listen = (cb) => {
      const s = serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => cb(info.port));
      void s;
    };
  }
  process.on("message", (m) => {
    if (m === "cpu") {
      const u = process.cpuUsage();
      process.send({ cpu: u.user + u.system });
    }
  });
  listen((port) => process.send(port));
}
