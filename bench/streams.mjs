// Many open SubscribeToTask streams on one agent instance (issue 43 item 2):
// what an open stream costs in memory, how long an event takes to reach the
// last of N subscribers after the first, and that every stream gets every
// event and is closed at the end. Contenders, each in a child process of its
// own, one after the other in the same run:
// - ours: the generated createA2AServiceAgent on the memory store, served by
//   the generated Express adapter (a2aServiceExpress) and, separately, the
//   Hono one (a2aServiceHono on @hono/node-server), as example/server.ts does;
// - the SDK: @a2a-js/sdk 1.3.0's DefaultRequestHandler + InMemoryTaskStore +
//   restHandler on Express, with the same executor written as an SDK
//   AgentExecutor;
// - the floor: a bare node:http server holding the same SSE responses (a
//   Task, then the same events as JSON text) in arrays, writing each event to
//   each response in a loop; no A2A work at all;
// - the frameworks' floors ("express-floor", "hono-floor"): the same behind a
//   bare Express 5 app (the held res written directly) and a bare Hono 4 app
//   on @hono/node-server (a ReadableStream body per stream, each event
//   enqueued as bytes encoded once): what a stream costs there beyond the
//   node:http floor is the framework's own per request, which no adapter of
//   ours can avoid.
//
//   npm run generate && node bench/streams.mjs [--quick] [--n=1000,5000,10000] [--shape=one|many]
//     [--frameworks=express,hono] [--events=20] [--gap=50] [--store=memory|sql] [--only=contender,...]
//   BENCH_CPU_PROF=dir: each server writes a CPU profile of each cycle's events to dir
//   BENCH_HEAP_SNAPSHOT=dir: each server writes a heap snapshot at each memory reading to dir
//
// --store=sql (default N 1,000, shape one): ours on the SQL store, two
// instances ("a" and "b", each a child process with its own pool) sharing
// one PostgreSQL database ($DATABASE_URL, else a throwaway cluster of
// scripts/pg-cluster.sh, bench/pg-server.mjs; a fresh database per
// contender), beside ours on the memory store on one instance in the same
// run. The task(s) are created on A, whose executor publishes; the streams
// alternate between A and B, so that half of them get each event through
// B's LISTEN connection (notifications, not polling). Memory per stream and
// CPU per event are both instances' together; "written" is the later of
// the two.
//
// Two shapes, for each N (default 1,000, 5,000 and 10,000; --quick: 1,000):
// - one: one task, N subscribers;
// - many: N tasks, one subscriber each.
// A cycle: the client (this process) creates the task(s) with SendMessage
// and returnImmediately (the executor publishes nothing until told), opens N
// SubscribeToTask streams (GET /tasks/{id}:subscribe, at most 256 opening at
// once) and waits for the Task each stream answers first; then, K times (K =
// --events, default 20), it tells the server over IPC to publish the next
// event (K-1 artifact updates "e1".."e{K-1}", then COMPLETED, which ends the
// streams), and waits until every stream has it (or 30 s) and --gap ms
// before the next, so that each event's fan-out is measured alone. The client
// timestamps each chunk's arrival per stream with process.hrtime (before
// parsing it with eventsource-parser); an event's fan-out is the last
// stream's arrival minus the first's; p50 and p99 are over the K events (with
// K = 20, the p99 is the largest). "lag p99" is over every (stream, event)
// pair: how long after the event's first arrival that stream had it.
// "written" is measured in the server, without the client: from the step
// message to the server's last ServerResponse write (or end) of the event,
// the child wrapping write and end (keep-alive comments, ":", left out);
// p50 and p99 over the K events. On a small machine the client's fan-out is
// mostly the client's own reading of N sockets (see the floor's). "CPU/event"
// is the server process's CPU time (process.cpuUsage, user + system) from a
// step message to the next, p50 over the events: the same fan-out as work
// done, which other processes on a loaded machine stretch far less than the
// wall time of "written".
//
// Memory: each server runs with --expose-gc and, asked over IPC, collects
// twice and reports process.memoryUsage(): before the task(s), with the
// task(s) and no stream, and with the N streams open. Per stream is (open -
// with tasks) / N; for "many", per task + stream is (open - before) / N, the
// figure of a task waiting with one subscriber. A warm-up cycle of 200
// streams on the same server comes first, so that the code is compiled and
// the lazy modules loaded before the first measurement.
//
// The client is raw node:http (an Agent with keepAlive and maxSockets
// Infinity, a fresh one per cycle) and eventsource-parser, not a full A2A
// client, so that it costs little per event; its own delay is in every
// contender's fan-out alike and is what the floor's fan-out mostly measures.
// Where taskset works (BENCH_PIN=0 turns it off), the servers run on the last
// CPU and the client on the first. N streams need N sockets in the client and
// N in the server: if `ulimit -n` is below N + 256, the bench raises its own
// limit with prlimit (the children inherit it) or says how to.
//
// Our memory store keeps at most 10,000 tasks that have not ended by
// default; the bench gives it room for the warm-up and N live tasks
// (maxTasks). The engine's SSE keep-alive comments (every 5 s) are on as
// shipped; the SDK and the floor send none, and a cycle's events come faster.
import { fork, spawnSync } from "node:child_process";
import http from "node:http";
import { availableParallelism, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import { databaseUrl, startServer } from "./pg-server.mjs";
import { pin } from "./pin.mjs";
import { sdkCard } from "./sdk-card.mjs";

const WARM_STREAMS = 200;
const OPENING = 256;
const WAIT_MS = 30_000;
const CONTEXT_ID = "ctx-1";
const SQL_DATABASE = "a2a_bench_streams";
const SQL_POOL = 10;
// The floors' routes and SSE headers.
const SUBSCRIBE_PATH = /^\/tasks\/([^/:]+):subscribe$/;
const SSE_HEADERS = { "content-type": "text/event-stream", "cache-control": "no-cache" };

if (process.env.BENCH_CHILD) {
  await child(process.env.BENCH_CHILD);
} else {
  await main();
}

// --- the parent: the client, the orchestration, the report ----------------------

async function main() {
  const args = process.argv.slice(2);
  const flag = (name) => args.find((a) => a.startsWith(`--${name}=`))?.slice(name.length + 3);
  const quick = args.includes("--quick");
  const store = flag("store") ?? "memory";
  if (store !== "memory" && store !== "sql") throw new Error(`--store=${store}: memory or sql`);
  const sql = store === "sql";
  const ns = (flag("n") ?? (quick || sql ? "1000" : "1000,5000,10000")).split(",").map(Number);
  const shapes = (flag("shape") ?? (sql ? "one" : "one,many")).split(",");
  const frameworks = (flag("frameworks") ?? "express,hono").split(",");
  const events = Number(flag("events") ?? 20);
  const gap = Number(flag("gap") ?? 50);
  for (const s of shapes) if (s !== "one" && s !== "many") throw new Error(`--shape=${s}: one or many`);
  for (const f of frameworks) if (f !== "express" && f !== "hono") throw new Error(`--frameworks: express and/or hono, not ${f}`);
  if (!(events >= 2) || ns.some((n) => !(n >= 1))) throw new Error("--events is at least 2, --n at least 1");
  raiseFileLimit(Math.max(...ns) + OPENING);

  const cpus = availableParallelism();
  const pinned = process.env.BENCH_PIN !== "0" && cpus >= 2 && pin(process.pid, 0);
  const contenders = sql
    ? frameworks.flatMap((f) => [`ours-${f}`, `sql-${f}`])
    : [...frameworks.map((f) => `ours-${f}`), "sdk", "floor", ...frameworks.map((f) => `${f}-floor`)];
  // --only=a,b: those contenders alone (before/after runs of one change need not wait for the others).
  const only = flag("only")?.split(",");
  if (only) {
    for (const c of only) if (!contenders.includes(c)) throw new Error(`--only: ${c} is not one of ${contenders.join(", ")}`);
    contenders.splice(0, contenders.length, ...contenders.filter((c) => only.includes(c)));
  }
  const maxTasks = Math.max(...ns) + 2 * WARM_STREAMS + 1000;
  const pg = sql ? await startServer() : undefined;

  const spawnOne = async (name, extraEnv) => {
    const proc = fork(fileURLToPath(import.meta.url), [], {
      env: { ...process.env, BENCH_CHILD: name, BENCH_EVENTS: String(events), BENCH_MAX_TASKS: String(maxTasks), ...extraEnv },
      execArgv: ["--expose-gc", "--import", "tsx"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    const port = await new Promise((resolve, reject) => {
      proc.once("message", (m) => resolve(m.port));
      proc.once("exit", (code) => reject(new Error(`${name} exited ${code}`)));
    });
    if (pinned && !pin(proc.pid, cpus - 1)) throw new Error(`${name}: taskset could not pin the server`);
    return { proc, port };
  };
  // A server is one or more instances (members); the first creates the tasks and runs their executors.
  const spawn = async (name) => {
    if (!name.startsWith("sql-")) return { name, members: [await spawnOne(name)] };
    const url = databaseUrl(pg.url, SQL_DATABASE);
    await freshDatabase(pg.url, SQL_DATABASE);
    const members = [];
    for (const instance of ["a", "b"]) members.push(await spawnOne(name, { BENCH_URL: url, BENCH_INSTANCE: instance }));
    return { name, members };
  };
  const stop = async (server) => {
    for (const { proc } of server.members) {
      const exited = new Promise((r) => proc.once("exit", r));
      proc.send("exit");
      const t = setTimeout(() => proc.kill(), 10_000);
      await exited;
      clearTimeout(t);
    }
  };

  console.log(
    `node ${process.version}; ${events} events per cycle, ${gap} ms apart; ` +
      (pinned ? `servers on CPU ${cpus - 1}, the client on CPU 0` : "not pinned to CPUs"),
  );
  console.log(
    sql
      ? `ours = createA2AServiceAgent (memory store, one instance) + the generated adapter; sql = the same on createSqlStore, two instances ` +
          `sharing PostgreSQL (${pg.own ? "a throwaway cluster of scripts/pg-cluster.sh" : "$DATABASE_URL"}), streams alternating between them`
      : "ours = createA2AServiceAgent (memory store) + the generated adapter; SDK = @a2a-js/sdk 1.3.0 DefaultRequestHandler + " +
          "InMemoryTaskStore + restHandler (Express); floor = bare node:http holding the same SSE responses",
  );
  const results = [];
  for (const n of ns) {
    for (const shape of shapes) {
      for (const name of contenders) {
        const server = await spawn(name);
        try {
          await cycle(server, Math.min(WARM_STREAMS, n), shape, events, gap);
          process.stderr.write(`N=${n} ${shape}: ${name} warmed up\n`);
          const r = await cycle(server, n, shape, events, gap);
          results.push({ n, shape, name, ...r });
          process.stderr.write(`N=${n} ${shape}: ${name} done\n`);
        } finally {
          await stop(server);
        }
      }
      report(
        results.filter((r) => r.n === n && r.shape === shape),
        n,
        shape,
        events,
        frameworks,
      );
      console.log(`(load average ${loadavg()[0].toFixed(1)})`);
    }
  }
  pg?.stop();
}

/** Database `name` on the server at `url`, dropped if it was there and made again. */
async function freshDatabase(url, name) {
  const pgMod = await import("pg");
  const admin = new (pgMod.default ?? pgMod).Client({ connectionString: url });
  await admin.connect();
  await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
}

/** Raises this process's open-file limit (the children inherit it) to `need`, or says why it cannot. */
function raiseFileLimit(need) {
  const now = () => Number(spawnSync("sh", ["-c", "ulimit -n"], { encoding: "utf8" }).stdout.trim());
  if (now() >= need) return;
  spawnSync("prlimit", ["--pid", String(process.pid), `--nofile=${need}:${need}`], { stdio: "ignore" });
  if (now() < need) {
    throw new Error(
      `open files are limited to ${now()} (ulimit -n), ${need} are needed: run \`ulimit -n ${need}\` first (the hard limit may need raising), or pass a smaller --n`,
    );
  }
}

/** Sends `what` to a child (an object or a string) and waits for its answer `{ [key]: value }`. */
function ask(proc, what, key = typeof what === "string" ? what : Object.keys(what)[0]) {
  return new Promise((resolve) => {
    const on = (m) => {
      if (m?.[key] === undefined) return;
      proc.off("message", on);
      resolve(m[key]);
    };
    proc.on("message", on);
    proc.send(what);
  });
}

/** Runs `count` calls of `f(i)` with at most `limit` at once. */
async function pool(count, limit, f) {
  const out = new Array(count);
  let next = 0;
  const worker = async () => {
    while (next < count) {
      const i = next++;
      out[i] = await f(i);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, worker));
  return out;
}

/** One request, its JSON answer. */
function request(agent, port, method, path, body) {
  return new Promise((resolve, reject) => {
    const headers = { "a2a-version": "1.0", "content-type": "application/json", "content-length": Buffer.byteLength(body) };
    const req = http.request({ agent, host: "127.0.0.1", port, method, path, headers }, (res) => {
      let text = "";
      res.setEncoding("utf8");
      res.on("data", (c) => {
        text += c;
      });
      res.on("end", () =>
        res.statusCode < 300 ? resolve(JSON.parse(text)) : reject(new Error(`${method} ${path}: HTTP ${res.statusCode} ${text}`)),
      );
    });
    req.on("error", reject);
    req.end(body);
  });
}

/**
 * One cycle on a server: the task(s), N streams, K events; memory at three
 * points, arrival times per stream and event, and what every stream got.
 */
async function cycle(server, n, shape, events, gap) {
  const { createParser } = await import("eventsource-parser");
  const agent = new http.Agent({ keepAlive: true, maxSockets: Number.POSITIVE_INFINITY });
  const { members } = server;
  const { port } = members[0];
  const all = (what) => Promise.all(members.map((m) => ask(m.proc, what)));
  // Both instances' memory together.
  const mem = async () => {
    const ms = await all("mem");
    return { heapUsed: ms.reduce((a, m) => a + m.heapUsed, 0), rss: ms.reduce((a, m) => a + m.rss, 0) };
  };
  await all("reset");
  const before = await mem();
  const tasks = shape === "one" ? 1 : n;
  const body = (i) =>
    JSON.stringify({
      message: { messageId: `m${i}`, role: "ROLE_USER", parts: [{ text: "hold" }], contextId: CONTEXT_ID },
      configuration: { returnImmediately: true },
    });
  const ids = await pool(tasks, 64, async (i) => {
    const answer = await request(agent, port, "POST", "/message:send", body(i));
    const id = answer.task?.id;
    if (!id) throw new Error(`${server.name}: SendMessage answered ${JSON.stringify(answer)}`);
    return id;
  });
  const withTasks = await mem();

  // arrivals[e][s]: when stream s got event e (1..K), ns since the cycle's start; 0 for never.
  const start = process.hrtime.bigint();
  const arrivals = Array.from({ length: events + 1 }, () => new Float64Array(n));
  const counts = new Int32Array(events + 1);
  const waiting = new Map();
  const arrived = (e) => {
    counts[e]++;
    if (counts[e] === n) waiting.get(e)?.();
  };
  const allOf = (e) =>
    counts[e] >= n
      ? Promise.resolve(true)
      : new Promise((resolve) => {
          const t = setTimeout(() => resolve(false), WAIT_MS);
          waiting.set(e, () => {
            clearTimeout(t);
            resolve(true);
          });
        });
  let wrong = 0;
  let closed = 0;
  let errors = 0;
  const firstErrors = [];
  const note = (what) => {
    errors++;
    if (firstErrors.length < 3) firstErrors.push(what);
  };
  const subscribe = (s) =>
    new Promise((resolve) => {
      let got = 0;
      let now = 0;
      let done = false;
      const opened = () => {
        if (!done) resolve((done = true));
      };
      const parser = createParser({
        onEvent: (ev) => {
          const e = got++;
          if (e === 0) {
            if (!ev.data.startsWith('{"task":')) wrong++;
            opened();
            return;
          }
          if (e > events) {
            wrong++;
            return;
          }
          const ok = e < events ? ev.data.includes(`"text":"e${e}"`) : ev.data.includes("TASK_STATE_COMPLETED");
          if (!ok) wrong++;
          arrivals[e][s] = now;
          arrived(e);
        },
      });
      const path = `/tasks/${ids[shape === "one" ? 0 : s]}:subscribe`;
      const req = http.request(
        {
          agent,
          host: "127.0.0.1",
          port: members[s % members.length].port,
          method: "GET",
          path,
          headers: { "a2a-version": "1.0", accept: "text/event-stream" },
        },
        (res) => {
          if (res.statusCode !== 200) {
            note(`HTTP ${res.statusCode}`);
            res.resume();
            opened();
            return;
          }
          res.setEncoding("utf8");
          res.on("data", (chunk) => {
            now = Number(process.hrtime.bigint() - start);
            parser.feed(chunk);
          });
          res.on("end", () => {
            closed++;
            opened();
          });
        },
      );
      req.on("error", (err) => {
        note(err.message);
        opened();
      });
      req.end();
    });
  await pool(n, OPENING, subscribe);
  const open = await mem();

  const complete = [];
  for (let e = 1; e <= events; e++) {
    const got = allOf(e);
    for (const m of members) m.proc.send({ step: e });
    complete.push(await got);
    if (gap > 0 && e < events) await new Promise((r) => setTimeout(r, gap));
  }
  // The last event ends every stream: give the ends a moment to arrive.
  for (let i = 0; i < 100 && closed < n; i++) await new Promise((r) => setTimeout(r, 50));
  agent.destroy();
  // Per event: the later instance's last write, both instances' CPU time.
  const writes = await all("writes");
  const written = writes[0].written.map((_, e) => Math.max(...writes.map((w) => w.written[e] ?? 0)));
  const cpus = writes[0].cpus.map((_, e) => writes.reduce((a, w) => a + (w.cpus[e] ?? 0), 0));

  const spreads = [];
  const lags = [];
  let missing = 0;
  for (let e = 1; e <= events; e++) {
    let first = Number.POSITIVE_INFINITY;
    let last = 0;
    for (const t of arrivals[e]) {
      if (t === 0) continue;
      if (t < first) first = t;
      if (t > last) last = t;
    }
    missing += n - counts[e];
    if (counts[e] === 0) continue;
    spreads.push((last - first) / 1e6);
    for (const t of arrivals[e]) if (t !== 0) lags.push((t - first) / 1e6);
  }
  return {
    n,
    before,
    withTasks,
    open,
    spreads,
    lags,
    written,
    cpus,
    missing,
    wrong,
    closed,
    errors,
    firstErrors,
    timedOut: complete.filter((c) => !c).length,
  };
}

/** The p-th percentile (nearest rank). */
function pct(xs, p) {
  if (xs.length === 0) return Number.NaN;
  const s = Float64Array.from(xs).sort();
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)];
}

function report(rows, n, shape, events, frameworks) {
  const kb = (b) => (b / 1024).toFixed(1);
  const title =
    shape === "one" ? `one task, ${n.toLocaleString("en-US")} subscribers` : `${n.toLocaleString("en-US")} tasks, one subscriber each`;
  console.log(`\n== ${title}`);
  const per = (r) => ({
    heap: (r.open.heapUsed - r.withTasks.heapUsed) / n,
    rss: (r.open.rss - r.withTasks.rss) / n,
    taskHeap: (r.open.heapUsed - r.before.heapUsed) / n,
    taskRss: (r.open.rss - r.before.rss) / n,
    p50: pct(r.spreads, 50),
    p99: pct(r.spreads, 99),
    lag99: pct(r.lags, 99),
    w50: pct(r.written, 50),
    w99: pct(r.written, 99),
    c50: pct(r.cpus, 50),
  });
  const head = shape === "many" ? "  task+stream heap / RSS KB" : "";
  console.log(
    `contender     heap/stream KB  RSS/stream KB${head}  fan-out p50 ms  p99 ms  lag p99 ms  written p50 ms  p99 ms  CPU/event ms  every event  closed`,
  );
  const figs = new Map();
  for (const r of rows) {
    const f = per(r);
    figs.set(r.name, f);
    const ok = r.missing === 0 && r.wrong === 0 && r.errors === 0;
    const cells = [
      r.name.padEnd(13),
      kb(f.heap).padStart(14),
      kb(f.rss).padStart(14),
      ...(shape === "many" ? [`${kb(f.taskHeap)} / ${kb(f.taskRss)}`.padStart(27)] : []),
      f.p50.toFixed(1).padStart(15),
      f.p99.toFixed(1).padStart(7),
      f.lag99.toFixed(1).padStart(11),
      f.w50.toFixed(1).padStart(15),
      f.w99.toFixed(1).padStart(7),
      f.c50.toFixed(1).padStart(13),
      (ok ? "yes" : `NO: ${r.missing} missing, ${r.wrong} wrong, ${r.errors} errors`).padStart(12),
      `${r.closed}/${n}`.padStart(7),
    ];
    console.log(cells.join(" "));
    if (r.firstErrors.length > 0) console.log(`  ${r.name}: first errors: ${r.firstErrors.join("; ")}`);
  }
  const x = (a, b) => `${(a / b).toFixed(2)}x`;
  for (const f of frameworks) {
    const o = figs.get(`ours-${f}`);
    const q = figs.get(`sql-${f}`);
    if (!o || !q) continue;
    console.log(
      `sql-${f} (two instances) / ours-${f} (memory, one): heap per stream ${x(q.heap, o.heap)}, fan-out p99 ${x(q.p99, o.p99)} ` +
        `(${q.p99.toFixed(1)} ms), written p99 ${x(q.w99, o.w99)}, CPU per event ${x(q.c50, o.c50)}`,
    );
  }
  const sdk = figs.get("sdk");
  const floor = figs.get("floor");
  for (const f of frameworks) {
    const o = figs.get(`ours-${f}`);
    if (!o || !sdk || !floor) continue;
    const task =
      shape === "many" ? `; task+stream heap ours/SDK ${x(o.taskHeap, sdk.taskHeap)}, ours/floor ${x(o.taskHeap, floor.taskHeap)}` : "";
    console.log(
      `ours-${f}: heap per stream ours/SDK ${x(o.heap, sdk.heap)}, ours/floor ${x(o.heap, floor.heap)} (goal <= 1.5x)` +
        `${task}; fan-out p99 ours/SDK ${x(o.p99, sdk.p99)} (${o.p99.toFixed(1)} ms; goal at 10,000: < 100 ms), ours/floor ${x(o.p99, floor.p99)}; ` +
        `written p99 ours/SDK ${x(o.w99, sdk.w99)}, ours/floor ${x(o.w99, floor.w99)}; CPU per event ours/SDK ${x(o.c50, sdk.c50)}`,
    );
  }
  for (const f of frameworks) {
    const o = figs.get(`ours-${f}`);
    const bare = figs.get(`${f}-floor`);
    if (!o || !bare || !floor) continue;
    console.log(
      `${f}-floor (the bare framework): heap per stream ${f}-floor/floor ${x(bare.heap, floor.heap)} (${kb(bare.heap - floor.heap)} KB the framework's own), ` +
        `ours-${f}/${f}-floor ${x(o.heap, bare.heap)}; CPU per event ${f}-floor/floor ${x(bare.c50, floor.c50)}, ours-${f}/${f}-floor ${x(o.c50, bare.c50)}`,
    );
  }
  console.log(
    `(fan-out: first to last stream per event at the client, over ${events} events; lag: per stream and event, after the first arrival; ` +
      "written: from the server's step message to its last write of the event, over the events; CPU/event: the server process's CPU time from a step message to the next, p50)",
  );
}

// --- the children: one server each ---------------------------------------------

async function child(which) {
  const events = Number(process.env.BENCH_EVENTS);
  // The executors wait at gate e before publishing event e; the parent opens the gates one by one.
  let gates = new Map();
  const gate = (e) => {
    let g = gates.get(e);
    if (!g) {
      let open;
      g = { promise: new Promise((r) => (open = r)), open };
      gates.set(e, g);
    }
    return g;
  };
  let onStep = (e) => gate(e).open();
  // When the server wrote each event's last SSE chunk, after the step message (keep-alive comments, ":", left out).
  let stepAt = 0;
  let lastWrite = 0;
  let written = [];
  // The server's CPU time (user + system) from each step message to the next: its fan-out work, which the
  // machine's load stretches far less than the wall time of "written".
  let stepCpu;
  let cpus = [];
  const timed = (write) =>
    function (chunk, ...rest) {
      if (stepAt !== 0 && chunk != null && chunk.length > 0 && (typeof chunk === "string" ? chunk.charCodeAt(0) : chunk[0]) !== 58) {
        lastWrite = performance.now();
      }
      return write.call(this, chunk, ...rest);
    };
  http.ServerResponse.prototype.write = timed(http.ServerResponse.prototype.write);
  http.ServerResponse.prototype.end = timed(http.ServerResponse.prototype.end);
  const closeStep = () => {
    if (stepAt !== 0) {
      written.push(Math.max(0, lastWrite - stepAt));
      const c = process.cpuUsage(stepCpu);
      cpus.push((c.user + c.system) / 1000);
    }
    stepAt = 0;
  };
  // BENCH_CPU_PROF=dir: a CPU profile of each cycle's events (first step to the end), one file per cycle.
  const profiling = process.env.BENCH_CPU_PROF ? await eventProfiler(process.env.BENCH_CPU_PROF, which) : undefined;
  // BENCH_HEAP_SNAPSHOT=dir: a heap snapshot at each memory reading (before the tasks, with them, with the streams open; per cycle).
  let snapshots = 0;
  process.on("message", async (m) => {
    if (m === "mem") {
      globalThis.gc();
      globalThis.gc();
      const mem = process.memoryUsage();
      if (process.env.BENCH_HEAP_SNAPSHOT) {
        const { writeHeapSnapshot } = await import("node:v8");
        writeHeapSnapshot(`${process.env.BENCH_HEAP_SNAPSHOT}/${which}-${process.pid}-${snapshots++}.heapsnapshot`);
      }
      process.send({ mem });
    } else if (m === "writes") {
      closeStep();
      await profiling?.stop();
      process.send({ writes: { written, cpus } });
      written = [];
      cpus = [];
    } else if (m === "reset") {
      gates = new Map();
      written = [];
      cpus = [];
      process.send({ reset: true });
    } else if (m === "exit") {
      process.exit(0);
    } else if (m?.step !== undefined) {
      closeStep();
      stepAt = performance.now();
      if (m.step === 1) await profiling?.start();
      stepCpu = process.cpuUsage();
      lastWrite = stepAt;
      onStep(m.step);
    }
  });
  const wait = (e) => gate(e).promise;
  const send = (port) => process.send({ port });
  if (which.endsWith("floor")) {
    onStep = await floorServer(which, events, send);
    return;
  }
  if (which === "sdk") return sdkServer(events, wait, send);
  return ourServer(which.slice(which.indexOf("-") + 1), events, wait, send);
}

/** The memory store, or with BENCH_URL the SQL store over a pool of its own as instance BENCH_INSTANCE. */
async function storeOf() {
  if (!process.env.BENCH_URL) {
    const { createMemoryStore } = await import("a2a-http/agent");
    return createMemoryStore({ maxTasks: Number(process.env.BENCH_MAX_TASKS) });
  }
  const { connectPostgres, createSqlStore } = await import("a2a-http/stores");
  const db = await connectPostgres(process.env.BENCH_URL, { max: SQL_POOL });
  return createSqlStore(db, { migrate: true, instance: process.env.BENCH_INSTANCE });
}

/**
 * A CPU profiler (node:inspector) that start() runs until stop(), which
 * writes dir/<which>-<pid>-<n>.cpuprofile: the warm-up cycle's (0) and the
 * measured one's (1), each on its own.
 */
async function eventProfiler(dir, which) {
  const { Session } = await import("node:inspector/promises");
  const { writeFileSync } = await import("node:fs");
  const session = new Session();
  session.connect();
  await session.post("Profiler.enable");
  let on = false;
  let n = 0;
  return {
    async start() {
      await session.post("Profiler.start");
      on = true;
    },
    async stop() {
      if (!on) return;
      on = false;
      const { profile } = await session.post("Profiler.stop");
      writeFileSync(`${dir}/${which}-${process.pid}-${n++}.cpuprofile`, JSON.stringify(profile));
    },
  };
}

/** Ours: the generated agent on the memory or the SQL store, behind the Express or the Hono adapter. */
async function ourServer(framework, events, wait, send) {
  const { create } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  const { createA2AServiceAgent } = await import("../gen/a2a_http_agent.ts");
  const card = create(pb.AgentCardSchema, {
    name: "bench",
    description: "bench",
    version: "1.0.0",
    supportedInterfaces: [{ url: "http://127.0.0.1/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
  });
  const agent = createA2AServiceAgent(
    async (_input, task) => {
      for (let e = 1; e < events; e++) {
        await wait(e);
        await task.artifact({ artifactId: "out", parts: [{ content: { case: "text", value: `e${e}` } }] }, { append: e > 1 });
      }
      await wait(events);
      await task.complete();
    },
    { card, store: await storeOf() },
  );
  if (framework === "express") {
    const { default: express } = await import("express");
    const { a2aServiceExpress } = await import("../gen/a2a_http_express.ts");
    const app = express();
    app.use(a2aServiceExpress(agent));
    const s = app.listen(0, "127.0.0.1", () => send(s.address().port));
  } else {
    const { serve } = await import("@hono/node-server");
    const { a2aServiceHono } = await import("../gen/a2a_http_hono.ts");
    const app = a2aServiceHono(agent);
    serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => send(info.port));
  }
}

/** The SDK's REST server on Express, with the same executor as an SDK AgentExecutor. */
async function sdkServer(events, wait, send) {
  const { TaskState } = await import("@a2a-js/sdk");
  const { AgentEvent, DefaultRequestHandler, InMemoryTaskStore } = await import("@a2a-js/sdk/server");
  const { restHandler, UserBuilder } = await import("@a2a-js/sdk/server/express");
  const { default: express } = await import("express");
  const card = sdkCard("http://127.0.0.1/");
  const now = () => new Date().toISOString();
  const executor = {
    async execute(ctx, bus) {
      // What our engine does for a new task: the Task (SUBMITTED, the message in its history) first.
      bus.publish(
        AgentEvent.task({
          id: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: now(), message: undefined },
          history: [ctx.userMessage],
          artifacts: [],
          metadata: undefined,
        }),
      );
      for (let e = 1; e < events; e++) {
        await wait(e);
        bus.publish(
          AgentEvent.artifactUpdate({
            taskId: ctx.taskId,
            contextId: ctx.contextId,
            artifact: {
              artifactId: "out",
              name: "",
              description: "",
              parts: [{ content: { $case: "text", value: `e${e}` }, metadata: undefined, filename: "", mediaType: "" }],
              metadata: undefined,
              extensions: [],
            },
            append: e > 1,
            lastChunk: false,
            metadata: undefined,
          }),
        );
      }
      await wait(events);
      bus.publish(
        AgentEvent.statusUpdate({
          taskId: ctx.taskId,
          contextId: ctx.contextId,
          status: { state: TaskState.TASK_STATE_COMPLETED, timestamp: now(), message: undefined },
          metadata: undefined,
        }),
      );
      bus.finished();
    },
    cancelTask: async (_taskId, bus) => bus.finished(),
  };
  const app = express();
  app.use(
    restHandler({
      requestHandler: new DefaultRequestHandler(card, new InMemoryTaskStore(), executor),
      userBuilder: UserBuilder.noAuthentication,
    }),
  );
  const s = app.listen(0, "127.0.0.1", () => send(s.address().port));
}

/**
 * The floors' tasks, without any A2A work: a Task per SendMessage kept as its
 * JSON, and per task the subscribers' writers; event e is one SSE string per
 * task, handed to each of its writers (`write(text, last)`). Each floor
 * mounts it on its own host: node:http, Express, or Hono on @hono/node-server.
 */
function floorTasks(events) {
  const tasks = new Map();
  const sse = (json) => `data: ${json}\n\n`;
  return {
    /** A new task from SendMessage's parsed body; the answer's JSON text. */
    create(body) {
      const message = body.message;
      const id = crypto.randomUUID();
      const task = {
        id,
        contextId: message.contextId,
        status: { state: "TASK_STATE_SUBMITTED", timestamp: new Date().toISOString() },
        history: [{ ...message, taskId: id }],
      };
      const json = JSON.stringify({ task });
      tasks.set(id, { task, first: sse(json), subscribers: [] });
      return json;
    },
    /** Task `id`'s first SSE text (the Task), `write` held for its events; undefined for no such task. */
    subscribe(id, write) {
      const t = tasks.get(id);
      if (!t) return undefined;
      t.subscribers.push(write);
      return t.first;
    },
    /** Event e to every subscriber of every task; the last ends the streams. */
    step(e) {
      const last = e === events;
      for (const [id, t] of tasks) {
        const ids = { taskId: id, contextId: t.task.contextId };
        const event = !last
          ? { artifactUpdate: { ...ids, artifact: { artifactId: "out", parts: [{ text: `e${e}` }] }, append: e > 1 } }
          : { statusUpdate: { ...ids, status: { state: "TASK_STATE_COMPLETED", timestamp: new Date().toISOString() } } };
        const text = sse(JSON.stringify(event));
        for (const write of t.subscribers) write(text, last);
        if (last) tasks.delete(id);
      }
    },
  };
}

/**
 * A floor: the floor's tasks behind a bare node:http server ("floor"), a bare
 * Express 5 app ("express-floor") or a bare Hono 4 app on @hono/node-server
 * ("hono-floor"), each with the two routes and nothing else. What a stream
 * costs there beyond the node:http floor is the framework's own per request.
 * Answers the step handler.
 */
async function floorServer(which, events, send) {
  const floor = floorTasks(events);
  // node:http and Express: the held ServerResponse, written directly.
  const holdNode = (res, id) => {
    const first = floor.subscribe(id, (text, last) => (last ? res.end(text) : res.write(text)));
    if (first === undefined) {
      res.writeHead(404).end();
      return;
    }
    res.writeHead(200, SSE_HEADERS);
    res.write(first);
  };
  const readBody = (req, then) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => then(JSON.parse(Buffer.concat(chunks).toString())));
  };
  const answerNode = (req, res) =>
    readBody(req, (body) => {
      const json = floor.create(body);
      res.writeHead(200, { "content-type": "application/json" });
      res.end(json);
    });
  if (which === "floor") {
    const server = http.createServer((req, res) => {
      if (req.method === "POST" && req.url === "/message:send") return answerNode(req, res);
      const m = req.method === "GET" ? SUBSCRIBE_PATH.exec(req.url) : null;
      if (m) return holdNode(res, m[1]);
      res.writeHead(404).end();
    });
    server.listen(0, "127.0.0.1", () => send(server.address().port));
  } else if (which === "express-floor") {
    const { default: express } = await import("express");
    const app = express();
    app.post(/^\/message:send$/, answerNode);
    app.get(SUBSCRIBE_PATH, (req, res) => holdNode(res, req.params[0]));
    const s = app.listen(0, "127.0.0.1", () => send(s.address().port));
  } else {
    // Hono: a Response whose body is a ReadableStream, each event enqueued as bytes (as @hono/node-server
    // writes them); the least a Hono route does to hold a stream open.
    const { Hono } = await import("hono");
    const { serve } = await import("@hono/node-server");
    const encoder = new TextEncoder();
    // An event's text is encoded once for all its streams (the host never detaches what it writes).
    let lastText;
    let lastBytes;
    const bytesOf = (text) => (text === lastText ? lastBytes : ((lastText = text), (lastBytes = encoder.encode(text))));
    const app = new Hono();
    // One route for all, as the generated Hono adapter mounts ours.
    app.all("*", async (c) => {
      if (c.req.method === "POST" && c.req.path === "/message:send") {
        return c.body(floor.create(await c.req.json()), 200, { "content-type": "application/json" });
      }
      const m = c.req.method === "GET" ? SUBSCRIBE_PATH.exec(c.req.path) : null;
      if (!m) return c.notFound();
      let controller;
      const body = new ReadableStream({
        start: (ctl) => {
          controller = ctl;
        },
      });
      const first = floor.subscribe(m[1], (text, last) => {
        controller.enqueue(bytesOf(text));
        if (last) controller.close();
      });
      if (first === undefined) return c.notFound();
      controller.enqueue(encoder.encode(first));
      return c.body(body, 200, SSE_HEADERS);
    });
    serve({ fetch: app.fetch, port: 0, hostname: "127.0.0.1" }, (info) => send(info.port));
  }
  return (e) => floor.step(e);
}
