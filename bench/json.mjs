// The generated JSON codecs (gen/a2a_http_json.ts) against protobuf-es's
// reflective toJson/fromJson on the same messages, in the same run, with
// JSON.stringify of the same JSON as a reference for what writing text costs.
//
//   npm run generate && node bench/json.mjs [rounds]
//
// Each figure is the median of its rounds (300,000 calls each after a
// warm-up); the kinds alternate round by round so that drift in the machine's
// load hits them alike.
import { register } from "tsx/esm/api";
import { TASK_JSON } from "./task.mjs";

register(); // loads the generated .ts files; the runtime comes from dist/
const { fromJson, toJson } = await import("@bufbuild/protobuf");
const pb = await import("../gen/a2a_pb.ts");
const codecs = await import("../gen/a2a_http_json.ts");

const rounds = Number(process.argv[2] ?? 5);
const CALLS = 300_000;

const SEND_JSON = {
  message: {
    messageId: "m1",
    role: "ROLE_USER",
    parts: [{ text: "hello world" }, { data: { city: "Lyon", days: [1, 2] } }],
    contextId: "ctx-1",
  },
};
const LENIENT = { ignoreUnknownFields: true };
const task = fromJson(pb.TaskSchema, TASK_JSON);
const send = fromJson(pb.SendMessageRequestSchema, SEND_JSON);

const cases = [
  ["write Task", () => codecs.TaskJson.write(task), () => toJson(pb.TaskSchema, task)],
  ["read Task", () => codecs.TaskJson.read(TASK_JSON), () => fromJson(pb.TaskSchema, TASK_JSON, LENIENT)],
  ["write SendMessageRequest", () => codecs.SendMessageRequestJson.write(send), () => toJson(pb.SendMessageRequestSchema, send)],
  [
    "read SendMessageRequest",
    () => codecs.SendMessageRequestJson.read(SEND_JSON),
    () => fromJson(pb.SendMessageRequestSchema, SEND_JSON, LENIENT),
  ],
];

let sink = 0;
const time = (fn) => {
  const t = process.hrtime.bigint();
  for (let i = 0; i < CALLS; i++) if (fn() !== undefined) sink++;
  return Number(process.hrtime.bigint() - t) / CALLS / 1000;
};
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Both sides must answer the same, or the comparison means nothing.
const text = (v) => JSON.stringify(v, (_k, x) => (typeof x === "bigint" ? `${x}n` : x));
for (const [name, ours, theirs] of cases) {
  if (ours() === undefined) throw new Error(`${name}: the generated codec left the value to protobuf-es`);
  if (text(ours()) !== text(theirs())) throw new Error(`${name}: the generated codec and protobuf-es disagree`);
}
const stringify = () => JSON.stringify(TASK_JSON);
for (const [, ours, theirs] of cases) time(ours), time(theirs);
time(stringify);

const got = cases.map(() => ({ ours: [], theirs: [] }));
const floor = [];
for (let r = 0; r < rounds; r++) {
  cases.forEach(([, ours, theirs], i) => {
    if (r % 2) got[i].ours.push(time(ours)), got[i].theirs.push(time(theirs));
    else got[i].theirs.push(time(theirs)), got[i].ours.push(time(ours));
  });
  floor.push(time(stringify));
}
if (sink === 0) throw new Error("nothing ran");
console.log(`node ${process.version}; median of ${rounds} rounds of ${CALLS.toLocaleString("en-US")} calls, µs per call`);
console.log("                            generated  protobuf-es  generated/protobuf-es");
cases.forEach(([name], i) => {
  const o = median(got[i].ours);
  const t = median(got[i].theirs);
  console.log(`  ${name.padEnd(26)} ${o.toFixed(3).padStart(8)} ${t.toFixed(3).padStart(11)}   ${(o / t).toFixed(2)}x`);
});
console.log(`  (JSON.stringify of the Task's JSON: ${median(floor).toFixed(3)} µs)`);
