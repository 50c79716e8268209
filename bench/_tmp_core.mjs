import { register } from "tsx/esm/api";
register();
const { create, fromJson, toJson } = await import("@bufbuild/protobuf");
const pb = await import("../gen/a2a_pb.ts");
const { A2AServiceRoutes } = await import("../gen/a2a_http.ts");
const { createHttpHandler } = await import("a2a-http");
const { createRouter } = await import("a2a-http/routing");
const TASK_JSON = { id: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123Z" }, artifacts: [{ artifactId: "artifact-1", name: "answer", parts: [{ text: "The quick brown fox jumps over the lazy dog; the lazy dog sleeps on." }] }], history: [{ messageId: "message-1", contextId: "ctx-1", taskId: "task-1", role: "ROLE_USER", parts: [{ text: "Tell me about the fox and the dog, please." }] }, { messageId: "message-2", contextId: "ctx-1", taskId: "task-1", role: "ROLE_AGENT", parts: [{ text: "Working on it." }] }], metadata: { source: "bench" } };
const task = fromJson(pb.TaskSchema, TASK_JSON);
const handlers = { getTask: (r) => task, sendMessage: (r) => ({ payload: { case: "task", value: task } }) };
const h = createHttpHandler(A2AServiceRoutes, handlers, { profile: "a2a", jsonCodec: process.env.CODEC ?? "compiled" });
const hdrs = { "a2a-version": "1.0", "content-type": "application/json" };
const send = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello world" }], contextId: "ctx-1" } });
const mk = (method, rawPath, body) => ({ method, rawPath, rawQuery: "", header: (n) => hdrs[n], headers: new Headers(hdrs), readBody: async () => body, signal: new AbortController().signal });
const router = createRouter(A2AServiceRoutes);
async function time(name, fn, n = 200000) {
  for (let i = 0; i < 20000; i++) await fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) await fn();
  console.log(name.padEnd(30), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(2), "µs");
}
const g = mk("GET", "/tasks/task-1", ""); const s = mk("POST", "/message:send", send);
await time("floor get (stringify)", async () => JSON.stringify(TASK_JSON));
await time("core GetTask", () => h(g));
await time("floor send", async () => { const b = JSON.parse(send); return JSON.stringify({ task: TASK_JSON }); });
await time("core SendMessage", () => h(s));

await time("toJson task", async () => toJson(pb.TaskSchema, task));
await time("router.match", async () => router.match("GET", "/tasks/task-1"));
const sj = JSON.parse(send);
