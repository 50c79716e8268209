// The task engine's two bench agents on the memory store (echo, and a
// stream of 101 events), as bench/agent.mjs (its server and --in-process)
// and bench/v03.mjs run them. The generated code is TypeScript: run under
// tsx (node --import tsx).

/** Updates between the stream's first event (the Task) and its last (COMPLETED). */
export const UPDATES = 99;
export const EVENTS = UPDATES + 2;
export const TEXT = "hello world";
export const CONTEXT_ID = "ctx-1";

/** The engine's two agents (echo, stream) on the memory store, as both the server and --in-process run them. */
export async function agents() {
  const { create } = await import("@bufbuild/protobuf");
  const pb = await import("../gen/a2a_pb.ts");
  const { createA2AServiceAgent } = await import("../gen/a2a_http_agent.ts");
  const { createMemoryStore } = await import("a2a-http/agent");
  const maxTasks = process.env.BENCH_MAX_TASKS ? Number(process.env.BENCH_MAX_TASKS) : undefined;
  const store = () => createMemoryStore({ maxTasks });
  const card = create(pb.AgentCardSchema, {
    name: "bench",
    description: "bench",
    version: "1.0.0",
    supportedInterfaces: [{ url: "http://127.0.0.1/a2a", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
    capabilities: { streaming: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
  });
  return {
    echo: createA2AServiceAgent(({ text }, task) => task.complete("echo: " + text), { card, store: store() }),
    stream: createA2AServiceAgent(
      async (_input, task) => {
        for (let i = 1; i <= UPDATES; i++) {
          if (i % 2 === 1) await task.working();
          else await task.artifact({ artifactId: "out", parts: [{ content: { case: "text", value: `chunk ${i}` } }] }, { append: i > 2 });
        }
        await task.complete();
      },
      { card, store: store() },
    ),
  };
}
