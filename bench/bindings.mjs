// The three bindings of one handler object, side by side: GetTask and
// SendMessage over HTTP+JSON (the baseline), JSON-RPC (same Express server)
// and gRPC (connect-es on node:http2, h2c), measured as the server's CPU time
// per call (steadier than calls/second on a shared machine) and calls/second.
//
//   npm run generate && node bench/bindings.mjs [seconds-per-run] [rounds]
//
// The server runs in a child process on 127.0.0.1, port 0. HTTP+JSON and
// JSON-RPC are driven by autocannon (16 connections); gRPC by a connect-es
// gRPC client with 16 calls in flight on one HTTP/2 connection. Runs
// alternate between the bindings; each figure is the median of the rounds.
import { fork } from "node:child_process";
import { fileURLToPath } from "node:url";

const seconds = Number(process.argv[2] ?? 3);
const rounds = Number(process.argv[3] ?? 3);

if (process.env.BENCH_CHILD) await child();
else await main();

async function main() {
  const { default: autocannon } = await import("autocannon");
  const proc = fork(fileURLToPath(import.meta.url), [], {
    env: { ...process.env, BENCH_CHILD: "1" },
    execArgv: ["--import", "tsx"],
    stdio: ["ignore", "inherit", "inherit", "ipc"],
  });
  const { http, grpc, grpcBare } = await new Promise((resolve, reject) => {
    proc.once("message", resolve);
    proc.once("exit", (code) => reject(new Error(`server exited ${code}`)));
  });
  const cpu = () =>
    new Promise((resolve) => {
      proc.once("message", (m) => resolve(m.cpu));
      proc.send("cpu");
    });
  const headers = { "a2a-version": "1.0", "content-type": "application/json" };
  const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello world" }], contextId: "ctx-1" };
  const http1 = (path, opts) => async (duration) => {
    const r = await autocannon({ url: `http://127.0.0.1:${http}${path}`, connections: 16, duration, headers, ...opts });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${path}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return r.requests.total;
  };
  const rpcBody = (method, params) => ({ method: "POST", body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) });

  const { register } = await import("tsx/esm/api");
  register(); // loads the generated .ts files; the runtime comes from dist/
  const { createClient } = await import("@connectrpc/connect");
  const { createGrpcTransport } = await import("@connectrpc/connect-node");
  const { A2AService } = await import("../gen/a2a_pb.ts");
  const client = createClient(A2AService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${grpc}` }));
  const bare = createClient(A2AService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${grpcBare}` }));
  const callOptions = { headers: { "a2a-version": "1.0" } };
  const grpcRun = (call) => async (duration) => {
    const end = Date.now() + duration * 1000;
    let n = 0;
    await Promise.all(
      Array.from({ length: 16 }, async () => {
        while (Date.now() < end) {
          await call();
          n++;
        }
      }),
    );
    return n;
  };

  const grpcMessage = {
    message: { messageId: "m1", role: 1, parts: [{ content: { case: "text", value: "hello world" } }], contextId: "ctx-1" },
  };
  const cases = {
    GetTask: {
      "HTTP+JSON": http1("/a2a/tasks/task-1", {}),
      JSONRPC: http1("/jsonrpc", rpcBody("GetTask", { id: "task-1" })),
      GRPC: grpcRun(() => client.getTask({ id: "task-1" }, callOptions)),
      "GRPC bare": grpcRun(() => bare.getTask({ id: "task-1" }, callOptions)),
    },
    SendMessage: {
      "HTTP+JSON": http1("/a2a/message:send", { method: "POST", body: JSON.stringify({ message }) }),
      JSONRPC: http1("/jsonrpc", rpcBody("SendMessage", { message })),
      GRPC: grpcRun(() => client.sendMessage(grpcMessage, callOptions)),
      "GRPC bare": grpcRun(() => bare.sendMessage(grpcMessage, callOptions)),
    },
  };
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const bindings = ["HTTP+JSON", "JSONRPC", "GRPC", "GRPC bare"];
  console.log(`one handler object, three bindings: median of ${rounds} alternating ${seconds} s runs, 16 in flight, loopback`);
  console.log("rpc          binding     calls/s   server CPU µs/call   CPU ratio to HTTP+JSON (GRPC: to GRPC bare)");
  for (const [rpc, runs] of Object.entries(cases)) {
    for (const b of bindings) await runs[b](1); // warm-up
    const got = Object.fromEntries(bindings.map((b) => [b, { rps: [], cpu: [] }]));
    for (let round = 0; round < rounds; round++) {
      const order = round % 2 === 0 ? bindings : [...bindings].reverse();
      for (const b of order) {
        const before = await cpu();
        const t0 = performance.now();
        const n = await runs[b](seconds);
        const elapsed = (performance.now() - t0) / 1000;
        const after = await cpu();
        got[b].rps.push(n / elapsed);
        got[b].cpu.push((after - before) / n);
      }
    }
    for (const b of bindings) {
      const c = median(got[b].cpu);
      const base = median(got[b.startsWith("GRPC") ? "GRPC bare" : "HTTP+JSON"].cpu);
      console.log(
        `${rpc.padEnd(12)} ${b.padEnd(10)} ${Math.round(median(got[b].rps)).toLocaleString("en-US").padStart(8)}   ${c.toFixed(1).padStart(18)}   ${(c / base).toFixed(2).padStart(10)}x`,
      );
    }
  }
  proc.kill();
  await adapterCost();
}

/**
 * The gRPC adapter's own cost, in process: its GetTask implementation against
 * a hand-written one, called directly with a connect-es HandlerContext (no
 * HTTP/2, no framing), which the network figures above drown in noise.
 */
async function adapterCost() {
  const { create } = await import("@bufbuild/protobuf");
  const { createHandlerContext } = await import("@connectrpc/connect");
  const pb = await import("../gen/a2a_pb.ts");
  const { A2AServiceRoutes } = await import("../gen/a2a_http.ts");
  const { connectServiceImpl } = await import("a2a-http/connect");
  const task = create(pb.TaskSchema, { id: "task-1" });
  const adapter = connectServiceImpl(pb.A2AService, A2AServiceRoutes, { getTask: () => task }, { profile: "a2a" }).getTask;
  const bare = () => task;
  const request = create(pb.GetTaskRequestSchema, { id: "task-1" });
  const context = createHandlerContext({
    service: pb.A2AService,
    method: pb.A2AService.method.getTask,
    protocolName: "grpc",
    requestMethod: "POST",
    url: "http://127.0.0.1/lf.a2a.v1.A2AService/GetTask",
    requestHeader: { "a2a-version": "1.0" },
  });
  const n = 200_000;
  const time = async (f) => {
    const t0 = performance.now();
    for (let i = 0; i < n; i++) await f(request, context);
    return ((performance.now() - t0) * 1000) / n;
  };
  const got = { adapter: [], bare: [] };
  for (let round = 0; round < 5; round++) {
    got.adapter.push(await time(adapter));
    got.bare.push(await time(bare));
  }
  const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
  const a = median(got.adapter);
  const b = median(got.bare);
  console.log(
    `gRPC adapter's own cost, in process (GetTask, median of 5 x ${n.toLocaleString("en-US")} calls): ${a.toFixed(2)} µs/call vs ${b.toFixed(2)} µs/call bare (+${(a - b).toFixed(2)} µs)`,
  );
}

async function child() {
  const http2 = await import("node:http2");
  const { create } = await import("@bufbuild/protobuf");
  const { connectNodeAdapter } = await import("@connectrpc/connect-node");
  const { default: express } = await import("express");
  const pb = await import("../gen/a2a_pb.ts");
  const { a2aServiceExpress, a2aServiceJsonRpcExpress } = await import("../gen/a2a_http_express.ts");
  const { a2aServiceConnect } = await import("../gen/a2a_http_connect.ts");
  const task = create(pb.TaskSchema, {
    id: "task-1",
    contextId: "ctx-1",
    status: { state: pb.TaskState.COMPLETED, timestamp: { seconds: 1767323045n, nanos: 123000000 } },
    artifacts: [{ artifactId: "a1", parts: [{ content: { case: "text", value: "hello world" } }] }],
    history: [{ messageId: "m1", role: pb.Role.USER, parts: [{ content: { case: "text", value: "hi" } }] }],
  });
  const handlers = {
    getTask: () => task,
    sendMessage: (req) => {
      void req.message?.messageId;
      return { payload: { case: "task", value: task } };
    },
  };
  const app = express();
  app.use("/a2a", a2aServiceExpress(handlers));
  app.use("/jsonrpc", a2aServiceJsonRpcExpress(handlers));
  const h1 = await new Promise((ok) => {
    const s = app.listen(0, "127.0.0.1", () => ok(s));
  });
  const h2 = http2.createServer(connectNodeAdapter({ routes: a2aServiceConnect(handlers) }));
  await new Promise((ok) => h2.listen(0, "127.0.0.1", ok));
  // The floor: the same answers from a hand-written connect-es service, without the runtime.
  const bareRoutes = (router) =>
    router.service(pb.A2AService, { getTask: () => task, sendMessage: () => ({ payload: { case: "task", value: task } }) });
  const h2bare = http2.createServer(connectNodeAdapter({ routes: bareRoutes }));
  await new Promise((ok) => h2bare.listen(0, "127.0.0.1", ok));
  process.on("message", (m) => {
    if (m === "cpu") {
      const u = process.cpuUsage();
      process.send({ cpu: u.user + u.system });
    }
  });
  process.send({ http: h1.address().port, grpc: h2.address().port, grpcBare: h2bare.address().port });
}
