// What one request at the body limit (4 MiB) costs to decode, against
// JSON.parse of the same text in the same run (docs/security.md, issue 28
// item 3: at most 10x its time and 10x its memory).
//
//   npm run generate && node --expose-gc bench/limits.mjs [rounds]
//
// "decode" is the HTTP+JSON server's whole path up to the handler:
// parseJsonBody (JSON.parse, then the bounds walk), decodeRequest and
// checkRequired; "retained" is the heap the result holds after a full GC
// (JSON.parse's parsed value, against the decoded message). Each time is the
// median of the rounds. The gRPC row decodes the binary message with
// protobuf-es's fromBinary (what connect-es does) and then checkMessage.
import { register } from "tsx/esm/api";

if (typeof globalThis.gc !== "function") {
  console.error("run with node --expose-gc bench/limits.mjs");
  process.exit(2);
}
register();
const { create, fromBinary, toBinary } = await import("@bufbuild/protobuf");
const pb = await import("../gen/a2a_pb.ts");
const { A2AServiceRoutes } = await import("../gen/a2a_http.ts");
const { parseJsonBody, decodeRequest, checkRequired } = await import("../packages/runtime/src/transcoding/index.ts");
const { checkMessage, DEFAULT_MAX_ELEMENTS } = await import("../packages/runtime/src/transcoding/bounds.ts");
const { checkWire } = await import("../packages/runtime/src/connect/wire-bounds.ts");

const rounds = Number(process.argv[2] ?? 5);
const LIMIT = 4 * 1024 * 1024;
const route = A2AServiceRoutes.find((r) => r.rpc === "sendMessage" && r.body === "*");
const gc = globalThis.gc;

/** A SendMessage body of exactly about LIMIT bytes: `parts` JSON, then a text part of filler. */
function body(parts) {
  const head = `{"message":{"messageId":"m1","role":"ROLE_USER","parts":[${parts}{"text":"`;
  const tail = `"}]}}`;
  return head + "x".repeat(Math.max(0, LIMIT - head.length - tail.length)) + tail;
}
const numbers = (n) => `{"data":[${Array.from({ length: n }, (_, i) => i % 10).join(",")}]},`;
const struct = (n) => `{"data":{${Array.from({ length: n }, (_, i) => `"k${i}":${i % 10}`).join(",")}}},`;
const smallParts = (n) => Array.from({ length: n }, () => `{"text":""},`).join("");
// Elements in a body: every JSON value; keep the cases just under the cap.
const CAP = DEFAULT_MAX_ELEMENTS;

const cases = [
  ["Values: numbers in a data part, at the cap", body(numbers(CAP - 20))],
  ["Values: a Struct of numbers, at the cap", body(struct(CAP - 20))],
  ["parts: empty text parts, at the cap", body(smallParts(Math.floor((CAP - 20) / 2)))],
  ["over the cap: 4 MiB of numbers (refused with 413)", body(numbers(Math.floor(LIMIT / 2) - 100))],
];

const decode = (text, max) => {
  const json = parseJsonBody(text, max);
  const msg = decodeRequest(route, { variables: {}, query: "", body: json }, { commaLists: true });
  checkRequired(route.input, msg);
  return msg;
};
const refusedOrDecoded = (text, max) => {
  try {
    return decode(text, max);
  } catch (e) {
    return e;
  }
};

function time(fn) {
  const t = process.hrtime.bigint();
  const r = fn();
  return [Number(process.hrtime.bigint() - t) / 1e6, r];
}
function retained(fn) {
  gc();
  gc();
  const before = process.memoryUsage().heapUsed;
  const keep = fn();
  gc();
  gc();
  const after = process.memoryUsage().heapUsed;
  if (keep === undefined) throw new Error("nothing kept");
  return (after - before) / 1e6;
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const f1 = (x) => x.toFixed(1);

console.log(`body limit ${LIMIT} bytes, maxElements ${CAP}, ${rounds} rounds; ratios are against JSON.parse of the same text`);
console.log("case | JSON.parse ms | decode ms | time x | JSON.parse MB | decoded MB | memory x");
const rows = [];
for (const [name, text] of cases) {
  const tp = [];
  const td = [];
  let result;
  for (let r = 0; r < rounds; r++) {
    gc();
    tp.push(time(() => JSON.parse(text))[0]);
    gc();
    const [ms, res] = time(() => refusedOrDecoded(text));
    td.push(ms);
    result = res;
  }
  const refused = result instanceof Error;
  const mp = retained(() => JSON.parse(text));
  const md = refused ? 0 : retained(() => decode(text));
  const row = { name, parse: median(tp), decode: median(td), mp, md, refused };
  rows.push(row);
  console.log(
    `${name} | ${f1(row.parse)} | ${f1(row.decode)}${refused ? " (refused)" : ""} | ${f1(row.decode / row.parse)} | ${f1(mp)} | ${refused ? "-" : f1(md)} | ${refused ? "-" : f1(md / mp)}`,
  );
}

// Without the cap, for the record: what the 4 MiB of numbers costs when decoded.
{
  const text = cases[3][1];
  const tp = [];
  const td = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    tp.push(time(() => JSON.parse(text))[0]);
    gc();
    td.push(time(() => decode(text, Infinity))[0]);
  }
  const mp = retained(() => JSON.parse(text));
  const md = retained(() => decode(text, Infinity));
  console.log(
    `(no cap) 4 MiB of numbers decoded | ${f1(median(tp))} | ${f1(median(td))} | ${f1(median(td) / median(tp))} | ${f1(mp)} | ${f1(md)} | ${f1(md / mp)}`,
  );
}

// gRPC binary: 4 MiB of the cheapest Values (null), decoded as connect-es does, then checked.
{
  const n = Math.floor(LIMIT / 4) - 16;
  const values = Array.from({ length: n }, () => ({ kind: { case: "nullValue", value: 0 } }));
  const msg = create(pb.SendMessageRequestSchema, {
    message: {
      messageId: "m1",
      role: pb.Role.USER,
      parts: [{ content: { case: "data", value: { kind: { case: "listValue", value: { values } } } } }],
    },
  });
  const bytes = toBinary(pb.SendMessageRequestSchema, msg);
  const json = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ data: values.map(() => null) }] } });
  const tb = [];
  const tc = [];
  const tp = [];
  const tw = [];
  for (let r = 0; r < rounds; r++) {
    gc();
    tp.push(time(() => JSON.parse(json))[0]);
    gc();
    // What withRequestBounds does first: count on the wire, refuse, decode nothing.
    tw.push(
      time(() => {
        try {
          checkWire(pb.SendMessageRequestSchema, bytes);
        } catch {
          // refused: over the cap
        }
      })[0],
    );
    const [ms, m] = time(() => fromBinary(pb.SendMessageRequestSchema, bytes));
    tb.push(ms);
    tc.push(
      time(() => {
        try {
          checkMessage(pb.SendMessageRequestSchema, m);
        } catch {
          // refused: over the cap
        }
      })[0],
    );
  }
  const mb = retained(() => fromBinary(pb.SendMessageRequestSchema, bytes));
  console.log(
    `gRPC binary: ${n} null Values in ${(bytes.length / 1048576).toFixed(2)} MiB (readMaxBytes) | fromBinary ${f1(median(tb))} ms, ${f1(mb)} MB | then refused by checkMessage in ${f1(median(tc))} ms | JSON.parse of the same as JSON ${f1(median(tp))} ms | refused on the wire before decoding (withRequestBounds) in ${f1(median(tw))} ms`,
  );
}

const worst = rows.filter((r) => !r.refused);
const tx = Math.max(...worst.map((r) => r.decode / r.parse));
const mx = Math.max(...worst.map((r) => r.md / r.mp));
const refusedX = Math.max(...rows.filter((r) => r.refused).map((r) => r.decode / r.parse));
console.log(
  `worst accepted request: ${f1(tx)}x JSON.parse's time, ${f1(mx)}x its memory (goal: at most 10x each); a refused one ${f1(refusedX)}x its time`,
);
