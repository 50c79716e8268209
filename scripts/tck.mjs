#!/usr/bin/env node
// Runs the A2A conformance suites against the example server on each
// framework: the A2A v1.0 TCK (a2a-tck, ../shared/tck/run.sh) and the A2A v0.3
// TCK (a2a-tck 0.3.x, ../shared/tck-v03/run.sh). One agent per framework for
// the transports, which both suites test in turn, then a second agent with the
// restricted card (streaming, push and extended card off, a required
// extension) for the v1.0 capability-gated tests (../shared/tck/README.md,
// "Capabilities and the second card").
//
//   node scripts/tck.mjs [--protocol 1.0,0.3] [--framework express,fastify,hono]
//                        [--transport http_json,jsonrpc,grpc,restricted]
//                        [--agent conformance] [--restricted-agent conformance-restricted]
//                        [--out tck-out] [--verbose]
//
// Each agent is `tsx example/server.ts --agent NAME --framework F --port P
// --grpc-port G --host 127.0.0.1` on two free ports; its output goes to
// OUT/F/agent.log (agent-restricted.log). The v1.0 run.sh writes its reports
// to OUT/F/<transport> (OUT/F/restricted). The v0.3 suite runs once per v0.3
// transport: jsonrpc and rest always (an agent that serves v0.3 must offer
// both; run.sh exits 2 when the card lists no such interface, or no v0.3
// interface at all), grpc when the card lists a GRPC interface; its reports go
// to OUT/F/v03-<transport>. The runs are sequential: the TCK is
// timing-sensitive. Exit status: 0 when every run passed but for the known
// failures (v1.0: ../shared/tck/KNOWN.md + test/e2e/tck/KNOWN-TCK-BUGS.md;
// v0.3: ../shared/tck-v03/KNOWN.md + test/e2e/tck/KNOWN-TCK-V03-BUGS.md),
// 2 when a run broke (run.sh exited 2, or an agent did not start), else 1.
import { spawn } from "node:child_process";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, writeFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const runSh = path.resolve(root, "../shared/tck/run.sh");
const runShV03 = path.resolve(root, "../shared/tck-v03/run.sh");
const tsx = path.join(root, "node_modules/.bin/tsx");
const host = "127.0.0.1";
const cardPath = "/.well-known/agent-card.json";
const frameworks = ["express", "fastify", "hono"];
const transports = ["http_json", "jsonrpc", "grpc", "restricted"];
const protocols = ["1.0", "0.3"];
// The v0.3 transport that each --transport name stands for (restricted has none).
const v03Of = { http_json: "rest", jsonrpc: "jsonrpc", grpc: "grpc" };
// The gated tests of the restricted card; every other SendMessage fails against it.
const restrictedFilter = "not_supported or unsupported_operation or required_extension";

const usage = `usage: node scripts/tck.mjs [options]   (npm run tck -- [options])

Runs the A2A v1.0 TCK (../shared/tck/run.sh) and the A2A v0.3 TCK
(../shared/tck-v03/run.sh) against example/server.ts on each framework.

  --protocol P          1.0, 0.3; comma-separated or repeated (default: both):
                        which suites run
  --framework F         express, fastify, hono; comma-separated or repeated (default: all)
  --transport T         http_json, jsonrpc, grpc, restricted; comma-separated or
                        repeated (default: all). "restricted" is the run of the
                        capability-gated tests (--transport all, -k "${restrictedFilter}")
                        against the second agent (v1.0 only). For v0.3, http_json
                        stands for its rest transport; v0.3 runs jsonrpc and rest
                        always, grpc only when the agent's card lists it
  --agent NAME          passed to the server as --agent (default conformance;
                        '' passes no --agent)
  --restricted-agent NAME
                        the second agent's --agent (default conformance-restricted;
                        '' passes no --agent)
  --out DIR             reports and agent logs (default tck-out, under the repo root)
  --verbose             show run.sh's whole output, not only its last line and FAIL lines`;

function fail(message) {
  console.error(`tck: ${message}`);
  process.exit(2);
}

let opts;
try {
  ({ values: opts } = parseArgs({
    options: {
      protocol: { type: "string", multiple: true },
      framework: { type: "string", multiple: true },
      transport: { type: "string", multiple: true },
      agent: { type: "string", default: "conformance" },
      "restricted-agent": { type: "string", default: "conformance-restricted" },
      out: { type: "string", default: "tck-out" },
      verbose: { type: "boolean", default: false },
      help: { type: "boolean", short: "h", default: false },
    },
  }));
} catch (e) {
  fail(`${e.message}\n${usage}`);
}
if (opts.help) {
  console.log(usage);
  process.exit(0);
}
const pick = (given, all, flag) => {
  if (!given) return all;
  const names = given
    .flatMap((v) => v.split(","))
    .map((v) => v.trim())
    .filter(Boolean);
  for (const n of names) if (!all.includes(n)) fail(`unknown ${flag} "${n}"; choose from ${all.join(", ")}`);
  return all.filter((n) => names.includes(n)); // the usual order, once each
};
const pickedProtocols = pick(opts.protocol, protocols, "--protocol");
const pickedFrameworks = pick(opts.framework, frameworks, "--framework");
const pickedTransports = pick(opts.transport, transports, "--transport");
const outDir = path.resolve(root, opts.out);
const v10 = pickedProtocols.includes("1.0");
const v03 = pickedProtocols.includes("0.3");
// v1.0 run.sh's known failures: what A2A v1.0.1 changed (../shared), then the TCK
// tests whose own expectation contradicts the spec (test/e2e/tck/KNOWN-TCK-BUGS.md).
const knownFile = path.join(outDir, "known.md");
// v0.3 run.sh's: the TCK's own bugs found so far (../shared/tck-v03/KNOWN.md),
// then those found here (test/e2e/tck/KNOWN-TCK-V03-BUGS.md).
const knownFileV03 = path.join(outDir, "known-v03.md");

if (v10 && !existsSync(runSh)) {
  fail(`no TCK at ${runSh}: it is expected in ../shared/tck beside the repository (${root}); see its README.md`);
}
if (v03 && !existsSync(runShV03)) {
  fail(`no v0.3 TCK at ${runShV03}: it is expected in ../shared/tck-v03 beside the repository (${root}); see its README.md`);
}
if (!existsSync(tsx)) fail(`no ${tsx}: run npm ci first`);
mkdirSync(outDir, { recursive: true });
const writeKnown = (file, parts) => writeFileSync(file, parts.map((f) => readFileSync(f, "utf8")).join("\n"));
const shared = (f) => path.resolve(root, "../shared", f);
const ours = (f) => path.join(root, "test/e2e/tck", f);
if (v10) writeKnown(knownFile, [shared("tck/KNOWN.md"), ours("KNOWN-TCK-BUGS.md")]);
if (v03) writeKnown(knownFileV03, [shared("tck-v03/KNOWN.md"), ours("KNOWN-TCK-V03-BUGS.md")]);

// --- processes this script started, stopped on every way out ---------------
const children = new Set();
/** Spawns in its own process group, so that Ctrl-C reaches this script, which then stops it in order. */
function start(cmd, args, stdio) {
  const child = spawn(cmd, args, { cwd: root, stdio, detached: true });
  const exited = new Promise((ok) => {
    child.once("exit", (code, signal) => ok({ code, signal }));
    child.once("error", (e) => ok({ code: null, signal: null, error: e })); // did not start
  });
  const proc = { child, exited };
  children.add(proc);
  void exited.then(() => children.delete(proc));
  return proc;
}
/** SIGTERM to the pid; after 5 s, SIGKILL to its process group (tsx runs node under it). */
async function stop(proc) {
  const { child, exited } = proc;
  if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return;
  try {
    process.kill(child.pid, "SIGTERM");
  } catch {
    return;
  }
  const timer = new Promise((ok) => setTimeout(ok, 5000, "timeout"));
  if ((await Promise.race([exited, timer])) === "timeout") {
    try {
      process.kill(-child.pid, "SIGKILL");
    } catch {}
    await exited;
  }
}
let interrupted = false;
for (const sig of ["SIGINT", "SIGTERM", "SIGHUP"]) {
  process.on(sig, () => {
    if (interrupted) return;
    interrupted = true;
    console.error(`\ntck: ${sig}: stopping the TCK and the agent`);
    void Promise.all([...children].map(stop)).then(() => process.exit(130));
  });
}
// Last resort (an exception): nothing this script started outlives it.
process.on("exit", () => {
  for (const { child } of children) {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGKILL");
    } catch {}
  }
});

/** Two distinct free ports on 127.0.0.1 (held together while picking, so they differ). */
async function freePorts(n) {
  const servers = [];
  try {
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      await new Promise((ok, no) => s.once("error", no).listen(0, host, () => ok()));
    }
    return servers.map((s) => s.address().port);
  } finally {
    await Promise.all(servers.map((s) => new Promise((ok) => s.close(() => ok()))));
  }
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));
const tail = (file, n) => {
  try {
    return readFileSync(file, "utf8").trimEnd().split("\n").slice(-n).join("\n");
  } catch {
    return "";
  }
};

/** Starts the example server with its card answering, or throws; retries when a port was taken meanwhile. */
async function startAgent(framework, agent, logFile) {
  for (let attempt = 1; ; attempt++) {
    const [port, grpcPort] = await freePorts(2);
    const args = ["example/server.ts", ...(agent ? ["--agent", agent] : [])];
    args.push("--framework", framework, "--port", String(port), "--grpc-port", String(grpcPort), "--host", host);
    const fd = openSync(logFile, "w");
    const proc = start(tsx, args, ["ignore", fd, fd]);
    closeSync(fd);
    const url = `http://${host}:${port}`;
    let exit;
    void proc.exited.then((e) => (exit = e));
    const deadline = Date.now() + 60_000; // tsx compiles on the first start
    while (!exit && !interrupted && Date.now() < deadline) {
      try {
        const res = await fetch(url + cardPath, { signal: AbortSignal.timeout(2000) });
        const body = await res.text();
        if (res.ok) return { proc, url, port, grpcPort, args, card: parseJson(body) };
      } catch {}
      await sleep(200);
    }
    await stop(proc);
    if (interrupted) throw new Error("interrupted");
    const log = tail(logFile, 15);
    if (exit && /EADDRINUSE/.test(log) && attempt < 3) continue;
    throw new Error(
      `${exit ? `the agent exited (${exit.signal ?? `status ${exit.code}`})` : "no agent card within 60 s"}: ` +
        `tsx ${args.join(" ")}\n${log.replace(/^/gm, "    ")}`,
    );
  }
}

const parseJson = (text) => {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
};

/**
 * The v0.3 transports an agent card lists, read as ../shared/tck-v03/run.sh
 * reads them: `url` with `preferredTransport` (JSONRPC when absent), and
 * `additionalInterfaces`. Empty for a v1.0-only card.
 */
function v03Listed(card) {
  const names = { JSONRPC: "jsonrpc", GRPC: "grpc", "HTTP+JSON": "rest", REST: "rest", HTTP: "rest" };
  const listed = new Set();
  if (typeof card?.url === "string") {
    const t = names[String(card.preferredTransport ?? "JSONRPC").toUpperCase()];
    if (t) listed.add(t);
  }
  for (const i of Array.isArray(card?.additionalInterfaces) ? card.additionalInterfaces : []) {
    const t = names[String(i?.transport ?? "").toUpperCase()];
    if (t && typeof i.url === "string") listed.add(t);
  }
  return listed;
}

/**
 * One run.sh (v1.0's, or v0.3's with `v03`); its output goes to the console
 * with --verbose. Both print a last line "tck[-v03] <transport>: P passed,
 * F failed (K known), S skipped".
 */
async function runTck(url, transport, dir, extra, v03 = false) {
  mkdirSync(dir, { recursive: true });
  const known = v03 ? knownFileV03 : knownFile;
  const args = ["--url", url, "--transport", transport, "--out", dir, "--known", known, ...(extra.length ? ["--", ...extra] : [])];
  const started = Date.now();
  const proc = start(v03 ? runShV03 : runSh, args, ["ignore", "pipe", "pipe"]);
  let output = "";
  for (const stream of [proc.child.stdout, proc.child.stderr]) {
    stream.setEncoding("utf8");
    stream.on("data", (s) => {
      output += s;
      if (opts.verbose) process.stdout.write(s);
    });
  }
  const { code, signal } = await proc.exited;
  const seconds = (Date.now() - started) / 1000;
  const lines = output.trimEnd().split("\n");
  const summary = [...lines].reverse().find((l) => l.startsWith(v03 ? "tck-v03 " : "tck ")) ?? "";
  const counts = summary.match(/: (\d+) passed, (\d+) failed \((\d+) known\), (\d+) skipped/);
  return {
    status: code ?? 2,
    signal,
    seconds,
    summary,
    counts: counts && { passed: +counts[1], failed: +counts[2], known: +counts[3], skipped: +counts[4] },
    fails: lines.filter((l) => /^\s+FAIL /.test(l)),
    lines,
  };
}

function report(framework, name, r) {
  const head = `${framework} ${name}: ${r.summary || "(no summary)"}  [exit ${r.status}, ${r.seconds.toFixed(1)} s]`;
  console.log(head);
  if (opts.verbose) return;
  if (r.status === 1) for (const l of r.fails) console.log(`  ${l.trim()}`);
  if (r.status !== 0 && r.status !== 1) {
    // run.sh broke: its own messages say why.
    const why = r.lines.filter((l) => l.startsWith("run.sh:") || !r.summary).slice(-10);
    for (const l of why) console.log(`  ${l}`);
  }
}

// --- the runs ---------------------------------------------------------------
// v1.0: the picked transports; v0.3: those they stand for, of which grpc runs
// only when the card lists it (jsonrpc and rest run whatever the card says, so
// that a card without them is a broken run, not a silent skip).
const normal = v10 ? pickedTransports.filter((t) => t !== "restricted") : [];
const v03Wanted = v03 ? ["jsonrpc", "rest", "grpc"].filter((t) => pickedTransports.some((p) => v03Of[p] === t)) : [];
const restricted = v10 && pickedTransports.includes("restricted");
if (!normal.length && !v03Wanted.length && !restricted) {
  fail(`nothing to run: --protocol ${pickedProtocols.join(",")} with --transport ${pickedTransports.join(",")}`);
}
const results = []; // { framework, run, status, seconds, counts }
const t0 = Date.now();
for (const framework of pickedFrameworks) {
  const dir = path.join(outDir, framework);
  mkdirSync(dir, { recursive: true });
  const plan = [];
  if (normal.length || v03Wanted.length) {
    plan.push({ agent: opts.agent, log: "agent.log", runs: normal.map((t) => ({ name: t, transport: t, extra: [] })), v03: v03Wanted });
  }
  if (restricted) {
    plan.push({
      agent: opts["restricted-agent"],
      log: "agent-restricted.log",
      runs: [{ name: "restricted", transport: "all", extra: ["-k", restrictedFilter] }],
      v03: [],
    });
  }
  for (const step of plan) {
    if (interrupted) break;
    let agent;
    try {
      agent = await startAgent(framework, step.agent, path.join(dir, step.log));
      console.log(`${framework}: agent${step.agent ? ` ${step.agent}` : ""} on ${agent.url} (gRPC ${host}:${agent.grpcPort})`);
      if (step.v03.length) {
        const listed = v03Listed(agent.card);
        const names = step.v03.filter((t) => t !== "grpc" || listed.has("grpc"));
        console.log(
          `${framework}: v0.3 interfaces in the card: ${listed.size ? [...listed].join(", ") : "none"}; v0.3 runs: ${names.join(", ") || "none"}`,
        );
        step.runs.push(...names.map((t) => ({ name: `v03-${t}`, transport: t, extra: [], v03: true })));
      }
      for (const run of step.runs) {
        if (interrupted) break;
        const r = await runTck(agent.url, run.transport, path.join(dir, run.name), run.extra, run.v03);
        if (interrupted) break;
        report(framework, run.name, r);
        results.push({ framework, run: run.name, ...r });
      }
    } catch (e) {
      if (interrupted) break;
      console.log(`${framework}: the agent${step.agent ? ` ${step.agent}` : ""} did not start: ${e.message}`);
      // Without a card, the v0.3 runs that must happen (jsonrpc, rest) count as broken.
      const runs = [...step.runs.filter((r) => !r.v03), ...step.v03.filter((t) => t !== "grpc").map((t) => ({ name: `v03-${t}` }))];
      for (const run of runs) results.push({ framework, run: run.name, status: 2, seconds: 0, summary: "agent did not start" });
    } finally {
      if (agent) await stop(agent.proc);
    }
  }
}
if (interrupted) await new Promise(() => {}); // the signal handler exits

// --- the table ------------------------------------------------------------
const rows = [["framework", "run", "passed", "failed", "known", "skipped", "exit", "seconds"]];
for (const r of results) {
  const c = r.counts;
  rows.push([r.framework, r.run, c?.passed ?? "-", c?.failed ?? "-", c?.known ?? "-", c?.skipped ?? "-", r.status, r.seconds.toFixed(1)]);
}
const widths = rows[0].map((_, i) => Math.max(...rows.map((row) => String(row[i]).length)));
console.log("");
for (const [i, row] of rows.entries()) {
  console.log(
    row
      .map((v, j) => (j < 2 ? String(v).padEnd(widths[j]) : String(v).padStart(widths[j])))
      .join("  ")
      .trimEnd(),
  );
  if (i === 0) console.log(widths.map((w) => "-".repeat(w)).join("  "));
}
const broken = results.filter((r) => r.status !== 0 && r.status !== 1).length;
const failing = results.filter((r) => r.status === 1).length;
console.log(
  `\ntck: ${results.length} runs in ${((Date.now() - t0) / 1000).toFixed(0)} s: ${results.length - broken - failing} clean, ` +
    `${failing} with failures outside KNOWN.md, ${broken} broken; reports in ${outDir.startsWith(root + path.sep) ? path.relative(root, outDir) : outDir}/`,
);
process.exit(broken ? 2 : failing ? 1 : 0);
