/**
 * Issue 39's fault table, measured: two example agents (example/server.ts,
 * each its own process, Express, HTTP+JSON) on one throwaway PostgreSQL
 * cluster (test/pg-cluster.ts), faulted as an operator would: stopped and
 * started in place (`pg_ctl stop -m fast`), down for longer than a lease,
 * down while tasks end, run with max_connections 12, frozen (SIGSTOP of its
 * processes, SIGCONT in a finally), and down when an agent starts. Prints
 * one markdown row per fault (docs/reliability.md's "Database faults").
 *
 *   node --conditions=a2a-http-source --import tsx scripts/db-faults.ts [--quick]
 *
 * --quick: outages of 3 s and no wait of a whole lease (the lease rows
 * then say so). Takes about 3 minutes without it (the agents' lease is the
 * default 30 s). Needs PostgreSQL's binaries (Debian's layout).
 */
import { type ChildProcess, spawn } from "node:child_process";
import { join } from "node:path";
import { startCluster, type PgCluster } from "../test/pg-cluster.js";

const root = join(import.meta.dirname, "..");
const quick = process.argv.includes("--quick");
const LEASE_MS = 30_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const headers = { "content-type": "application/json", "a2a-version": "1.0" };

interface Agent {
  readonly child: ChildProcess;
  readonly url: string;
  output(): string;
}

/** example/server.ts on `store`, once it printed its URL; or its exit (code, ms, output) when it does not start. */
function startAgent(store: string, migrate: boolean): Promise<Agent> {
  const args = [
    "--conditions=a2a-http-source",
    "--import",
    "tsx",
    join(root, "example/server.ts"),
    "--store",
    store,
    "--port",
    "0",
    "--grpc-port=-1",
  ];
  if (migrate) args.push("--migrate");
  const child = spawn(process.execPath, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const read = (d: Buffer) => {
      out += d.toString();
      const url = /HTTP\+JSON on (http:\/\/[^\s,]+)/.exec(out)?.[1];
      if (url) resolve({ child, url: url.replace(/\/$/, ""), output: () => out });
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code) => reject(Object.assign(new Error(out), { code })));
  });
}

async function stopAgent(a: Agent): Promise<void> {
  if (a.child.exitCode !== null) return;
  const gone = new Promise((ok) => a.child.once("exit", ok));
  a.child.kill("SIGTERM");
  await gone;
}

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: {
    id?: string;
    status?: { state?: string };
    artifacts?: unknown[];
    task?: { id: string; status?: { state?: string } };
    error?: { message?: string };
  };
  readonly retryAfter: string | null;
}

async function call(url: string, init?: RequestInit): Promise<Answer> {
  const started = Date.now();
  try {
    const res = await fetch(url, { ...init, headers, signal: AbortSignal.timeout(90_000) });
    const body = (await res.json().catch(() => ({}))) as Answer["body"];
    return { status: res.status, ms: Date.now() - started, body, retryAfter: res.headers.get("retry-after") };
  } catch (e) {
    return { status: 0, ms: Date.now() - started, body: { error: { message: String(e) } }, retryAfter: null };
  }
}

let seq = 0;
const send = (a: Agent, text: string, returnImmediately: boolean) =>
  call(`${a.url}/message:send`, {
    method: "POST",
    body: JSON.stringify({
      message: { messageId: `m-${++seq}`, role: "ROLE_USER", parts: [{ text }] },
      configuration: { returnImmediately },
    }),
  });
const getTask = (a: Agent, id: string) => call(`${a.url}/tasks/${encodeURIComponent(id)}`);
const stateOf = (x: Answer) => (x.body.task ?? x.body).status?.state?.replace("TASK_STATE_", "") ?? `HTTP ${x.status}`;
const idOf = (x: Answer) => (x.body.task ?? x.body).id ?? "";

/** Polls GetTask on `a` until every task is in `state` (or `ms` passed): how long it took, and the states seen last. */
async function until(a: Agent, ids: string[], ok: (state: string) => boolean, ms: number): Promise<{ ms: number; states: string[] }> {
  const started = Date.now();
  let states: string[] = [];
  while (Date.now() - started < ms) {
    // A few at a time, as a client would: 50 reads at once are a load of their own on 12 connections.
    states = [];
    for (let i = 0; i < ids.length; i += 5)
      states.push(...(await Promise.all(ids.slice(i, i + 5).map(async (id) => stateOf(await getTask(a, id))))));
    if (states.every(ok)) break;
    await sleep(100);
  }
  return { ms: Date.now() - started, states };
}

const tally = (xs: string[]) =>
  Object.entries(xs.reduce<Record<string, number>>((m, x) => ((m[x] = (m[x] ?? 0) + 1), m), {}))
    .map(([k, n]) => `${n} ${k}`)
    .join(", ");
const s = (ms: number) => `${(ms / 1000).toFixed(1)} s`;

/** Two agents on `cluster`, given to `fn`, stopped after. */
async function withAgents<R>(cluster: PgCluster, fn: (a: Agent, b: Agent) => Promise<R>): Promise<R> {
  const a = await startAgent(cluster.url, true);
  const b = await startAgent(cluster.url, false);
  try {
    return await fn(a, b);
  } finally {
    await Promise.all([stopAgent(a), stopAgent(b)]);
  }
}

async function stopStart(cluster: PgCluster): Promise<string> {
  const outage = quick ? 3_000 : 5_000;
  return withAgents(cluster, async (a, b) => {
    const ids = await Promise.all(Array.from({ length: 10 }, async () => idOf(await send(a, "/work 4", true))));
    await sleep(500);
    cluster.stop();
    await sleep(500);
    const during = await getTask(b, ids[0]!);
    await sleep(outage - 500);
    cluster.start();
    const back = Date.now();
    let first = await getTask(b, ids[0]!);
    while (first.status !== 200) first = await getTask(b, ids[0]!);
    const recovery = Date.now() - back;
    const end = await until(b, ids, (x) => x === "COMPLETED", 30_000);
    const artifacts = (await Promise.all(ids.map(async (id) => (await getTask(b, id)).body.artifacts?.length ?? 0))).reduce(
      (x, y) => x + y,
      0,
    );
    return `| stopped and started in place, ${s(outage)} down while 10 tasks run | GetTask during: ${during.status} in ${during.ms} ms, Retry-After ${during.retryAfter}; first 200 ${recovery} ms after the start; tasks: ${tally(end.states)} (${artifacts} artifacts); agents up |`;
  });
}

async function longOutage(cluster: PgCluster): Promise<string> {
  const outage = quick ? 3_000 : LEASE_MS + 5_000;
  return withAgents(cluster, async (a, b) => {
    const waiting = await Promise.all(Array.from({ length: 4 }, async () => idOf(await send(a, "/wait", true))));
    await sleep(500);
    const logged = a.output().length + b.output().length;
    cluster.stop();
    await sleep(outage);
    cluster.start();
    const perMinute = ((a.output().length + b.output().length - logged) / 2 / (outage / 60_000) / 1024).toFixed(1);
    // Every sweep has its chance: a whole lease connected, and a sweep's interval more.
    const watch = quick ? 3_000 : LEASE_MS + 15_000;
    const seen = await until(b, waiting, (x) => x !== "WORKING", watch);
    return `| down ${s(outage)} (lease ${s(LEASE_MS)}) with 4 \`/wait\` tasks live on A | ${tally(seen.states)} ${s(watch)} after the restart${quick ? " (--quick: not a whole lease)" : ""}; logs while down: ${perMinute} KB per agent per minute |`;
  });
}

async function endsDuringOutage(cluster: PgCluster): Promise<string> {
  const outage = quick ? 3_000 : 10_000;
  return withAgents(cluster, async (a, b) => {
    const ids = await Promise.all(Array.from({ length: 4 }, async () => idOf(await send(a, "/work 2", true))));
    const blocking = send(a, "/work 2", false);
    await sleep(300);
    cluster.stop();
    await sleep(outage);
    cluster.start();
    const back = Date.now();
    const end = await until(b, ids, (x) => x === "COMPLETED", 60_000);
    const answer = await blocking;
    return `| 4 tasks end during a ${s(outage)} outage; a blocking send made before it | ${tally(end.states)} ${s(end.ms)} after the restart (${Date.now() - back} ms incl. the last reads); the blocking send answered ${answer.status} ${stateOf(answer)} after ${s(answer.ms)} |`;
  });
}

async function lowConnections(): Promise<string> {
  const cluster = startCluster("max_connections=12");
  try {
    return await withAgents(cluster, async (a, b) => {
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) => send(i % 2 ? b : a, i % 4 < 2 ? "echo" : "/work 1", i % 4 === 1)),
      );
      const ok = answers.filter((x) => x.status === 200);
      const failed = answers.filter((x) => x.status !== 200);
      const named = failed.filter((x) => /task [0-9a-f-]{36}/.test(x.body.error?.message ?? ""));
      const ids = ok.map(idOf).filter(Boolean);
      const end = await until(a, ids, (x) => x === "COMPLETED", 30_000);
      const refused = cluster.log().match(/too many clients already/g)?.length ?? 0;
      return `| max_connections 12, 50 concurrent sends on 2 agents (3 in 4 blocking) | ${refused} connections refused by the server; answers: ${tally(answers.map((x) => String(x.status)))} (${named.length} of the errors name a task); ${tally(end.states)} |`;
    });
  } finally {
    cluster.remove();
  }
}

async function frozen(cluster: PgCluster): Promise<string> {
  const freeze = quick ? 3_000 : 10_000;
  return withAgents(cluster, async (a, b) => {
    const ids = await Promise.all(Array.from({ length: 4 }, async () => idOf(await send(a, "/work 2", true))));
    await sleep(300);
    let read: Answer;
    let made: Answer;
    let thawed = 0;
    cluster.freeze();
    try {
      [read, made] = await Promise.all([getTask(b, ids[0]!), send(b, "/message hi", true)]);
      await sleep(Math.max(0, freeze - Math.max(read.ms, made.ms)));
    } finally {
      cluster.thaw();
      thawed = Date.now();
    }
    const end = await until(b, ids, (x) => x === "COMPLETED", 30_000);
    return `| frozen ${s(freeze)} (SIGSTOP of every process) | GetTask ${read.status} in ${s(read.ms)}, a send ${made.status} in ${s(made.ms)} (the bounds: statementTimeoutMs 5 s + 1 s, poolTimeoutMs 5 s); after the thaw: ${tally(end.states)} in ${s(Date.now() - thawed)} |`;
  });
}

async function downAtStart(cluster: PgCluster): Promise<string> {
  cluster.stop();
  const started = Date.now();
  try {
    const a = await startAgent(cluster.url, false);
    await stopAgent(a);
    return "| database down when the agent starts | started anyway |";
  } catch (e) {
    const line = (e as Error).message.trim().split("\n").filter(Boolean);
    return `| database down when the agent starts | exit ${(e as { code?: number }).code} in ${s(Date.now() - started)}, ${line.length} line(s): \`${line.at(-1)?.slice(0, 120)}\` |`;
  } finally {
    cluster.start();
  }
}

const cluster = startCluster();
const rows: string[] = [];
const begun = Date.now();
try {
  for (const scenario of [stopStart, longOutage, endsDuringOutage, frozen, downAtStart]) {
    rows.push(await scenario(cluster));
    console.error(rows.at(-1));
  }
  rows.push(await lowConnections());
  console.error(rows.at(-1));
} finally {
  cluster.remove();
}
console.log(["| fault | measured |", "|---|---|", ...rows].join("\n"));
console.log(`\nNode ${process.version}, ${new Date().toISOString().slice(0, 10)}, ${s(Date.now() - begun)}${quick ? ", --quick" : ""}.`);
