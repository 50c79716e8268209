// The generated server adapters against two baselines of the same run, on
// loopback:
// - the floor: a bare route of the same framework that answers the stored
//   Task's JSON with JSON.stringify, as a hand-written server does (no
//   protobuf-es at run time);
// - the A2A JS SDK's own REST server (@a2a-js/sdk 1.3.0, restHandler over a
//   DefaultRequestHandler and an InMemoryTaskStore, on Express).
//
//   npm run generate && node bench/server.mjs [seconds-per-run] [rounds]
//   (BENCH_FRAMEWORKS=hono,... to run some frameworks only)
//
// Each server runs in its own child process (so it does not share a CPU with
// autocannon, which runs here), on 127.0.0.1, port 0, with 10 connections.
// Every run is bounded in time (default 3 s) after a 1 s warm-up, and the
// servers of one framework take turns round by round, so that drift in the
// machine's load hits them alike; each figure is the median of its rounds.
// GetTask answers a stored 517-byte Task; SendMessage reads a small message and
// answers that Task in SendMessageResponse; SendStreamingMessage answers EVENTS
// events per request. The server's own CPU time per request (process.cpuUsage
// around each run) is steadier than requests per second on a shared machine.
// Where `taskset` works and there are two CPUs or more, the servers run on
// the last CPU and autocannon on the first (BENCH_PIN=0 turns that off):
// unpinned, the scheduler moves both between the two cores of these
// machines, and the same server read 31 to 53 µs a GetTask in runs a minute
// apart; pinned, 27 to 30.
//
// Flat out, a server's CPU per request is not only its own work: the slower
// it answers, the more often the client sleeps between answers and each
// write pays for waking it, so a small cost shows several times over. Two
// more figures show by how much:
// - a yardstick: the floor with SPIN_US (2) µs of busy work added to every
//   request, run beside the others;
// - CPU per request at one offered load that every server of the framework
//   keeps up with (RATE_SHARE, 0.6, of the slowest one's flat-out rate).
// With BENCH_PARTS=1, two more servers per framework split the adapter's
// cost in two, each against the same floor:
// - glue: the framework adapter (its generated or runtime shape) over a
//   trivial core that answers the floor's JSON.stringify, so that what it
//   shows is the adapter's own cost (request, body, answer);
// - writer: the floor answering through the generated JSON writer (the
//   Task message, not its JSON), so that what it shows is the writer's cost.
// What ours costs beyond both is the core's (routing, the A2A checks, the
// reader, the context).
// Targets: adapter CPU/request at least 0.8x the floor's (Express 0.9x),
// Fastify and Hono at least 8x the SDK, SSE events/s at least 2x the SDK's.
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { forkServer } from "./fork-server.mjs";
import { pin } from "./pin.mjs";
import { TASK_JSON } from "./task.mjs";
import { sdkCard } from "./sdk-card.mjs";

const EVENTS = 50;
const CONNECTIONS = 10;
const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 3);
const frameworks = (process.env.BENCH_FRAMEWORKS ?? "express,fastify,hono").split(",");
const SPIN_US = 2;
const RATE_SHARE = 0.6;
const parts = process.env.BENCH_PARTS === "1";

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
  const post = { method: "POST", body: send };
  const cpus = availableParallelism();
  const pinned = process.env.BENCH_PIN !== "0" && cpus >= 2 && pin(process.pid, 0);
  const cpuOf = (proc) =>
    new Promise((resolve) => {
      proc.once("message", (m) => resolve(m.cpu));
      proc.send("cpu");
    });
  /** One bounded run: requests/second and the server's CPU µs per request; flat out, or at `rate` requests/second. */
  const run = async (server, path, opts = {}, duration = seconds, rate = undefined) => {
    const before = await cpuOf(server.proc);
    const paced = rate === undefined ? {} : { overallRate: rate };
    const r = await autocannon({ url: server.base + path, connections: CONNECTIONS, duration, headers, ...opts, ...paced });
    const after = await cpuOf(server.proc);
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${server.name} ${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return { rps: r.requests.total / duration, cpu: (after - before) / r.requests.total };
  };
  const spawn = async (name) => {
    const { proc, port } = await forkServer(fileURLToPath(import.meta.url), name, { BENCH_CHILD: name }, pinned ? cpus - 1 : undefined);
    return { name, proc, base: `http://127.0.0.1:${port}/a2a` };
  };
  const stop = async (server) => {
    server.proc.kill();
    await new Promise((r) => server.proc.once("exit", r));
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  const cases = {
    get: ["/tasks/task-1", {}],
    send: ["/message:send", post],
    sse: ["/message:stream", post],
  };
  /** Runs every case on every server, round by round, alternating the order; flat out unless `rates` has the case. */
  async function measure(servers, which, rates = {}) {
    const got = new Map(servers.map((s) => [s, Object.fromEntries(which.map((c) => [c, []]))]));
    for (const s of servers) for (const c of which) await run(s, ...cases[c], 1, rates[c]); // warm-up
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const c of which) for (const s of order) got.get(s)[c].push(await run(s, ...cases[c], seconds, rates[c]));
    }
    const out = new Map();
    for (const s of servers) {
      const m = {};
      for (const c of which) m[c] = { rps: median(got.get(s)[c].map((x) => x.rps)), cpu: median(got.get(s)[c].map((x) => x.cpu)) };
      out.set(s.name, m);
    }
    return out;
  }

  const sdk = await spawn("sdk");
  const sdkFig = (await measure([sdk], ["get", "send", "sse"])).get("sdk");
  await stop(sdk);
  const rows = [];
  for (const fw of frameworks) {
    const servers = [await spawn(`${fw}:adapter`), await spawn(`${fw}:floor`), await spawn(`${fw}:spin`)];
    if (parts) servers.push(await spawn(`${fw}:glue`), await spawn(`${fw}:writer`));
    const figs = await measure(servers, ["get", "send"]);
    const rates = {};
    for (const c of ["get", "send"]) rates[c] = Math.round(RATE_SHARE * Math.min(...servers.map((s) => figs.get(s.name)[c].rps)));
    const paced = await measure(servers, ["get", "send"], rates);
    const sse = (await measure([servers[0]], ["sse"])).get(`${fw}:adapter`).sse;
    const fig = (name) => ({ ...figs.get(name), paced: paced.get(name) });
    const partFigs = parts ? { glue: fig(`${fw}:glue`), writer: fig(`${fw}:writer`) } : undefined;
    rows.push({ fw, ours: { ...fig(`${fw}:adapter`), sse }, floor: fig(`${fw}:floor`), spin: fig(`${fw}:spin`), rates, parts: partFigs });
    for (const s of servers) await stop(s);
  }

  const n = (x, w = 7) => Math.round(x).toLocaleString("en-US").padStart(w);
  const us = (x) => x.toFixed(1).padStart(6);
  const x = (r) => `${r.toFixed(2)}x`.padStart(6);
  console.log(
    `node ${process.version}; median of ${rounds} alternating ${seconds} s runs, ${CONNECTIONS} connections, loopback; ` +
      `SDK = @a2a-js/sdk 1.3.0 restHandler (Express); ` +
      (pinned ? `servers on CPU ${cpus - 1}, autocannon on CPU 0` : "not pinned to CPUs"),
  );
  const title = { get: "GetTask", send: "SendMessage" };
  for (const c of ["get", "send"]) {
    console.log(`\n${title[c]}, flat out: server CPU µs per request (floor/ours and SDK/ours: higher is better for us)`);
    console.log(`framework     ours  floor floor/ours    SDK  SDK/ours   | floor+${SPIN_US} µs  floor/it |  req/s ours   floor     SDK`);
    for (const r of rows) {
      const o = r.ours[c],
        f = r.floor[c],
        p = r.spin[c],
        s = sdkFig[c];
      console.log(
        `${r.fw.padEnd(9)} ${us(o.cpu)} ${us(f.cpu)}     ${x(f.cpu / o.cpu)} ${us(s.cpu)}   ${x(s.cpu / o.cpu)}   |    ${us(p.cpu)}    ${x(f.cpu / p.cpu)} |  ${n(o.rps, 10)} ${n(f.rps)} ${n(s.rps)}`,
      );
    }
    console.log(`${title[c]}, at one offered load (${RATE_SHARE} of the slowest one's flat-out rate): server CPU µs per request`);
    console.log(`framework   req/s     ours  floor floor/ours   | floor+${SPIN_US} µs  floor/it`);
    for (const r of rows) {
      const o = r.ours.paced[c],
        f = r.floor.paced[c],
        p = r.spin.paced[c];
      const behind = [o, f, p].some((g) => g.rps < 0.97 * r.rates[c]) ? "  (a server fell behind the load)" : "";
      console.log(
        `${r.fw.padEnd(9)} ${n(r.rates[c], 7)}  ${us(o.cpu)} ${us(f.cpu)}     ${x(f.cpu / o.cpu)}   |    ${us(p.cpu)}    ${x(f.cpu / p.cpu)}${behind}`,
      );
    }
  }
  if (parts) {
    console.log(
      `\nThe adapter's cost in parts: floor/it, flat out and at the offered load (glue: the adapter over a trivial core; writer: the floor through the generated writer)`,
    );
    console.log(`framework  rpc           ours flat/paced   glue flat/paced   writer flat/paced`);
    for (const r of rows) {
      for (const c of ["get", "send"]) {
        const pair = (it) => `${x(r.floor[c].cpu / it[c].cpu)} ${x(r.floor.paced[c].cpu / it.paced[c].cpu)}`;
        console.log(`${r.fw.padEnd(9)}  ${title[c].padEnd(12)} ${pair(r.ours)}    ${pair(r.parts.glue)}    ${pair(r.parts.writer)}`);
      }
    }
  }
  console.log(`\nSendStreamingMessage, ${EVENTS} events per request: events/s (ours/SDK), server CPU µs per event`);
  for (const r of rows) {
    const o = r.ours.sse,
      s = sdkFig.sse;
    console.log(
      `${r.fw.padEnd(9)} ${n(o.rps * EVENTS, 9)} / ${n(s.rps * EVENTS, 9)} (${x(o.rps / s.rps)})   CPU ${(o.cpu / EVENTS).toFixed(2)} / ${(s.cpu / EVENTS).toFixed(2)} µs`,
    );
  }
}

async function child(which) {
  process.on("message", (m) => {
    if (m === "cpu") {
      const u = process.cpuUsage();
      process.send({ cpu: u.user + u.system });
    }
  });
  const listen = which === "sdk" ? await sdkServer() : await ourServer(...which.split(":"));
  listen((port) => process.send(port));
}

async function ourServer(fw, mode) {
  const { create, fromJson } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  // The adapter's handlers hold protobuf-es messages, as a real agent does.
  const task = fromJson(pb.TaskSchema, TASK_JSON);
  const store = new Map([["task-1", task]]);
  const event = create(pb.StreamResponseSchema, {
    payload: { case: "statusUpdate", value: { taskId: "task-1", contextId: "ctx-1", status: { state: pb.TaskState.WORKING } } },
  });
  const handlers = {
    getTask: (req) => store.get(req.id),
    sendMessage: (req) => {
      void req.message?.messageId;
      return { payload: { case: "task", value: store.get("task-1") } };
    },
    async *sendStreamingMessage() {
      for (let i = 0; i < EVENTS; i++) yield event;
    },
  };
  // The floor holds the JSON and stringifies it per request.
  const json = new Map([["task-1", TASK_JSON]]);
  const type = "application/a2a+json";
  // The yardstick: the floor plus SPIN_US µs of busy work a request.
  const spin =
    mode === "spin"
      ? () => {
          const until = process.hrtime.bigint() + BigInt(SPIN_US * 1000);
          while (process.hrtime.bigint() < until);
        }
      : () => {};
  // BENCH_PARTS's writer: the floor answering through the generated JSON writer.
  const codecs = mode === "writer" ? await import("../gen/a2a_http_json.ts") : undefined;
  const sendResponse = create(pb.SendMessageResponseSchema, { payload: { case: "task", value: task } });
  const taskJson = (id) => {
    spin();
    return codecs ? JSON.stringify(codecs.TaskJson.write(store.get(id), true)) : JSON.stringify(json.get(id));
  };
  const sendJson = (body) => {
    void body?.message?.messageId;
    spin();
    return codecs ? JSON.stringify(codecs.SendMessageResponseJson.write(sendResponse, true)) : JSON.stringify({ task: json.get("task-1") });
  };
  // BENCH_PARTS's glue: a core that answers as the floor does, behind the adapter's glue.
  const answer = (body) => ({ status: 200, headers: { "content-type": type }, body });
  const trivialCore = (req) =>
    req.method === "POST"
      ? req.readBody(4 * 1024 * 1024).then((text) => answer(sendJson(JSON.parse(text))))
      : answer(taskJson(req.rawPath.slice("/tasks/".length)));
  if (fw === "express") {
    const { default: express } = await import("express");
    const app = express();
    if (mode === "adapter") {
      const { a2aServiceExpress } = await import("../gen/a2a_http_express.ts");
      app.use("/a2a", a2aServiceExpress(handlers));
    } else if (mode === "glue") {
      const { nodeHandlerOf, nodeMiddleware } = await import("a2a-http/node");
      const router = express.Router();
      router.use(nodeMiddleware(nodeHandlerOf(trivialCore)));
      app.use("/a2a", router);
    } else {
      app.get("/a2a/tasks/:id", (req, res) => void res.type(type).send(taskJson(req.params.id)));
      app.post("/a2a/message\\:send", express.json(), (req, res) => void res.type(type).send(sendJson(req.body)));
    }
    return (cb) => {
      const s = app.listen(0, "127.0.0.1", () => cb(s.address().port));
    };
  }
  if (fw === "fastify") {
    const { default: Fastify } = await import("fastify");
    const app = Fastify();
    if (mode === "adapter") {
      const { a2aServiceFastify } = await import("../gen/a2a_http_fastify.ts");
      await app.register(a2aServiceFastify, { prefix: "/a2a", handlers });
    } else if (mode === "glue") {
      const { registerFastifyHandler } = await import("a2a-http/fastify");
      const plugin = (fastify, _opts, done) => {
        registerFastifyHandler(fastify, trivialCore, ["GET", "POST"]);
        done();
      };
      await app.register(plugin, { prefix: "/a2a" });
    } else {
      app.get("/a2a/tasks/:id", (req, reply) => reply.type(type).send(taskJson(req.params.id)));
      app.post("/a2a/message::send", (req, reply) => reply.type(type).send(sendJson(req.body)));
    }
    return (cb) => app.listen({ port: 0, host: "127.0.0.1" }).then(() => cb(app.server.address().port));
  }
  const { Hono } = await import("hono");
  const { serve } = await import("@hono/node-server");
  const app = new Hono();
  if (mode === "adapter") {
    const { a2aServiceHono } = await import("../gen/a2a_http_hono.ts");
    app.route("/a2a", a2aServiceHono(handlers));
  } else if (mode === "glue") {
    // The generated sub-application's shape (emit/server.ts).
    const { fetchHandlerOf } = await import("a2a-http/server");
    const handle = fetchHandlerOf(trivialCore);
    const sub = new Hono();
    sub.all("*", (c) => handle(c.req.raw, { routePattern: c.req.routePath, native: c }));
    app.route("/a2a", sub);
  } else {
    app.get("/a2a/tasks/:id", (c) => c.body(taskJson(c.req.param("id")), 200, { "content-type": type }));
    app.post("/a2a/message:send", async (c) => c.body(sendJson(await c.req.json()), 200, { "content-type": type }));
  }
  return (cb) => serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => cb(info.port));
}

/** The SDK's REST server with the same stored Task, in the SDK's own (ts-proto) shape. */
async function sdkServer() {
  const { default: express } = await import("express");
  const { Role, TaskState } = await import("@a2a-js/sdk");
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import("@a2a-js/sdk/server");
  const { restHandler, UserBuilder } = await import("@a2a-js/sdk/server/express");
  const part = (text) => ({ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "" });
  const message = (m) => ({
    messageId: m.messageId,
    contextId: m.contextId,
    taskId: m.taskId,
    role: m.role === "ROLE_USER" ? Role.ROLE_USER : Role.ROLE_AGENT,
    parts: m.parts.map((p) => part(p.text)),
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const task = {
    id: TASK_JSON.id,
    contextId: TASK_JSON.contextId,
    status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: TASK_JSON.status.timestamp, message: undefined },
    artifacts: TASK_JSON.artifacts.map((a) => ({
      artifactId: a.artifactId,
      name: a.name,
      description: "",
      parts: a.parts.map((p) => part(p.text)),
      metadata: undefined,
      extensions: [],
    })),
    history: TASK_JSON.history.map(message),
    metadata: TASK_JSON.metadata,
  };
  const store = new InMemoryTaskStore();
  // The SDK scopes tasks by user; unauthenticated requests resolve to the same scope as {}.
  await store.save(task, {});
  const executor = {
    async execute(ctx, bus) {
      bus.publish(AgentEvent.task({ ...task, id: ctx.taskId, contextId: ctx.contextId }));
      bus.finished();
    },
    async cancelTask() {},
  };
  const streamExecutor = {
    async execute(ctx, bus) {
      bus.publish(
        AgentEvent.task({
          ...task,
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_WORKING, timestamp: undefined, message: undefined },
        }),
      );
      for (let i = 1; i < EVENTS; i++) {
        bus.publish(
          AgentEvent.statusUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            status: { state: TaskState.TASK_STATE_WORKING, timestamp: undefined, message: undefined },
            metadata: undefined,
          }),
        );
      }
      bus.finished();
    },
    async cancelTask() {},
  };
  const card = sdkCard("http://127.0.0.1/a2a");
  const unary = new DefaultRequestHandler(card, store, executor);
  const streaming = new DefaultRequestHandler(card, new InMemoryTaskStore(), streamExecutor);
  const app = express();
  // SendStreamingMessage goes to a handler whose executor streams EVENTS events.
  const rest = restHandler({ requestHandler: unary, userBuilder: UserBuilder.noAuthentication });
  const restStream = restHandler({ requestHandler: streaming, userBuilder: UserBuilder.noAuthentication });
  app.use("/a2a", (req, res, next) => (req.url.startsWith("/message:stream") ? restStream(req, res, next) : rest(req, res, next)));
  return (cb) => {
    const s = app.listen(0, "127.0.0.1", () => cb(s.address().port));
  };
}
