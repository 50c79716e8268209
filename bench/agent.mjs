// The A2A task engine (a2a-http/agent, through the generated
// createA2AServiceAgent and a2aServiceExpress) against two baselines of the
// same run, all on Express 5, on loopback:
// - the A2A JS SDK (@a2a-js/sdk 1.3.0): DefaultRequestHandler over an
//   InMemoryTaskStore with the same executor logic written as an SDK
//   AgentExecutor, served by the SDK's own Express REST handler (restHandler);
// - the floor: the same generated adapter with a handler and no engine, that
//   answers a prebuilt Task (echo) or yields prebuilt events (stream).
//
//   npm run generate && node bench/agent.mjs [--quick] [--case=echo|stream] [seconds-per-run] [rounds]
//   node bench/agent.mjs --profile[=floor|sdk] [seconds]   (the engine, or the
//     contender named, alone, one case at a time, under V8's sampling profiler
//     after the warm-up; default 8 s: prints the hottest functions, time by
//     module, and the engine's functions inclusive)
//   node [--cpu-prof] bench/agent.mjs --in-process [--case=…] [rounds]   (no
//     network: the engine's handlers called directly in this process, against
//     a handler that answers the prebuilt answer, CPU µs per call; with
//     --cpu-prof, a profile of the engine alone)
//   BENCH_MAX_TASKS=n: the engine's memory store holds n tasks (default its
//     own 10 000), to see what keeping the tasks costs.
//
// Two cases, each a new task per request:
// - echo: a blocking SendMessage; the executor is `task.complete("echo: " + text)`
//   (the task is stored SUBMITTED, gets the echo artifact, ends COMPLETED; the
//   answer is the whole Task);
// - stream: a SendStreamingMessage of 101 events: the Task, then 99 updates
//   (WORKING statuses and chunks of one artifact, alternately; the executor
//   awaits each), then COMPLETED. Figures are per stream.
// Before measuring, every contender's answers are checked to be the same
// (state, artifact text, number and order of events).
//
// The method is bench/server.mjs's: each contender runs in its own child
// process on 127.0.0.1 (port 0), a fresh one per case (so that the tasks one
// case leaves in a store do not weigh on the other's GC), autocannon here
// with 10 connections, flat out; where `taskset` works and there are two
// CPUs or more, the servers run on the last CPU and autocannon on the first
// (BENCH_PIN=0 turns that off). Before the runs, each contender serves 10 000
// requests of the case (0.5 s with --quick): the engine's memory store is
// then full (10 000 tasks by default) and evicts the oldest ended task for
// each new one, as a busy agent's does; the SDK's store is unbounded and
// keeps growing, as it does in production. Each run lasts `seconds` (default
// 4); the contenders take turns round by round, in alternating order, and
// each figure is the median of its rounds. The figure is the server's own
// CPU time per request (process.cpuUsage around each run, over IPC), steadier
// than requests per second on a shared machine.
//
// Goals (issue 26 item 10): SDK/engine >= 2x on both cases; engine/floor <= 1.5x.
import { mkdtempSync, readFileSync } from "node:fs";
import { availableParallelism, tmpdir } from "node:os";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { agents, CONTEXT_ID, EVENTS, TEXT, UPDATES } from "./agent-executors.mjs";
import { askChild, forkServer } from "./fork-server.mjs";
import { pin } from "./pin.mjs";
import { sdkCard } from "./sdk-card.mjs";

const CONNECTIONS = 10;
/** Requests of the warm-up: the engine's memory store holds at most 10 000 tasks by default. */
const WARM_TASKS = 10_000;
const GOAL_SDK = 2;
const GOAL_FLOOR = 1.5;
const ROOT = join(fileURLToPath(import.meta.url), "..", "..");

if (process.env.BENCH_CHILD) {
  await child(process.env.BENCH_CHILD);
} else {
  await main();
}

// --- the parent: load, measure, report ------------------------------------------

async function main() {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const profile =
    args.find((a) => a === "--profile" || a.startsWith("--profile="))?.split("=")[1] ?? (args.includes("--profile") ? "engine" : undefined);
  const nums = args.filter((a) => !a.startsWith("--")).map(Number);
  const seconds = nums[0] ?? (quick ? 1 : 4);
  const rounds = nums[1] ?? (quick ? 1 : 5);
  // The warm-up fills the engine's store to its default cap (10 000 tasks), where a busy agent runs.
  const warmup = quick ? { seconds: 0.5 } : { amount: WARM_TASKS };

  const { default: autocannon } = await import("autocannon");
  const body = JSON.stringify({
    message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: TEXT }], contextId: CONTEXT_ID },
  });
  const headers = { "a2a-version": "1.0", "content-type": "application/json" };
  const cases = {
    echo: { path: "/echo/message:send", title: "SendMessage, echo (blocking)", unit: "request" },
    stream: { path: `/stream/message:stream`, title: `SendStreamingMessage, ${EVENTS} events`, unit: "stream" },
  };
  const onlyCase = args.find((a) => a.startsWith("--case="))?.slice("--case=".length);
  if (onlyCase !== undefined) {
    if (!(onlyCase in cases)) throw new Error(`--case=${onlyCase}: echo or stream`);
    for (const c of Object.keys(cases)) if (c !== onlyCase) delete cases[c];
  }
  const cpus = availableParallelism();
  const pinned = process.env.BENCH_PIN !== "0" && cpus >= 2 && pin(process.pid, 0);

  const ask = askChild;
  /** One flat-out run of `duration` seconds, or of `amount` requests: requests/second and the server's CPU µs per request. */
  const run = async (server, c, duration, amount = undefined) => {
    const before = await ask(server.proc, "cpu");
    const bound = amount === undefined ? { duration } : { amount };
    const r = await autocannon({ url: server.base + cases[c].path, method: "POST", body, headers, connections: CONNECTIONS, ...bound });
    const after = await ask(server.proc, "cpu");
    if (r.non2xx > 0 || r.errors > 0 || r.requests.total === 0) {
      throw new Error(`${server.name} ${c}: ${r.requests.total} requests, ${r.non2xx} non-2xx, ${r.errors} errors`);
    }
    return { rps: r.requests.total / r.duration, cpu: (after - before) / r.requests.total };
  };
  /** A contender's server for one case, in a child process. */
  const spawn = async (name, c) => {
    const { proc, port } = await forkServer(
      fileURLToPath(import.meta.url),
      name,
      { BENCH_CHILD: name, BENCH_CASE: c },
      pinned ? cpus - 1 : undefined,
    );
    return { name, proc, base: `http://127.0.0.1:${port}` };
  };
  /** Asks the child to exit; kills it if it does not. */
  const stop = async (server) => {
    const exited = new Promise((r) => server.proc.once("exit", r));
    server.proc.send("exit");
    const t = setTimeout(() => server.proc.kill(), 10_000);
    await exited;
    clearTimeout(t);
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

  if (args.includes("--in-process")) return inProcess(cases, nums[0] ?? 8);
  if (profile) return profileOne(profile, { spawn, stop, run, ask, seconds: nums[0] ?? 8, cases, pinned, cpus });

  const names = ["engine", "sdk", "floor"];
  const got = new Map(names.map((n) => [n, { echo: [], stream: [] }]));
  const heap = new Map(names.map((n) => [n, {}]));
  // One case at a time, each contender in a process of its own for it, so
  // that what one case leaves in a store does not weigh on the other's GC.
  for (const c of Object.keys(cases)) {
    const servers = [];
    for (const n of names) servers.push(await spawn(n, c));
    for (const s of servers) await check(s, c, body, headers);
    for (const s of servers) await run(s, c, warmup.seconds, warmup.amount);
    if (!quick) process.stderr.write(`${c}: warmed up\n`);
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? servers : [...servers].reverse();
      for (const s of order) got.get(s.name)[c].push(await run(s, c, seconds));
      if (!quick) process.stderr.write(`${c}: round ${round + 1}/${rounds} done\n`);
    }
    for (const s of servers) heap.get(s.name)[c] = await ask(s.proc, "mem");
    for (const s of servers) await stop(s);
  }

  // Figures: medians of the rounds; ratios of the medians, with the range of the per-round ratios.
  const fig = (n, c) => ({
    cpu: median(got.get(n)[c].map((x) => x.cpu)),
    rps: median(got.get(n)[c].map((x) => x.rps)),
  });
  const ratio = (a, b, c) => {
    const per = got.get(a)[c].map((x, i) => x.cpu / got.get(b)[c][i].cpu);
    return { mid: fig(a, c).cpu / fig(b, c).cpu, lo: Math.min(...per), hi: Math.max(...per) };
  };

  const us = (x, w = 8) => x.toFixed(1).padStart(w);
  const n = (x, w = 8) => Math.round(x).toLocaleString("en-US").padStart(w);
  const xr = (r) => `${r.mid.toFixed(2)}x (${r.lo.toFixed(2)}-${r.hi.toFixed(2)})`.padEnd(20);
  console.log(
    `node ${process.version}; median of ${rounds} alternating ${seconds} s runs, ${CONNECTIONS} connections, loopback, Express 5; ` +
      (pinned ? `servers on CPU ${cpus - 1}, autocannon on CPU 0` : "not pinned to CPUs"),
  );
  console.log(
    "engine = createA2AServiceAgent + a2aServiceExpress; SDK = @a2a-js/sdk 1.3.0 DefaultRequestHandler + InMemoryTaskStore + restHandler; " +
      "floor = a2aServiceExpress with prebuilt answers, no engine",
  );
  console.log(`\nserver CPU µs per request (stream: per ${EVENTS}-event stream); ratios: median (range over rounds)`);
  console.log(`case                                     engine      SDK    floor   SDK/engine           engine/floor`);
  const verdicts = [];
  for (const c of Object.keys(cases)) {
    const e = fig("engine", c),
      s = fig("sdk", c),
      f = fig("floor", c);
    const rs = ratio("sdk", "engine", c),
      rf = ratio("engine", "floor", c);
    console.log(`${cases[c].title.padEnd(38)} ${us(e.cpu)} ${us(s.cpu)} ${us(f.cpu)}   ${xr(rs)} ${xr(rf)}`);
    verdicts.push(
      `${c}: SDK/engine ${rs.mid.toFixed(2)}x (goal >= ${GOAL_SDK}x: ${rs.mid >= GOAL_SDK ? "met" : "NOT met"}), ` +
        `engine/floor ${rf.mid.toFixed(2)}x (goal <= ${GOAL_FLOOR}x: ${rf.mid <= GOAL_FLOOR ? "met" : "NOT met"})`,
    );
  }
  const st = (n) => fig(n, "stream").cpu / EVENTS;
  if ("stream" in cases) console.log(`${"  stream, per event".padEnd(38)} ${us(st("engine"))} ${us(st("sdk"))} ${us(st("floor"))}`);
  console.log(`\nflat-out rate (requests or streams per second)`);
  for (const c of Object.keys(cases)) {
    console.log(`${cases[c].title.padEnd(38)} ${n(fig("engine", c).rps)} ${n(fig("sdk", c).rps)} ${n(fig("floor", c).rps)}`);
  }
  const mb = (b) => `${(b / 1048576).toFixed(0)} MB`;
  console.log(`\nheap used / RSS at the end (what the stores hold)`);
  for (const c of Object.keys(cases)) {
    console.log(
      `${cases[c].title.padEnd(38)} ` + names.map((nm) => `${nm} ${mb(heap.get(nm)[c].heapUsed)} / ${mb(heap.get(nm)[c].rss)}`).join(", "),
    );
  }
  console.log("");
  for (const v of verdicts) console.log(v);
}

/**
 * The engine's handlers called in this process (no HTTP, no JSON), against a
 * handler that answers what the engine answered (the floor's part of the
 * cost: the loop, the request and its context); alternating rounds.
 */
async function inProcess(cases, rounds) {
  // The generated code is TypeScript (the children get tsx by --import).
  (await import("tsx/esm/api")).register();
  const { create } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  const engines = await agents();
  const signal = new AbortController().signal;
  const ctx = () => ({ rpc: "sendMessage", tenant: "", headers: new Headers(), signal, responseHeaders: new Headers(), extensions: [] });
  const req = () =>
    create(pb.SendMessageRequestSchema, {
      message: { messageId: "m1", role: pb.Role.USER, parts: [{ content: { case: "text", value: TEXT } }], contextId: CONTEXT_ID },
    });
  const answer = await engines.echo.sendMessage(req(), ctx());
  const events = [];
  for await (const e of engines.stream.sendStreamingMessage(req(), ctx())) events.push(e);
  if (answer.payload.value.status.state !== 3 || events.length !== EVENTS) throw new Error("the engine answers differently");
  const calls = {
    echo: {
      engine: () => engines.echo.sendMessage(req(), ctx()),
      floor: () => ({ sendMessage: (r) => (void r.message?.messageId, answer) }).sendMessage(req(), ctx()),
    },
    stream: {
      engine: async () => {
        for await (const e of engines.stream.sendStreamingMessage(req(), ctx())) void e;
      },
      floor: async () => {
        const floor = async function* (r) {
          void r.message?.messageId;
          for (const e of events) yield e;
        };
        for await (const e of floor(req(), ctx())) void e;
      },
    },
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  console.log(
    `node ${process.version}; in-process, median of ${rounds} alternating rounds; CPU µs per call (stream: per ${EVENTS}-event stream)`,
  );
  for (const c of Object.keys(cases)) {
    const n = c === "echo" ? 20_000 : 400;
    // The warm-up fills the engine's store.
    for (let i = 0; i < WARM_TASKS; i++) await calls[c].engine();
    const got = { engine: [], floor: [] };
    for (let round = 0; round < rounds; round++) {
      for (const who of round % 2 === 0 ? ["engine", "floor"] : ["floor", "engine"]) {
        const before = process.cpuUsage();
        for (let i = 0; i < n; i++) await calls[c][who]();
        const used = process.cpuUsage(before);
        got[who].push((used.user + used.system) / n);
      }
    }
    const e = median(got.engine);
    const f = median(got.floor);
    const per = c === "stream" ? `; per event ${(e / EVENTS).toFixed(2)} / ${(f / EVENTS).toFixed(2)}` : "";
    console.log(`${cases[c].title.padEnd(38)} engine ${e.toFixed(1)}, floor ${f.toFixed(1)}, engine - floor ${(e - f).toFixed(1)}${per}`);
  }
}

/** One request of the case, to check that every contender gives the same answers. */
async function check(server, c, body, headers) {
  const fail = (what) => {
    throw new Error(`${server.name} answers differently: ${what}`);
  };
  if (c === "echo") await checkEcho(server, fail, body, headers);
  else await checkStream(server, fail, body, headers);
}

async function checkEcho(server, fail, body, headers) {
  const r = await fetch(server.base + "/echo/message:send", { method: "POST", body, headers });
  if (r.status !== 200) fail(`echo: HTTP ${r.status} ${await r.text()}`);
  const task = (await r.json()).task;
  if (task?.status?.state !== "TASK_STATE_COMPLETED") fail(`echo: state ${task?.status?.state}`);
  if (task.artifacts?.[0]?.parts?.[0]?.text !== `echo: ${TEXT}`) fail(`echo: artifacts ${JSON.stringify(task.artifacts)}`);
  if (task.history?.[0]?.parts?.[0]?.text !== TEXT) fail(`echo: history ${JSON.stringify(task.history)}`);
}

async function checkStream(server, fail, body, headers) {
  const s = await fetch(server.base + "/stream/message:stream", { method: "POST", body, headers });
  if (s.status !== 200) fail(`stream: HTTP ${s.status}`);
  const events = (await s.text())
    .split(/\r?\n/)
    .filter((l) => l.startsWith("data:"))
    .map((l) => JSON.parse(l.slice(5)));
  if (events.length !== EVENTS) fail(`stream: ${events.length} events, not ${EVENTS}`);
  const kinds = events.map((e) => Object.keys(e).find((k) => k === "task" || k === "statusUpdate" || k === "artifactUpdate"));
  const want = ["task", ...Array.from({ length: UPDATES }, (_, i) => (i % 2 === 0 ? "statusUpdate" : "artifactUpdate")), "statusUpdate"];
  if (kinds.join() !== want.join()) fail(`stream: events ${kinds.join()}`);
  if (events.at(-1).statusUpdate.status.state !== "TASK_STATE_COMPLETED") fail("stream: the last event is not COMPLETED");
}

/** One contender alone under the V8 profiler (only while loaded), one process per case; prints where its time goes. */
async function profileOne(name, { spawn, stop, run, ask, seconds, cases, pinned, cpus }) {
  if (!["engine", "sdk", "floor"].includes(name)) throw new Error(`--profile=${name}: engine, sdk or floor`);
  const dir = mkdtempSync(join(tmpdir(), "agent-prof-"));
  console.log(
    `node ${process.version}; the ${name} under the V8 sampling profiler, ${seconds} s flat out per case, ${CONNECTIONS} connections` +
      (pinned ? `, server on CPU ${cpus - 1}` : ""),
  );
  for (const c of Object.keys(cases)) {
    const server = await spawn(name, c);
    await run(server, c, undefined, WARM_TASKS);
    await ask(server.proc, "profStarted");
    const r = await run(server, c, seconds);
    const file = join(dir, `${c}.cpuprofile`);
    server.proc.send({ profStop: file });
    await ask(server.proc, "profStopped", false);
    await stop(server);
    console.log(`\n== ${cases[c].title}: ${r.cpu.toFixed(1)} µs CPU per ${cases[c].unit} (profiling on), ${file}`);
    summarize(JSON.parse(readFileSync(file, "utf8")));
  }
}

/** Self time of the hottest functions, and inclusive time of the engine's functions (a2a-http/agent). */
function summarize(prof) {
  const byId = new Map(prof.nodes.map((n) => [n.id, n]));
  const parent = new Map();
  for (const n of prof.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const where = (cf) => {
    const url = cf.url.replace(/^file:\/\//, "");
    const file = url.startsWith(ROOT) ? relative(ROOT, url) : url.replace(/.*node_modules\//, "");
    return `${cf.functionName || "(anonymous)"} ${file || "(native)"}${file ? `:${cf.lineNumber + 1}` : ""}`;
  };
  const self = new Map();
  const total = new Map();
  let all = 0;
  let idle = 0;
  for (let i = 0; i < prof.samples.length; i++) {
    const dt = prof.timeDeltas[i] ?? 0;
    const id = prof.samples[i];
    const node = byId.get(id);
    const name = node.callFrame.functionName;
    if (name === "(idle)" || name === "(program)") {
      idle += dt;
      continue;
    }
    // The profiler's own start (its first sample spans the time it took).
    let ours = false;
    for (let p = id; p !== undefined && !ours; p = parent.get(p)) ours = byId.get(p).callFrame.functionName === "startProfiler";
    if (ours) continue;
    all += dt;
    const k = where(node.callFrame);
    self.set(k, (self.get(k) ?? 0) + dt);
    const seen = new Set();
    for (let p = id; p !== undefined; p = parent.get(p)) {
      const cf = byId.get(p).callFrame;
      if (!cf.url.includes("/agent/")) continue;
      const kk = where(cf);
      if (seen.has(kk)) continue;
      seen.add(kk);
      total.set(kk, (total.get(kk) ?? 0) + dt);
    }
  }
  const pct = (x) => `${((100 * x) / all).toFixed(1).padStart(5)}%`;
  const top = (m, k) => [...m].sort((a, b) => b[1] - a[1]).slice(0, k);
  console.log(`busy ${(all / 1e3).toFixed(0)} ms (idle/program ${(idle / 1e3).toFixed(0)} ms). Self time, top 25:`);
  for (const [k, v] of top(self, 25)) console.log(`  ${pct(v)}  ${k}`);
  const groups = new Map();
  for (const [k, v] of self) {
    const g = groupOf(k);
    groups.set(g, (groups.get(g) ?? 0) + v);
  }
  console.log("Self time by where:");
  for (const [k, v] of top(groups, 14)) console.log(`  ${pct(v)}  ${k}`);
  console.log("Inclusive time of a2a-http/agent functions, top 15:");
  for (const [k, v] of top(total, 15)) console.log(`  ${pct(v)}  ${k}`);
}

/** Where a function of the profile belongs, for the summary by where. */
function groupOf(k) {
  if (k.startsWith("(garbage collector)")) return "(garbage collector)";
  if (k.endsWith("(native)")) return "native: " + k.split(" ")[0];
  if (k.includes("packages/runtime/dist/agent/")) return "a2a-http/agent";
  if (k.includes("packages/runtime/")) return "a2a-http (adapter, codecs, SSE)";
  if (k.includes("@bufbuild/protobuf")) return "@bufbuild/protobuf";
  if (k.includes("@a2a-js/")) return "@a2a-js/sdk";
  if (/ (express|router|body-parser|finalhandler|send|on-finished|raw-body|iconv-lite|type-is|content-type)\//.test(k))
    return "express & its deps";
  if (k.includes(" node:")) return "node:" + k.split(" node:")[1].split(":")[0];
  if (k.includes("bench/agent.mjs")) return "the bench's executor";
  return "other";
}

// --- the children: one server each ------------------------------------------------

async function child(which) {
  process.on("message", (m) => {
    if (m === "cpu") {
      const u = process.cpuUsage();
      process.send({ cpu: u.user + u.system });
    } else if (m === "mem") {
      process.send({ mem: process.memoryUsage() });
    } else if (m === "exit") {
      process.exit(0);
    } else if (m === "profStarted") {
      profiler ??= startProfiler();
      profiler.then(() => process.send({ profStarted: true }));
    } else if (m?.profStop) {
      void profiler.then(async (session) => {
        const { profile } = await post(session, "Profiler.stop");
        writeFileSync(m.profStop, JSON.stringify(profile));
        process.send({ profStopped: true });
      });
    }
  });
  let profiler;
  const { Session } = await import("node:inspector");
  const { writeFileSync } = await import("node:fs");
  const post = (session, method, params = {}) =>
    new Promise((resolve, reject) => session.post(method, params, (e, r) => (e ? reject(e) : resolve(r))));
  async function startProfiler() {
    const session = new Session();
    session.connect();
    await post(session, "Profiler.enable");
    await post(session, "Profiler.setSamplingInterval", { interval: 250 });
    await post(session, "Profiler.start");
    return session;
  }
  const { default: express } = await import("express");
  const app = express();
  const only = process.env.BENCH_CASE;
  if (which === "sdk") await sdkServer(app, only);
  else await ourServer(app, which, only);
  const s = app.listen(0, "127.0.0.1", () => process.send(s.address().port));
}

/** The engine, or the floor: the generated Express adapter either way. */
async function ourServer(app, which, only) {
  const { fromJson } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  const { a2aServiceExpress } = await import("../gen/a2a_http_express.ts");
  if (which === "engine") {
    const { echo, stream } = await agents();
    if (only === "echo") app.use("/echo", a2aServiceExpress(echo));
    else app.use("/stream", a2aServiceExpress(stream));
    return;
  }
  // The floor: what the engine answers, prebuilt once as protobuf-es messages.
  const at = "2026-01-02T03:04:05.123Z";
  // A task id as long as the engine's (a UUID), so that both answer as many bytes.
  const ids = { taskId: "7c9e6679-7425-40de-944b-e07fc1f90ae7", contextId: CONTEXT_ID };
  const userMessage = { messageId: "m1", ...ids, role: "ROLE_USER", parts: [{ text: TEXT }] };
  const echoTask = fromJson(pb.TaskSchema, {
    id: ids.taskId,
    contextId: ids.contextId,
    status: { state: "TASK_STATE_COMPLETED", timestamp: at },
    artifacts: [{ artifactId: "2f1d7c1e-8e8a-4c4e-9a57-6d0f7c3b8a10", parts: [{ text: `echo: ${TEXT}` }] }],
    history: [userMessage],
  });
  const status = (state) => ({ statusUpdate: { ...ids, status: { state, timestamp: at } } });
  const events = [
    {
      task: { id: ids.taskId, contextId: ids.contextId, status: { state: "TASK_STATE_SUBMITTED", timestamp: at }, history: [userMessage] },
    },
    ...Array.from({ length: UPDATES }, (_, j) => {
      const i = j + 1;
      return i % 2 === 1
        ? status("TASK_STATE_WORKING")
        : { artifactUpdate: { ...ids, artifact: { artifactId: "out", parts: [{ text: `chunk ${i}` }] }, append: i > 2 } };
    }),
    status("TASK_STATE_COMPLETED"),
  ].map((e) => fromJson(pb.StreamResponseSchema, e));
  const answer = { payload: { case: "task", value: echoTask } };
  if (only === "echo") app.use("/echo", a2aServiceExpress({ sendMessage: (req) => (void req.message?.messageId, answer) }));
  else {
    app.use(
      "/stream",
      a2aServiceExpress({
        async *sendStreamingMessage(req) {
          void req.message?.messageId;
          for (const e of events) yield e;
        },
      }),
    );
  }
}

/** The SDK's REST server, with the same executors written as SDK AgentExecutors. */
async function sdkServer(app, only) {
  const { TaskState } = await import("@a2a-js/sdk");
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import("@a2a-js/sdk/server");
  const { restHandler, UserBuilder } = await import("@a2a-js/sdk/server/express");
  const card = sdkCard("http://127.0.0.1/a2a");
  const text = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
  const now = () => new Date().toISOString();
  const status = (ctx, state) =>
    AgentEvent.statusUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      status: { state, timestamp: now(), message: undefined },
      metadata: undefined,
    });
  const artifact = (ctx, artifactId, value, append, lastChunk) =>
    AgentEvent.artifactUpdate({
      taskId: ctx.taskId,
      contextId: ctx.contextId,
      artifact: { artifactId, name: "", description: "", parts: [text(value)], metadata: undefined, extensions: [] },
      append,
      lastChunk,
      metadata: undefined,
    });
  // What the engine does for a new task: the Task (SUBMITTED, the message in its history) first.
  const submitted = (ctx) =>
    AgentEvent.task({
      id: ctx.taskId,
      contextId: ctx.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
      history: [ctx.userMessage],
      artifacts: [],
      metadata: undefined,
    });
  const textOf = (m) =>
    m.parts
      .filter((p) => p.content?.$case === "text")
      .map((p) => p.content.value)
      .join("\n");
  const cancelTask = async (_taskId, bus) => bus.finished();
  const echo = {
    async execute(ctx, bus) {
      bus.publish(submitted(ctx));
      bus.publish(artifact(ctx, crypto.randomUUID(), "echo: " + textOf(ctx.userMessage), false, true));
      bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
      bus.finished();
    },
    cancelTask,
  };
  const stream = {
    async execute(ctx, bus) {
      bus.publish(submitted(ctx));
      for (let i = 1; i <= UPDATES; i++) {
        bus.publish(i % 2 === 1 ? status(ctx, TaskState.TASK_STATE_WORKING) : artifact(ctx, "out", `chunk ${i}`, i > 2, false));
      }
      bus.publish(status(ctx, TaskState.TASK_STATE_COMPLETED));
      bus.finished();
    },
    cancelTask,
  };
  const handler = (executor) =>
    restHandler({
      requestHandler: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor),
      userBuilder: UserBuilder.noAuthentication,
    });
  if (only === "echo") app.use("/echo", handler(echo));
  else app.use("/stream", handler(stream));
}
