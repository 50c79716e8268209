// The stored Task the server benchmarks answer (bench/server.mjs, core.mjs,
// json.mjs), as ProtoJSON: 517 bytes, with an artifact, two messages of
// history and metadata, so that every kind of field the writer meets is in.
export const TASK_JSON = {
  id: "task-1",
  contextId: "ctx-1",
  status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123Z" },
  artifacts: [
    {
      artifactId: "artifact-1",
      name: "answer",
      parts: [{ text: "The quick brown fox jumps over the lazy dog; the lazy dog sleeps on." }],
    },
  ],
  history: [
    {
      messageId: "message-1",
      contextId: "ctx-1",
      taskId: "task-1",
      role: "ROLE_USER",
      parts: [{ text: "Tell me about the fox and the dog, please." }],
    },
    { messageId: "message-2", contextId: "ctx-1", taskId: "task-1", role: "ROLE_AGENT", parts: [{ text: "Working on it." }] },
  ],
  metadata: { source: "bench" },
};
