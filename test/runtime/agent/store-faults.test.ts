/**
 * What the engine does when its store cannot be reached (issue 39, the
 * engine's side): a publication that meets StoreUnavailableError is tried
 * again, in order, until the store answers, and one whose write was made
 * after all is not made twice; a blocking send answers what was stored
 * without a read that could fail; a request that cannot store its task
 * answers UNAVAILABLE; close() ends a run that waits for the store. The
 * store here is the memory store behind a switch that makes its calls fail
 * as a lost database's would (the SQL store maps its connection errors to
 * StoreUnavailableError).
 */
import { handlerContext, plainCard } from "./in-process.js";
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { Code, isRpcError } from "a2a-http";
import {
  createMemoryStore,
  StoreUnavailableError,
  type AgentStore,
  type AgentExecutor,
  type AgentTypes,
} from "../../../packages/runtime/src/agent/index.js";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { createPushSender } from "a2a-http/push";
import {
  A2AService,
  AgentCardSchema,
  Role,
  SendMessageRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
  type Task,
} from "../../../gen/a2a_pb.js";

/** The memory store, whose task calls fail while `down`; `landing` makes a failing commit write first (its outcome unknown). */
function faultyStore() {
  const inner = createMemoryStore();
  const state = { down: false, landing: false, failures: 0, written: [] as string[] };
  const kind = (event: unknown) => (event as { payload: { case: string } }).payload.case;
  const fail = (written: boolean) => {
    state.failures++;
    return new StoreUnavailableError(written, new Error("connection terminated unexpectedly"));
  };
  const store: AgentStore = {
    ...inner,
    tasks: {
      ...inner.tasks,
      get: async (key) => {
        if (state.down) throw fail(false);
        return inner.tasks.get(key);
      },
      create: async (key, task, at, event) => {
        if (state.down) throw fail(false);
        await inner.tasks.create(key, task, at, event);
        state.written.push(kind(event));
      },
      commit: async (key, task, expected, at, event) => {
        if (state.down) {
          if (!state.landing) throw fail(false);
          // The write is made, but its answer is lost with the connection.
          await inner.tasks.commit(key, task, expected, at, event);
          state.written.push(kind(event));
          throw fail(true);
        }
        await inner.tasks.commit(key, task, expected, at, event);
        state.written.push(kind(event));
      },
    },
  };
  return { store, inner, state };
}

const card = plainCard;
const ctx = () => handlerContext();
const send = (text: string, configuration?: { returnImmediately?: boolean }) =>
  create(SendMessageRequestSchema, {
    message: { messageId: `m-${text}`, role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
    configuration,
  });
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function agentOn(store: AgentStore, executor: AgentExecutor<AgentTypes>) {
  const errors: unknown[] = [];
  const agent = createAgentHandlers(A2AService, executor, { card, store, onError: (e) => errors.push(e) });
  return { agent, errors };
}

async function taskOf(agent: ReturnType<typeof agentOn>["agent"], request: ReturnType<typeof send>): Promise<Task> {
  const answer = (await agent.sendMessage!(request, ctx())) as { payload: { case: string; value: Task } };
  expect(answer.payload.case).toBe("task");
  return answer.payload.value;
}

describe("the engine when its store cannot be reached", () => {
  it("tries a run's publications again, in order, until the store answers: nothing lost, the executor sees no error", async () => {
    const { store, inner, state } = faultyStore();
    let working!: Promise<void>;
    const { agent, errors } = agentOn(store, async (_input, task) => {
      await task.working("one");
      state.down = true;
      // Given while the store is away: each waits for the one before it.
      working = task.working("two");
      void task.artifact("result");
      setTimeout(() => (state.down = false), 400);
      await task.complete();
    });
    const task = await taskOf(agent, send("go"));
    await working;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(state.failures).toBeGreaterThan(0);
    // The task, WORKING "one", WORKING "two", the artifact, COMPLETED: each once, in order.
    expect((await inner.tasks.get({ tenant: "", owner: "", id: task.id }))?.version).toBe(5);
    expect(state.written).toEqual(["task", "statusUpdate", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    expect(errors).toEqual([]);
    await agent.close();
  });

  it("does not make twice a write that was made though its answer was lost", async () => {
    const { store, inner, state } = faultyStore();
    const { agent } = agentOn(store, async (_input, task) => {
      await task.working("one");
      state.down = true;
      state.landing = true;
      setTimeout(() => (state.down = false), 250);
      await task.artifact("made once");
      await task.complete();
    });
    const task = await taskOf(agent, send("go"));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.artifacts.map((a) => a.parts[0]?.content.value)).toEqual(["made once"]);
    expect(state.failures).toBeGreaterThan(0);
    expect((await inner.tasks.get({ tenant: "", owner: "", id: task.id }))?.version).toBe(4);
    expect(state.written).toEqual(["task", "statusUpdate", "artifactUpdate", "statusUpdate"]);
    await agent.close();
  });

  it("a blocking send answers the task as its run stored it, without a read that could fail", async () => {
    const { store, state } = faultyStore();
    const { agent } = agentOn(store, async (_input, task) => {
      await task.complete("done");
      // The store goes away once the task is stored, before the answer is made.
      state.down = true;
    });
    const task = await taskOf(agent, send("go"));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    state.down = false;
    await agent.close();
  });

  it("a send that cannot store its task before answering (returnImmediately) answers UNAVAILABLE, and no run is left", async () => {
    const { store, state } = faultyStore();
    let ran = false;
    const { agent } = agentOn(store, async (_input, task) => {
      ran = true;
      await task.complete();
    });
    state.down = true;
    const error = await Promise.resolve(agent.sendMessage!(send("go", { returnImmediately: true }), ctx())).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(isRpcError(error) && error.code).toBe(Code.UNAVAILABLE);
    expect((error as Error).message).not.toMatch(/connection terminated/);
    expect(ran).toBe(false);
    state.down = false;
    await agent.close();
  });

  it("a push config the store could not take once the task exists is stored when it can: the send answers its task, which runs", async () => {
    const { store } = faultyStore();
    let puts = 0;
    const put = store.pushConfigs.put.bind(store.pushConfigs);
    const flaky: AgentStore = {
      ...store,
      pushConfigs: {
        ...store.pushConfigs,
        put: async (key, config) => {
          // The task was created; the config's write meets the database away (too many clients).
          if (++puts === 1) throw new StoreUnavailableError(false, new Error("sorry, too many clients already"));
          return put(key, config);
        },
      },
    };
    const agent = createAgentHandlers(A2AService, (_input, task) => task.complete(), {
      card: create(AgentCardSchema, { name: "t", capabilities: { pushNotifications: true }, defaultInputModes: ["text/plain"] }),
      store: flaky,
      pushSender: createPushSender({ allow: { http: true, addresses: ["127.0.0.1/32"] }, onError: () => {} }),
    });
    for (const returnImmediately of [true, false]) {
      puts = 0;
      const request = send(`go ${returnImmediately}`, { returnImmediately });
      request.configuration!.taskPushNotificationConfig = create(TaskPushNotificationConfigSchema, { url: "http://127.0.0.1:9/hook" });
      const task = await taskOf(agent, request);
      expect(puts).toBe(2);
      await sleep(50);
      const stored = await store.tasks.get({ tenant: "", owner: "", id: task.id });
      expect(stored?.task.status?.state).toBe(TaskState.COMPLETED);
    }
    await agent.close();
  });

  it("close() ends a run that waits for the store, within its bound", async () => {
    const { store, state } = faultyStore();
    let publication: Promise<void> | undefined;
    const { agent } = agentOn(store, async (_input, task) => {
      await task.working("one");
      state.down = true;
      publication = task.working("two");
      await publication.catch(() => {});
    });
    await agent.sendMessage!(send("go", { returnImmediately: true }), ctx());
    await sleep(300);
    const started = Date.now();
    await agent.close();
    expect(Date.now() - started).toBeLessThan(5_000);
    await expect(publication).rejects.toBeInstanceOf(StoreUnavailableError);
  });
});
