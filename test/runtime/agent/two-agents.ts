/**
 * Two engine instances on one PostgreSQL, for the tests that fault the
 * database under them (db-restart, db-freeze): on A a task that works until
 * the test releases it, then writes an artifact and completes (any other
 * text completes at once); on B a task that waits for input. `survived`
 * checks what must hold once the database is back: the running task ends
 * COMPLETED with its artifact once and ran once, and two leases later no
 * sweep failed it or the waiting one.
 */
import { create } from "@bufbuild/protobuf";
import { expect } from "vitest";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { openStore, type OpenStoreOptions } from "../../../packages/runtime/src/stores.js";
import { A2AService, GetTaskRequestSchema, Role, SendMessageRequestSchema, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { handlerContext, plainCard } from "./in-process.js";

const quiet = { info() {}, warn() {}, error() {} };
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
type Agent = ReturnType<typeof createAgentHandlers>;

export async function twoAgents(url: string, leaseMs: number, options: OpenStoreOptions = {}) {
  const opened = (instance: string) =>
    openStore(url, { migrate: true, instance, leaseMs, log: () => {}, logger: quiet, connectTimeoutMs: 2_000, ...options });
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let runs = 0;
  const agentA = createAgentHandlers(
    A2AService,
    async (input, task) => {
      if (input.text !== "run") return task.complete("quick");
      runs++;
      await task.working("started");
      await released;
      await task.artifact("the result");
      await task.complete();
    },
    { card: plainCard, store: await opened("A"), logger: quiet },
  );
  const agentB = createAgentHandlers(A2AService, (_input, task) => task.askForInput("more, please"), {
    card: plainCard,
    store: await opened("B"),
    logger: quiet,
  });
  const get = (agent: Agent, id: string) =>
    Promise.resolve(agent.getTask!(create(GetTaskRequestSchema, { id }), handlerContext("getTask"))) as Promise<Task>;
  const sent = async (agent: Agent, text: string, returnImmediately = true) => {
    const request = create(SendMessageRequestSchema, {
      message: { messageId: `m-${text}`, role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
      configuration: { returnImmediately },
    });
    return ((await agent.sendMessage!(request, handlerContext())) as { payload: { value: Task } }).payload.value;
  };
  /** A's running task and B's waiting one, both started and stored. */
  const start = async () => {
    const running = (await sent(agentA, "run")).id;
    const waiting = await sent(agentB, "ask", false);
    expect(waiting.status?.state).toBe(TaskState.INPUT_REQUIRED);
    return { running, waiting: waiting.id };
  };
  /** Once the database is back: what must hold of both tasks. */
  const survived = async ({ running, waiting }: { running: string; waiting: string }) => {
    let task: Task | undefined;
    for (let i = 0; i < 150 && task?.status?.state !== TaskState.COMPLETED; i++) {
      await sleep(100);
      task = await get(agentB, running).catch(() => undefined);
    }
    expect(task?.status?.state).toBe(TaskState.COMPLETED);
    expect(task?.artifacts.map((a) => a.parts[0]?.content.value)).toEqual(["the result"]);
    expect(runs).toBe(1);
    // Two leases later: every sweep has had its chance, and neither task was failed.
    await sleep(leaseMs * 2);
    expect((await get(agentA, running)).status?.state).toBe(TaskState.COMPLETED);
    expect((await get(agentA, waiting)).status?.state).toBe(TaskState.INPUT_REQUIRED);
  };
  const close = async () => {
    await agentA.close();
    await agentB.close();
  };
  return { agentA, agentB, release, get, sent, start, survived, close };
}
