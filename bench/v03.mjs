// What a v0.3 call costs against the same v1.0 call (issue 38: at most
// 1.3x), on the same agent in the same run: the task engine (the echo and
// 101-event stream agents of bench/agent.mjs) behind the framework-free
// HTTP+JSON and JSON-RPC cores, in process (no framework, no socket), so
// that the translation's share is not diluted by the network. Each pair is
// timed in alternating rounds; the figure is CPU µs per call, the median of
// the rounds, and the ratio v0.3 / v1.0 with its range over the rounds.
//
//   npm run generate && node --import tsx bench/v03.mjs [rounds]
//
// Pairs (the same request, v1.0 and v0.3):
// - REST SendMessage: POST /message:send (A2A-Version 1.0) / POST /v1/message:send (no version, v0.3 ProtoJSON);
// - JSON-RPC SendMessage: SendMessage / message/send;
// - REST GetTask (a stored task with history and an artifact): GET /tasks/{id} / GET /v1/tasks/{id};
// - JSON-RPC stream of 101 events: SendStreamingMessage / message/stream (the SSE text read to the end).
import { agents, EVENTS, TEXT } from "./agent-executors.mjs";

const rounds = Number(process.argv[2] ?? 15);
const GOAL = 1.3;

const { A2AServiceRoutes } = await import("../gen/a2a_http.ts");
const { createHttpHandler } = await import("a2a-http/server");
const { createJsonRpcHandler } = await import("a2a-http/jsonrpc");
const engines = await agents();

const signal = new AbortController().signal;
/** A framework-free request, as the adapters build it. */
const request = (method, path, headers, body = "") => {
  const [rawPath, rawQuery = ""] = path.split("?");
  const h = new Headers(headers);
  return {
    method,
    rawPath,
    rawQuery,
    header: (name) => h.get(name) ?? undefined,
    headers: h,
    readBody: async () => body,
    signal,
  };
};
const v1 = { "a2a-version": "1.0", "content-type": "application/json" };
const v03 = { "content-type": "application/json" };
const http = { echo: createHttpHandler(A2AServiceRoutes, engines.echo, { profile: "a2a" }) };
const rpc = {
  echo: createJsonRpcHandler(A2AServiceRoutes, engines.echo, { profile: "a2a" }),
  stream: createJsonRpcHandler(A2AServiceRoutes, engines.stream, { profile: "a2a" }),
};

/** The answer's body as text: a stream read to its end. */
async function text(answer) {
  const res = await answer;
  if (res.status !== 200) throw new Error(`status ${res.status}: ${typeof res.body === "string" ? res.body : ""}`);
  if (typeof res.body === "string") return res.body;
  let out = "";
  for (let chunk = await res.body.next(); chunk !== undefined; chunk = await res.body.next()) out += chunk;
  return out;
}

const v1Message = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: TEXT }], contextId: "ctx-1" } });
const v03RestMessage = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", content: [{ text: TEXT }], contextId: "ctx-1" } });
const v1Params = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: TEXT }], contextId: "ctx-1" } };
const v03Params = {
  message: { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: TEXT }], contextId: "ctx-1" },
};
const envelope = (method, params) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

const stored = JSON.parse(await text(http.echo(request("POST", "/message:send", v1, v1Message)))).task.id;

const pairs = {
  // First, before the SendMessage pairs fill the store and evict the stored task.
  "REST GetTask": {
    v1: () => text(http.echo(request("GET", `/tasks/${stored}`, v1))),
    v03: () => text(http.echo(request("GET", `/v1/tasks/${stored}`, v03))),
    n: 10000,
  },
  "REST SendMessage": {
    v1: () => text(http.echo(request("POST", "/message:send", v1, v1Message))),
    v03: () => text(http.echo(request("POST", "/v1/message:send", v03, v03RestMessage))),
    n: 2000,
  },
  "JSON-RPC SendMessage": {
    v1: () => text(rpc.echo(request("POST", "/", v1, envelope("SendMessage", v1Params)))),
    v03: () => text(rpc.echo(request("POST", "/", v03, envelope("message/send", v03Params)))),
    n: 2000,
  },
  [`JSON-RPC stream, ${EVENTS} events`]: {
    v1: () => text(rpc.stream(request("POST", "/", v1, envelope("SendStreamingMessage", v1Params)))),
    v03: () => text(rpc.stream(request("POST", "/", v03, envelope("message/stream", v03Params)))),
    n: 200,
  },
};

// Both sides answer the same thing, each in its own version.
const echoed = JSON.parse(await pairs["JSON-RPC SendMessage"].v03()).result;
if (echoed.kind !== "task" || echoed.status.state !== "completed" || echoed.artifacts[0].parts[0].text !== `echo: ${TEXT}`) {
  throw new Error(`the v0.3 answer is not the echo task: ${JSON.stringify(echoed)}`);
}
const streamed = (await pairs[`JSON-RPC stream, ${EVENTS} events`].v03()).split("\n\n").filter((e) => e.startsWith("data: "));
if (streamed.length !== EVENTS || !JSON.parse(streamed.at(-1).slice(6)).result.final)
  throw new Error("the v0.3 stream is not the 101 events");

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
console.log(
  `node ${process.version}; in process, the HTTP+JSON and JSON-RPC cores over the engine; median of ${rounds} alternating rounds`,
);
console.log(`${"call".padEnd(34)} ${"v1.0 µs".padStart(9)} ${"v0.3 µs".padStart(9)}   v0.3/v1.0 (range)`);
const verdicts = [];
for (const [name, p] of Object.entries(pairs)) {
  // Warm-up: JIT, and the engine's store filled as a busy agent's is.
  for (let i = 0; i < p.n; i++) {
    await p.v1();
    await p.v03();
  }
  const got = { v1: [], v03: [] };
  for (let r = 0; r < rounds; r++) {
    for (const who of r % 2 === 0 ? ["v1", "v03"] : ["v03", "v1"]) {
      const before = process.cpuUsage();
      for (let i = 0; i < p.n; i++) await p[who]();
      const used = process.cpuUsage(before);
      got[who].push((used.user + used.system) / p.n);
    }
  }
  const a = median(got.v1);
  const b = median(got.v03);
  const per = got.v03.map((x, i) => x / got.v1[i]);
  const ratio = b / a;
  console.log(
    `${name.padEnd(34)} ${a.toFixed(1).padStart(9)} ${b.toFixed(1).padStart(9)}   ${ratio.toFixed(2)}x (${Math.min(...per).toFixed(2)}-${Math.max(...per).toFixed(2)})`,
  );
  verdicts.push(`${name}: ${ratio.toFixed(2)}x (goal <= ${GOAL}x: ${ratio <= GOAL ? "met" : "NOT met"})`);
}
console.log("");
for (const v of verdicts) console.log(v);
for (const e of Object.values(engines)) await e.close();
