// The engine's stores against @a2a-js/sdk 1.3.0's DatabaseTaskStore (Kysely +
// pg), all in one run on one PostgreSQL server; then the latency of an event
// from one agent instance's executor to a subscriber on another instance.
//
//   npm run generate && node bench/store.mjs [--quick] [seconds-per-run] [rounds]
//   DATABASE_URL=postgres://… node bench/store.mjs   (that server; else a throwaway
//     cluster of scripts/pg-cluster.sh, started here and stopped at the end)
//   node bench/store.mjs --only=lifecycle|latency
//   node bench/store.mjs --only=lifecycle --stores=postgres,sdk --in-flight-only   (a quicker look at the goal's pair)
//   BENCH_WRITE_STATEMENTS=n node bench/store.mjs   (createSqlStore's writeStatements for the postgres contender)
//   BENCH_VERBOSE=1 node bench/store.mjs   (also each run's figures, and at the end how each
//     table was read and written: scans, HOT updates, autovacuums)
//
// 1. Tasks per second for one task's life as the engine stores it: create
//    (the Task, SUBMITTED, with the user's message; its first event), then
//    commit(key, task, version, updatedAt, event) four times with a status
//    update each (WORKING three times, then COMPLETED, each with an agent
//    message that joins the history). Flat out with 16 tasks in flight, and
//    one at a time (sequential: the latency of a whole life). Contenders, each
//    in a child process of its own:
//    - memory: the engine's default store (createMemoryStore);
//    - pglite: our SQL store on PGlite, in a fresh temporary data directory;
//    - postgres: our SQL store (createSqlStore over connectPostgres, a pg Pool
//      of 10) on the server;
//    - sdk: DatabaseTaskStore over Kysely's PostgresDialect (a pg Pool of 10)
//      on the same server, in a database of its own, its table made by the
//      SDK's own `a2a-db upgrade`. The same life as the SDK stores it: save()
//      of the whole task, five times, its status and history growing;
//    - sdk+load: the same, as the SDK's DefaultRequestHandler drives its store
//      (ResultManager: every event is load() then save() of the merged task).
//    `sdk` is the baseline of the goal (ours/SDK >= 1.5x on PostgreSQL); the
//    SDK writes no event log, no outbox and no NOTIFY, which ours must. After
//    one checked life each (read back: COMPLETED, 5 messages) and a 2 s
//    warm-up, both databases are ANALYZEd; then the contenders take turns
//    round by round, in alternating order, and each figure is the median of
//    the rounds. Beside tasks/s: CPU per task of the contender's process, of
//    its database's PostgreSQL connections and of the whole server (from
//    /proc, when the server runs on this machine and says where its data
//    directory is), and the statements (and transactions) one life sends.
// 2. The latency of an event from instance A's executor to a subscriber on
//    instance B: two agents (createA2AServiceAgent) in two processes, each
//    on createSqlStore over its own pool on the same database, instances "a"
//    and "b". A starts tasks (SendMessage, returnImmediately); B and A both
//    subscribe (SubscribeToTask on their own handlers); then each task's
//    executor on A publishes WORKING updates at a steady pace and completes.
//    The executor stamps each status message with the time just before it
//    publishes; the subscriber reads the stamp when the event reaches it.
//    The baseline of the same run: the subscriber on A itself (no database
//    between them beyond A's own commit). Every stream is checked to get
//    every event once and in order. Goal: p99 on B under 50 ms on loopback.
import { fork, spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, readdirSync, rmSync } from "node:fs";
import { availableParallelism, cpus as cpuList, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { databaseUrl, startServer } from "./pg-server.mjs";

const ROOT = join(fileURLToPath(import.meta.url), "..", "..");
const CONCURRENCY = 16;
const POOL = 10;
/** Status updates after the Task: WORKING this many times, then COMPLETED. */
const UPDATES = 3;
const GOAL_SDK = 1.5;
const GOAL_P99_MS = 50;
const OWNER = "bench";
const DATABASES = { ours: "a2a_bench_ours", sdk: "a2a_bench_sdk", scale: "a2a_bench_scale" };
/** The children load the runtime's TypeScript sources, so that the engine and the SQL store share one module graph. */
const CHILD_ARGV = ["--conditions=a2a-http-source", "--import", "tsx"];

if (process.env.BENCH_CHILD) {
  await child(process.env.BENCH_CHILD);
} else {
  await main();
}

// --- the parent ---------------------------------------------------------------

async function main() {
  const args = process.argv.slice(2);
  const quick = args.includes("--quick");
  const only = args.find((a) => a.startsWith("--only="))?.slice(7);
  const storeNames = args
    .find((a) => a.startsWith("--stores="))
    ?.slice(9)
    .split(",");
  const inFlightOnly = args.includes("--in-flight-only");
  const nums = args.filter((a) => !a.startsWith("--")).map(Number);
  const seconds = nums[0] ?? (quick ? 1 : 3);
  const rounds = nums[1] ?? (quick ? 1 : 5);

  const server = await startServer();
  const pgMod = await import("pg");
  const pg = pgMod.default ?? pgMod;
  let failed = false;
  const children = [];
  try {
    const admin = new pg.Client({ connectionString: server.url });
    await admin.connect();
    const dbCpu = await serverCpuReader(admin);
    for (const name of Object.values(DATABASES)) {
      await admin.query(`DROP DATABASE IF EXISTS ${name}`);
      await admin.query(`CREATE DATABASE ${name}`);
    }
    const urlOf = (db) => databaseUrl(server.url, db);
    // The SDK's table, made by the SDK's own migration tool.
    const mig = spawnSync(join(ROOT, "node_modules", ".bin", "a2a-db"), ["upgrade", "--url", urlOf(DATABASES.sdk), "--store", "tasks"], {
      encoding: "utf8",
    });
    if (mig.status !== 0) throw new Error(`a2a-db upgrade failed: ${mig.stderr || mig.stdout}`);
    const version = (await admin.query("SHOW server_version")).rows[0].server_version;
    const fsync = (await admin.query("SHOW fsync")).rows[0].fsync;
    const sc = (await admin.query("SHOW synchronous_commit")).rows[0].synchronous_commit;
    console.log(
      `node ${process.version}; ${cpuList()[0]?.model.trim() ?? "?"} × ${availableParallelism()}; PostgreSQL ${version} on ${new URL(server.url).host} ` +
        `(${server.own ? "a throwaway cluster of scripts/pg-cluster.sh" : "$DATABASE_URL"}; fsync=${fsync}, synchronous_commit=${sc}); ` +
        `load average ${loadavg()[0].toFixed(1)}`,
    );

    if (only !== "latency") {
      const lifecycle = await lifecycleBench({ seconds, rounds, quick, urlOf, dbCpu, children, storeNames, inFlightOnly });
      if (!lifecycle) failed = true;
    }
    if (only !== "lifecycle") {
      const ok = await latencyBench({ quick, url: urlOf(DATABASES.scale), children });
      if (!ok) failed = true;
    }
    // Other work on the machine moves every figure here (a shared machine's cores are the scarce thing).
    console.log(`\nload average at the end ${loadavg()[0].toFixed(1)} (1 min) on ${availableParallelism()} CPUs`);
    if (process.env.BENCH_VERBOSE) await tableStats(pg, urlOf);
    for (const name of Object.values(DATABASES)) await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
    await admin.end();
  } catch (e) {
    failed = true;
    console.error(e);
  } finally {
    for (const c of children) if (c.exitCode === null) c.kill();
    server.stop();
  }
  if (failed) process.exitCode = 1;
}

/** ANALYZE of one database. */
async function analyze(url) {
  const pgMod = await import("pg");
  const c = new (pgMod.default ?? pgMod).Client({ connectionString: url });
  await c.connect();
  await c.query("ANALYZE");
  await c.end();
}

/** How each table of the bench's databases was read and written (BENCH_VERBOSE=1). */
async function tableStats(pg, urlOf) {
  for (const name of Object.values(DATABASES)) {
    const c = new pg.Client({ connectionString: urlOf(name) });
    await c.connect();
    const r = await c.query(
      `SELECT relname, seq_scan, seq_tup_read, idx_scan, n_tup_ins, n_tup_upd, n_tup_hot_upd, n_live_tup, n_dead_tup, autovacuum_count, autoanalyze_count
       FROM pg_stat_user_tables ORDER BY relname`,
    );
    for (const row of r.rows) process.stderr.write(`  ${name}.${Object.values(row).join(" ")}\n`);
    await c.end();
  }
}

/**
 * The database server's CPU time (µs), when it runs on this machine (found
 * through `SHOW data_directory` and its postmaster.pid; undefined otherwise):
 * `snapshot(db)` takes the whole server's (the postmaster, what it reaped and
 * its live children: autovacuum, WAL writer...) and that of each client
 * backend of database `db`; `since(before)` gives both as used since.
 */
async function serverCpuReader(admin) {
  let pid;
  try {
    const dir = (await admin.query("SHOW data_directory")).rows[0].data_directory;
    pid = Number(readFileSync(join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
    readFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  const tick = 1e6 / Number(spawnSync("getconf", ["CLK_TCK"], { encoding: "utf8" }).stdout.trim() || 100);
  const fields = (p) => {
    const s = readFileSync(`/proc/${p}/stat`, "utf8");
    return s.slice(s.lastIndexOf(")") + 2).split(" ");
  };
  // utime, stime, cutime, cstime: fields 14-17 of /proc/PID/stat (index 0 here is field 3).
  const own = (f) => Number(f[11]) + Number(f[12]);
  const whole = () => {
    const f = fields(pid);
    let ticks = own(f) + Number(f[13]) + Number(f[14]);
    for (const d of readdirSync("/proc")) {
      if (!/^\d+$/.test(d) || Number(d) === pid) continue;
      try {
        const c = fields(d);
        if (Number(c[1]) === pid) ticks += own(c);
      } catch {
        // Gone meanwhile.
      }
    }
    return ticks;
  };
  const backends = async (db) => {
    const r = await admin.query(`SELECT pid FROM pg_stat_activity WHERE datname = $1 AND backend_type = 'client backend'`, [db]);
    const m = new Map();
    for (const { pid: p } of r.rows) {
      try {
        m.set(p, own(fields(p)));
      } catch {
        // Gone meanwhile.
      }
    }
    return m;
  };
  return {
    async snapshot(db) {
      return { db, whole: whole(), backends: await backends(db) };
    },
    async since(before) {
      const now = await backends(before.db);
      let ticks = 0;
      // A connection opened during the run counts from 0; one closed during it is lost (a pool keeps them while busy).
      for (const [p, t] of now) ticks += t - (before.backends.get(p) ?? 0);
      return { backends: ticks * tick, whole: (whole() - before.whole) * tick };
    },
  };
}

/** A child process of this file; `ask` sends a request and waits for its answer. */
function spawnChild(name, env, children) {
  const proc = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, ...env, BENCH_CHILD: name },
    execArgv: CHILD_ARGV,
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  children.push(proc);
  let n = 0;
  const waiting = new Map();
  let failure;
  proc.on("message", (m) => {
    const w = waiting.get(m.id);
    if (!w) return;
    waiting.delete(m.id);
    if (m.error) w.reject(new Error(`${name}: ${m.error}`));
    else w.resolve(m.value);
  });
  proc.on("exit", (code) => {
    failure = new Error(`${name} exited (${code})`);
    for (const w of waiting.values()) w.reject(failure);
    waiting.clear();
  });
  return {
    name,
    proc,
    ask(what, arg) {
      if (failure) return Promise.reject(failure);
      const id = ++n;
      return new Promise((resolve, reject) => {
        waiting.set(id, { resolve, reject });
        proc.send({ id, what, arg });
      });
    },
    async stop() {
      if (proc.exitCode !== null) return;
      const exited = new Promise((r) => proc.once("exit", r));
      proc.send({ what: "exit" });
      const t = setTimeout(() => proc.kill(), 10_000);
      await exited;
      clearTimeout(t);
    },
  };
}

function median(xs) {
  return [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
}

// --- 1. the lifecycle ------------------------------------------------------------

async function lifecycleBench({ seconds, rounds, quick, urlOf, dbCpu, children, storeNames, inFlightOnly }) {
  const stores = [
    { name: "memory", child: "memory", mode: "ours" },
    { name: "pglite", child: "pglite", mode: "ours" },
    { name: "postgres", child: "postgres", mode: "ours" },
    { name: "sdk", child: "sdk", mode: "save" },
    { name: "sdk+load", child: "sdk", mode: "load+save" },
  ].filter((s) => !storeNames || storeNames.includes(s.name));
  const procs = new Map();
  for (const s of stores) {
    if (procs.has(s.child)) continue;
    const url = s.child === "sdk" ? urlOf(DATABASES.sdk) : urlOf(DATABASES.ours);
    const c = spawnChild(s.child, { BENCH_URL: url }, children);
    procs.set(s.child, c);
  }
  // Opening (PGlite makes a fresh data directory), then one checked life each.
  await Promise.all([...procs.values()].map((c) => c.ask("open")));
  const checks = new Map();
  for (const s of stores) checks.set(s.name, await procs.get(s.child).ask("check", s.mode));
  for (const [name, c] of checks) {
    if (c.state !== "COMPLETED" || c.history !== UPDATES + 2) {
      throw new Error(`${name}: the stored task reads back ${c.state} with ${c.history} messages, not COMPLETED with ${UPDATES + 2}`);
    }
  }
  // Warm-up, unmeasured: JIT, pools filled, statements prepared, tables past their first autovacuum.
  for (const s of stores) await procs.get(s.child).ask("run", { mode: s.mode, concurrency: CONCURRENCY, seconds: quick ? 0.3 : 2 });
  // Both databases' statistics made now, so that neither store runs on a fresh table's plans
  // (before its first ANALYZE the planner may look an id up by a wrong index: the SDK's load did).
  for (const name of [DATABASES.ours, DATABASES.sdk]) await analyze(urlOf(name));
  const cases = [
    { label: `${CONCURRENCY} in flight`, concurrency: CONCURRENCY },
    { label: "sequential", concurrency: 1 },
  ].slice(0, inFlightOnly ? 1 : 2);
  const got = new Map(stores.map((s) => [s.name, cases.map(() => [])]));
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 === 0 ? stores : [...stores].reverse();
    for (const [ci, c] of cases.entries()) {
      for (const s of order) {
        const onServer = s.child === "postgres" || s.child === "sdk";
        const before = onServer ? await dbCpu?.snapshot(s.child === "sdk" ? DATABASES.sdk : DATABASES.ours) : undefined;
        const r = await procs.get(s.child).ask("run", { mode: s.mode, concurrency: c.concurrency, seconds });
        const used = before && (await dbCpu.since(before));
        const x = {
          rate: (r.tasks * 1000) / r.ms,
          cpu: r.cpuUs / r.tasks,
          db: used && used.backends / r.tasks,
          dbAll: used && used.whole / r.tasks,
        };
        got.get(s.name)[ci].push(x);
        if (process.env.BENCH_VERBOSE) {
          const f = (v) => (v === undefined ? "n/a" : Math.round(v));
          process.stderr.write(
            `  ${c.label} ${s.name}: ${f(x.rate)} tasks/s; CPU µs per task: client ${f(x.cpu)}, its backends ${f(x.db)}, the whole server ${f(x.dbAll)}\n`,
          );
        }
      }
    }
    if (!quick) process.stderr.write(`lifecycle: round ${round + 1}/${rounds} done\n`);
  }
  for (const c of procs.values()) await c.stop();

  const fig = (name, ci, k) => median(got.get(name)[ci].map((x) => x[k]));
  const ratio = (a, b, ci) => {
    const per = got.get(a)[ci].map((x, i) => x.rate / got.get(b)[ci][i].rate);
    return { mid: fig(a, ci, "rate") / fig(b, ci, "rate"), lo: Math.min(...per), hi: Math.max(...per) };
  };
  const num = (x, w = 9) => (x === undefined ? "n/a" : Math.round(x).toLocaleString("en-US")).padStart(w);
  const xr = (r) => `${r.mid.toFixed(2)}x (${r.lo.toFixed(2)}-${r.hi.toFixed(2)})`;
  console.log(
    `\n1. one task's life (create + ${UPDATES} WORKING + COMPLETED), tasks/s; median of ${rounds} alternating ${seconds} s runs` +
      `; pools of ${POOL} connections`,
  );
  console.log(`${"".padEnd(10)} ${"tasks/s".padStart(14)} ${"".padStart(14)}   CPU µs per task at ${CONCURRENCY} in flight`);
  console.log(
    `${"store".padEnd(10)} ${cases.map((c) => c.label.padStart(14)).join(" ")}   ${"client".padStart(7)} ${"backends".padStart(9)} ${"server".padStart(7)}   statements/task`,
  );
  for (const s of stores) {
    const c = checks.get(s.name);
    const srv = s.child === "postgres" || s.child === "sdk";
    const stmts = c.statements === undefined ? "-" : `${c.statements}${c.transactions ? ` (${c.transactions} transactions)` : ""}`;
    console.log(
      `${s.name.padEnd(10)} ${cases.map((_, ci) => num(fig(s.name, ci, "rate"), 14)).join(" ")}   ` +
        `${num(fig(s.name, 0, "cpu"), 7)} ${srv ? num(fig(s.name, 0, "db"), 9) : "-".padStart(9)} ${srv ? num(fig(s.name, 0, "dbAll"), 7) : "-".padStart(7)}   ${stmts}`,
    );
  }
  console.log(
    `(client: the contender's process; backends: the PostgreSQL connections of its database; server: all of PostgreSQL meanwhile, ` +
      `autovacuum and WAL writer included; n/a where the server is not on this machine)`,
  );
  const verdicts = [];
  for (const [ci, c] of cases.entries()) {
    const pairs = [
      ["postgres", "sdk"],
      ["postgres", "sdk+load"],
      ["pglite", "sdk"],
      ["memory", "postgres"],
    ].filter(([x, y]) => got.has(x) && got.has(y));
    if (pairs.length) console.log(`${c.label}: ${pairs.map(([x, y]) => `${x}/${y} ${xr(ratio(x, y, ci))}`).join(", ")}`);
    if (ci === 0 && got.has("postgres") && got.has("sdk")) {
      const r = ratio("postgres", "sdk", ci);
      verdicts.push(
        `postgres/sdk at ${CONCURRENCY} in flight ${r.mid.toFixed(2)}x (goal >= ${GOAL_SDK}x: ${r.mid >= GOAL_SDK ? "met" : "NOT met"})`,
      );
    }
  }
  for (const v of verdicts) console.log(v);
  return true;
}

// --- 2. cross-instance latency ------------------------------------------------

async function latencyBench({ quick, url, children }) {
  const loads = quick
    ? [{ tasks: 4, events: 20, gapMs: 5 }]
    : [
        { tasks: 1, events: 200, gapMs: 10 },
        { tasks: 16, events: 100, gapMs: 10 },
      ];
  const a = spawnChild("instance-a", { BENCH_URL: url }, children);
  const b = spawnChild("instance-b", { BENCH_URL: url }, children);
  console.log(`\n2. an event from instance A's executor to a subscriber on instance B (two processes, one database, a pg Pool each)`);
  try {
    await Promise.all([a.ask("open"), b.ask("open")]);
  } catch (e) {
    console.log(`NOT MEASURED: the two instances could not start: ${e.message}`);
    await Promise.all([a.stop(), b.stop()]);
    return false;
  }
  let ok = true;
  console.log(`load                                   subscriber   events     p50 ms   p99 ms   max ms`);
  for (const load of loads) {
    try {
      const ids = await a.ask("start", load);
      // Both subscribe before anything is published; each stream's first event is the Task.
      await Promise.all([a.ask("subscribe", { ids, events: load.events }), b.ask("subscribe", { ids, events: load.events })]);
      const [, onA, onB] = await Promise.all([a.ask("go"), a.ask("collect"), b.ask("collect")]);
      const title = `${load.tasks} task${load.tasks > 1 ? "s" : ""} × ${load.events} events, one per ${load.gapMs} ms`;
      for (const [who, r] of [
        ["on A (local)", onA],
        ["on B", onB],
      ]) {
        const xs = Float64Array.from(r.latencies).sort();
        const q = (p) => xs[Math.min(xs.length - 1, Math.floor(p * xs.length))];
        console.log(
          `${title.padEnd(38)} ${who.padEnd(12)} ${String(xs.length).padStart(6)} ${q(0.5).toFixed(2).padStart(10)} ${q(0.99).toFixed(2).padStart(8)} ${xs[xs.length - 1].toFixed(2).padStart(8)}`,
        );
        if (r.problems.length) {
          ok = false;
          console.log(
            `  ${who}: ${r.problems.slice(0, 5).join("; ")}${r.problems.length > 5 ? ` (and ${r.problems.length - 5} more)` : ""}`,
          );
        }
        if (who === "on B") {
          const p99 = q(0.99);
          console.log(
            `  p99 on B ${p99.toFixed(2)} ms (goal < ${GOAL_P99_MS} ms: ${p99 < GOAL_P99_MS ? "met" : "NOT met"}); B/A at p50 ${(q(0.5) / median([...onA.latencies])).toFixed(2)}x`,
          );
        }
      }
    } catch (e) {
      ok = false;
      console.log(`NOT MEASURED (${load.tasks} tasks): cross-instance delivery did not work here: ${e.message}`);
      break;
    }
  }
  await Promise.all([a.stop(), b.stop()]);
  return ok;
}

// --- the children -----------------------------------------------------------------

async function child(which) {
  let impl;
  // The parent is gone (it crashed or was killed): nothing more to do.
  process.once("disconnect", () => process.exit(0));
  process.on("message", async (m) => {
    if (m.what === "exit") {
      await impl?.close?.().catch(() => {});
      process.exit(0);
    }
    try {
      if (m.what === "open") impl = which.startsWith("instance-") ? await openInstance(which) : await openStore(which);
      const value = m.what === "open" ? true : await impl[m.what](m.arg);
      process.send({ id: m.id, value });
    } catch (e) {
      process.send({ id: m.id, error: e?.stack ?? String(e) });
    }
  });
}

/** Builds the life of one task, the same for every store: the messages and the times. */
function lifeScript() {
  const id = crypto.randomUUID();
  const contextId = crypto.randomUUID();
  const steps = [];
  for (let i = 1; i <= UPDATES + 1; i++)
    steps.push({ final: i === UPDATES + 1, text: i === UPDATES + 1 ? "done" : `step ${i} of ${UPDATES}` });
  return { id, contextId, text: "hello, store", steps };
}

/** One store in a child: `check` (one life, read back), `run` (flat out for a while). */
async function openStore(which) {
  const url = process.env.BENCH_URL;
  const counts = { statements: 0, transactions: 0 };
  let life;
  let readBack;
  let close;
  if (which === "sdk") {
    ({ life, readBack, close } = await sdkStore(url, counts));
  } else {
    ({ life, readBack, close } = await ourStore(which, url, counts));
  }
  return {
    async check(mode) {
      counts.statements = 0;
      counts.transactions = 0;
      const id = await life(mode);
      const statements = counts.statements;
      const transactions = counts.transactions;
      const back = await readBack(id);
      return { ...back, statements: which === "memory" ? undefined : statements, transactions };
    },
    async run({ mode, concurrency, seconds }) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      const deadline = t0 + seconds * 1000;
      let tasks = 0;
      const worker = async () => {
        while (performance.now() < deadline) {
          await life(mode);
          tasks++;
        }
      };
      await Promise.all(Array.from({ length: concurrency }, worker));
      const ms = performance.now() - t0;
      const cpu = process.cpuUsage(cpu0);
      return { tasks, ms, cpuUs: cpu.user + cpu.system };
    },
    close,
  };
}

/** Our stores, driven as the engine drives them. */
async function ourStore(which, url, counts) {
  const { create } = await import("@bufbuild/protobuf");
  const { timestampFromMs } = await import("@bufbuild/protobuf/wkt");
  const pb = await import("../gen/a2a_pb.ts");
  const { connectPostgres, openPglite, createSqlStore, createMemoryStore } = await import("a2a-http/stores");
  let store;
  let dir;
  if (which === "memory") {
    store = createMemoryStore();
  } else {
    let db;
    if (which === "pglite") {
      dir = mkdtempSync(join(tmpdir(), "store-bench-pglite-"));
      db = await openPglite(dir);
    } else {
      db = await connectPostgres(url, { max: POOL });
    }
    const writeStatements = process.env.BENCH_WRITE_STATEMENTS ? Number(process.env.BENCH_WRITE_STATEMENTS) : undefined;
    store = await createSqlStore(counting(db, counts), { migrate: true, instance: `bench-${which}`, writeStatements });
  }
  store.bind?.({ task: pb.TaskSchema, event: pb.StreamResponseSchema, pushConfig: pb.TaskPushNotificationConfigSchema });
  const keyOf = (id) => ({ tenant: "", owner: OWNER, id });
  const life = async () => {
    const s = lifeScript();
    const key = keyOf(s.id);
    let at = Date.now();
    const user = create(pb.MessageSchema, {
      messageId: crypto.randomUUID(),
      contextId: s.contextId,
      taskId: s.id,
      role: pb.Role.USER,
      parts: [{ content: { case: "text", value: s.text } }],
    });
    let task = create(pb.TaskSchema, {
      id: s.id,
      contextId: s.contextId,
      status: { state: pb.TaskState.SUBMITTED, timestamp: timestampFromMs(at) },
      history: [user],
    });
    await store.tasks.create(key, task, at, create(pb.StreamResponseSchema, { payload: { case: "task", value: task } }));
    let version = 1;
    for (const step of s.steps) {
      at = Date.now();
      const message = create(pb.MessageSchema, {
        messageId: crypto.randomUUID(),
        contextId: s.contextId,
        taskId: s.id,
        role: pb.Role.AGENT,
        parts: [{ content: { case: "text", value: step.text } }],
      });
      const status = create(pb.TaskStatusSchema, {
        state: step.final ? pb.TaskState.COMPLETED : pb.TaskState.WORKING,
        message,
        timestamp: timestampFromMs(at),
      });
      // As the engine's statusChange: a copy of the task with the new status, the message joining the history.
      task = { ...task, status, history: [...task.history, message] };
      const event = create(pb.StreamResponseSchema, {
        payload: { case: "statusUpdate", value: { taskId: s.id, contextId: s.contextId, status } },
      });
      await store.tasks.commit(key, task, version, at, event);
      version++;
    }
    return s.id;
  };
  const readBack = async (id) => {
    const got = await store.tasks.get(keyOf(id));
    return { state: pb.TaskState[got?.task.status?.state ?? 0], history: got?.task.history.length ?? 0 };
  };
  return {
    life,
    readBack,
    close: async () => {
      await store.close?.();
      if (dir) rmSync(dir, { recursive: true, force: true });
    },
  };
}

/** The SQL client, counting the statements and transactions sent through it. */
function counting(db, counts) {
  const tx = (t) => ({
    query: (text, params) => (counts.statements++, t.query(text, params)),
    exec: (text) => (counts.statements++, t.exec(text)),
  });
  return {
    kind: db.kind,
    ...tx(db),
    transaction: (fn) => {
      counts.transactions++;
      return db.transaction((t) => fn(tx(t)));
    },
    listen: (...a) => db.listen(...a),
    close: () => db.close(),
  };
}

/** @a2a-js/sdk's DatabaseTaskStore on Kysely + pg, driven as the SDK's request handler drives it. */
async function sdkStore(url, counts) {
  const { TaskState, Role } = await import("@a2a-js/sdk");
  const { ServerCallContext } = await import("@a2a-js/sdk/server");
  const { DatabaseTaskStore } = await import("@a2a-js/sdk/server/database");
  const { Kysely, PostgresDialect } = await import("kysely");
  const pgMod = await import("pg");
  const pg = pgMod.default ?? pgMod;
  const pool = new pg.Pool({ connectionString: url, max: POOL });
  const db = new Kysely({
    dialect: new PostgresDialect({ pool }),
    log: (e) => {
      if (e.level === "query") counts.statements++;
    },
  });
  const store = new DatabaseTaskStore(db);
  const context = new ServerCallContext({ user: { isAuthenticated: true, userName: OWNER }, tenant: "" });
  const text = (value) => ({ content: { $case: "text", value }, metadata: undefined, filename: "", mediaType: "" });
  const message = (s, role, value) => ({
    messageId: crypto.randomUUID(),
    contextId: s.contextId,
    taskId: s.id,
    role,
    parts: [text(value)],
    metadata: undefined,
    extensions: [],
    referenceTaskIds: [],
  });
  const life = async (mode) => {
    const s = lifeScript();
    const load = mode === "load+save";
    // The Task event: the ResultManager looks for a stored one first.
    if (load) await store.load(s.id, context);
    let task = {
      id: s.id,
      contextId: s.contextId,
      status: { state: TaskState.TASK_STATE_SUBMITTED, timestamp: new Date().toISOString(), message: undefined },
      history: [message(s, Role.ROLE_USER, s.text)],
      artifacts: [],
      metadata: undefined,
    };
    await store.save(task, context);
    for (const step of s.steps) {
      const m = message(s, Role.ROLE_AGENT, step.text);
      const status = {
        state: step.final ? TaskState.TASK_STATE_COMPLETED : TaskState.TASK_STATE_WORKING,
        timestamp: new Date().toISOString(),
        message: m,
      };
      if (load) {
        // ResultManager.applyStatusUpdate: the stored task, its status replaced, the message appended.
        task = await store.load(s.id, context);
        task.status = status;
        task.history = [...task.history, m];
      } else {
        task = { ...task, status, history: [...task.history, m] };
      }
      await store.save(task, context);
    }
    return s.id;
  };
  const readBack = async (id) => {
    const got = await store.load(id, context);
    const name = Object.entries(TaskState).find(([, v]) => v === got?.status?.state)?.[0] ?? "?";
    return { state: name.replace(/^TASK_STATE_/, ""), history: got?.history.length ?? 0 };
  };
  return { life, readBack, close: () => db.destroy() };
}

/** One agent instance on the shared store: A runs the executors, both subscribe. */
async function openInstance(which) {
  const { create } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  const { createA2AServiceAgent } = await import("../gen/a2a_http_agent.ts");
  const { connectPostgres, createSqlStore } = await import("a2a-http/stores");
  const db = await connectPostgres(process.env.BENCH_URL, { max: POOL });
  const store = await createSqlStore(db, { migrate: true, instance: which === "instance-a" ? "a" : "b" });
  const now = () => performance.timeOrigin + performance.now();
  const card = create(pb.AgentCardSchema, {
    name: "bench",
    description: "bench",
    version: "1.0.0",
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
  });
  /** Executors wait here until the subscribers are in place. */
  let go;
  let released = new Promise((r) => (go = r));
  let load;
  const errors = [];
  const handlers = createA2AServiceAgent(
    async (_input, task) => {
      await released;
      for (let i = 1; i <= load.events; i++) {
        await task.working(`${i} ${now()}`);
        await new Promise((r) => setTimeout(r, load.gapMs));
      }
      await task.status(pb.TaskState.COMPLETED, `${load.events + 1} ${now()}`);
    },
    { card, store, onError: (e) => errors.push(e) },
  );
  const ctxFor = (rpc, signal) => ({ rpc, tenant: "", headers: new Headers(), responseHeaders: new Headers(), signal, extensions: [] });
  let streams = [];
  return {
    async start(l) {
      load = l;
      released = new Promise((r) => (go = r));
      const ids = [];
      for (let i = 0; i < l.tasks; i++) {
        const req = create(pb.SendMessageRequestSchema, {
          message: { messageId: crypto.randomUUID(), role: pb.Role.USER, parts: [{ content: { case: "text", value: "go" } }] },
          configuration: { returnImmediately: true },
        });
        const r = await handlers.sendMessage(req, ctxFor("sendMessage", new AbortController().signal));
        if (r.payload.case !== "task") throw new Error(`SendMessage answered ${r.payload.case}, not a task`);
        ids.push(r.payload.value.id);
      }
      return ids;
    },
    async subscribe({ ids, events }) {
      streams = [];
      for (const id of ids) {
        const it = handlers
          .subscribeToTask(create(pb.SubscribeToTaskRequestSchema, { id }), ctxFor("subscribeToTask", new AbortController().signal))
          [Symbol.asyncIterator]();
        const first = await it.next();
        if (first.done || first.value.payload.case !== "task") throw new Error(`SubscribeToTask ${id}: the first event is not the Task`);
        streams.push({ id, it, events });
      }
      return true;
    },
    async go() {
      go();
      return true;
    },
    async collect() {
      const latencies = [];
      const problems = [];
      const timeout = 60_000;
      await Promise.all(
        streams.map(async ({ id, it, events }) => {
          let want = 1;
          const deadline = now() + timeout;
          for (;;) {
            const r = await Promise.race([
              it.next(),
              new Promise((res) => setTimeout(() => res("timeout"), Math.max(0, deadline - now()))),
            ]);
            if (r === "timeout") {
              problems.push(`task ${id}: stuck after event ${want - 1} of ${events + 1}`);
              await it.return?.();
              return;
            }
            if (r.done) break;
            const t = now();
            const e = r.value.payload;
            if (e.case !== "statusUpdate") {
              problems.push(`task ${id}: a ${e.case} event`);
              continue;
            }
            const textPart = e.value.status?.message?.parts[0]?.content;
            const [n, stamp] = String(textPart?.value ?? "")
              .split(" ")
              .map(Number);
            if (n !== want) problems.push(`task ${id}: event ${n} where ${want} was due`);
            want = n + 1;
            latencies.push(t - stamp);
          }
          if (want !== events + 2) problems.push(`task ${id}: the stream ended after event ${want - 1} of ${events + 1}`);
        }),
      );
      if (errors.length) problems.push(`the engine reported: ${errors.map((e) => e?.message ?? String(e)).join("; ")}`);
      errors.length = 0;
      return { latencies, problems };
    },
    close: () => handlers.close(),
  };
}
