// router.match on a2a.proto's route table (with the tenant twins), against
// find-my-way (Fastify's router) on the same routes and requests in the same
// run. find-my-way has no HttpRule semantics (verbs, `**`, %2F rules), so it is
// a reference for what a tuned trie costs, not an equivalent. Target: at most
// 300 ns per match.
//
//   npm run build && node bench/router.mjs [rounds] [--each]
//
// --each adds the time of each request alone (the same requests, one at a
// time), to see where the time goes.
import { createRequire } from "node:module";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(fileURLToPath(import.meta.url), "..", "..");
const { createRouter } = await import(join(root, "packages", "runtime", "dist", "router.js"));
const FindMyWay = createRequire(import.meta.url)("find-my-way");
const args = process.argv.slice(2);
const each = args.includes("--each");
const rounds = Number(args.find((a) => a !== "--each") ?? 15);

const a2a = [
  ["POST", "/message:send"],
  ["POST", "/message:stream"],
  ["GET", "/tasks/{id=*}"],
  ["GET", "/tasks"],
  ["POST", "/tasks/{id=*}:cancel"],
  ["GET", "/tasks/{id=*}:subscribe"],
  ["POST", "/tasks/{task_id=*}/pushNotificationConfigs"],
  ["GET", "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}"],
  ["GET", "/tasks/{task_id=*}/pushNotificationConfigs"],
  ["GET", "/extendedAgentCard"],
  ["DELETE", "/tasks/{task_id=*}/pushNotificationConfigs/{id=*}"],
];
const bindings = [];
for (const [method, template] of a2a) bindings.push({ method, template }, { method, template: "/{tenant}" + template });

const requests = [
  ["GET", "/tasks/9d2c8a2e-4f1b-4c56-9a3e-2b7f0c1d5e6f"],
  ["POST", "/message:send"],
  ["POST", "/message:stream"],
  ["GET", "/acme/tasks/task-42"],
  ["GET", "/tasks"],
  ["POST", "/tasks/task-42:cancel"],
  ["GET", "/tasks/task-42:subscribe"],
  ["GET", "/tasks/task-42/pushNotificationConfigs/cfg-1"],
  ["DELETE", "/acme/tasks/task-42/pushNotificationConfigs/cfg-1"],
  ["GET", "/extendedAgentCard"],
  ["GET", "/tasks/a%20b"],
  ["PUT", "/tasks/task-42"], // 405
  ["GET", "/nothing/here/at/all/x"], // 404
];

// The same routes in find-my-way's syntax (`::` is a literal colon).
const fmw = FindMyWay({ ignoreTrailingSlash: true });
const toFmw = (t) => t.replace(/\{(\w+)(=\*)?\}/g, ":$1").replace(/:(send|stream|cancel|subscribe)$/, "::$1");
// It refuses a verb after a parameter beside the same parameter without one
// (`/tasks/:id` and `/tasks/:id::cancel`); those routes are left out of it.
let skipped = 0;
bindings.forEach((b, i) => {
  try {
    fmw.on(b.method, toFmw(b.template), () => i);
  } catch {
    skipped++;
  }
});

const router = createRouter(bindings);
let sink = 0;
const ours = () => {
  for (const [m, p] of requests) if (router.match(m, p) !== undefined) sink++;
};
const theirs = () => {
  for (const [m, p] of requests) if (fmw.find(m, p) !== null) sink++;
};
const time = (pass) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < 2000; i++) pass();
  return Number(process.hrtime.bigint() - t) / (2000 * requests.length);
};
for (let i = 0; i < 3; i++) time(ours), time(theirs);
const a = [],
  b = [];
for (let r = 0; r < rounds; r++) {
  if (r % 2) a.push(time(ours)), b.push(time(theirs));
  else b.push(time(theirs)), a.push(time(ours));
}
const median = (xs) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)];
if (sink === 0) throw new Error("nothing matched");
const [o, f] = [median(a), median(b)];
console.log(
  `router.match on a2a.proto (${bindings.length} bindings, ${requests.length} requests), median of ${rounds} rounds; find-my-way without ${skipped} routes it refuses`,
);
console.log(
  `  ours ${o.toFixed(0)} ns/match, find-my-way ${f.toFixed(0)} ns/match, ratio ${(o / f).toFixed(2)}x; target <= 300 ns: ${o <= 300 ? "ok" : "OVER"}`,
);

if (each) {
  // One request at a time, both routers in turn, median of the rounds. A loop
  // over one request is kinder to both than the mix above (branches and
  // caches see one path), so these add up to less than the figures above.
  const one = (match, m, p) => {
    const t = process.hrtime.bigint();
    for (let i = 0; i < 5000; i++) if (match(m, p) !== undefined) sink++;
    return Number(process.hrtime.bigint() - t) / 5000;
  };
  const ourMatch = (m, p) => router.match(m, p);
  const theirFind = (m, p) => (fmw.find(m, p) === null ? undefined : true);
  console.log("  per request, ns (ours, find-my-way):");
  for (const [m, p] of requests) {
    const x = [],
      y = [];
    for (let r = 0; r < rounds; r++) x.push(one(ourMatch, m, p)), y.push(one(theirFind, m, p));
    console.log(`  ${median(x).toFixed(0).padStart(5)} ${median(y).toFixed(0).padStart(5)}  ${m} ${p}`);
  }
}
