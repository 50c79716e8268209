import { register } from "tsx/esm/api";
register();
const { fromJson, toJson, create } = await import("@bufbuild/protobuf");
const pb = await import("../gen/a2a_pb.ts");
const J = await import("../gen/a2a_http_json.ts");
const TASK_JSON = { id: "task-1", contextId: "ctx-1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123Z" }, artifacts: [{ artifactId: "artifact-1", name: "answer", parts: [{ text: "The quick brown fox jumps over the lazy dog; the lazy dog sleeps on." }] }], history: [{ messageId: "message-1", contextId: "ctx-1", taskId: "task-1", role: "ROLE_USER", parts: [{ text: "Tell me about the fox and the dog, please." }] }, { messageId: "message-2", contextId: "ctx-1", taskId: "task-1", role: "ROLE_AGENT", parts: [{ text: "Working on it." }] }], metadata: { source: "bench" } };
const task = fromJson(pb.TaskSchema, TASK_JSON);
const send = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hello world" }], contextId: "ctx-1" } };
function time(name, fn, n = 300000) {
  for (let i = 0; i < 30000; i++) fn();
  const t = process.hrtime.bigint();
  for (let i = 0; i < n; i++) fn();
  console.log(name.padEnd(34), (Number(process.hrtime.bigint() - t) / n / 1000).toFixed(3), "µs");
}
for (let r = 0; r < 2; r++) {
time("stringify(TASK_JSON) floor", () => JSON.stringify(TASK_JSON));
time("generated write Task", () => J.TaskJson.write(task));
time("protobuf-es toJson Task", () => toJson(pb.TaskSchema, task));
time("generated read SendMessageRequest", () => J.SendMessageRequestJson.read(send));
time("protobuf-es fromJson SendMessageRequest", () => fromJson(pb.SendMessageRequestSchema, send, { ignoreUnknownFields: true }));
time("generated read Task", () => J.TaskJson.read(TASK_JSON));
time("protobuf-es fromJson Task", () => fromJson(pb.TaskSchema, TASK_JSON, { ignoreUnknownFields: true }));
}
