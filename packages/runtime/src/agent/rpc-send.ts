/**
 * SendMessage and SendStreamingMessage: a message checked against the card
 * (extensions, input modes, history length, a push config's URL), then a new
 * task prepared or an existing one's next turn stored (WORKING, the message
 * in its history) under the task's lock, the executor started (run-lifecycle.ts),
 * and the answer: for SendMessage the Message replied or the task once it
 * has settled (at once with returnImmediately); for the stream, the first
 * event and then the task's events until its turn ends.
 */
import { A2AErrors, isTerminal, TaskState } from "../a2a.js";
import { Code, resourceInfo, RpcError } from "../errors.js";
import type { HandlerContext } from "../route-binding.js";
import { checkExtensions, checkInputModes, requirePush, requireStreaming } from "./capabilities.js";
import type { Execution } from "./execution.js";
import type { MemoryStoreSync } from "./memory-store.js";
import { copyOf, newId } from "./message-makers.js";
import type { AgentCardLike } from "./options.js";
import type { PushDispatch } from "./push-dispatch.js";
import type { PushSender } from "./push-sender.js";
import { LazyAbort, newRun, type Run } from "./run.js";
import type { RunLifecycle } from "./run-lifecycle.js";
import type { RunTable } from "./run-table.js";
import { StoreUnavailableError, type AgentStore, type PushConfigLike, type TaskKey } from "./store.js";
import type { Subscribers } from "./subscribers.js";
import type { TaskChanges } from "./task-changes.js";
import type { TaskLocks } from "./task-lock.js";
import { endsStream, endsTask, endsTurn, stateName } from "./task-state.js";
import { TaskStream } from "./task-stream.js";
import { checkHistoryLength, view } from "./task-view.js";
import { namingTask, type TaskWriter } from "./task-writer.js";
import type { AgentTypes, MessageLike, TaskLike } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;

/** What the send rpcs need of the engine. */
export interface SendRpcDeps<T extends AgentTypes> {
  readonly store: AgentStore;
  /** The memory store's synchronous side, when the store is one: a settled task is answered without a promise. */
  readonly mem: MemoryStoreSync | undefined;
  /** The card as it is now (read per request). */
  readonly card: () => AgentCardLike;
  /** Refuse parts whose media type the card does not accept. */
  readonly checkModes: boolean;
  readonly push: PushDispatch;
  readonly pushSender: PushSender | undefined;
  readonly runs: RunTable;
  readonly locks: TaskLocks;
  readonly writer: TaskWriter;
  readonly lifecycle: RunLifecycle<T>;
  readonly execution: Execution;
  readonly subscribers: Subscribers;
  readonly changes: Pick<TaskChanges, "shape" | "statusOf" | "statusChange">;
  /** The key of the caller's task of that id. */
  readonly keyOf: (ctx: HandlerContext, id: string) => TaskKey;
}

type SendAnswer = { payload: { case: "task"; value: TaskLike } | { case: "message"; value: MessageLike } };
type First = Awaited<Run["first"]["promise"]>;
type SendConfig = { returnImmediately?: boolean; historyLength?: number; taskPushNotificationConfig?: PushConfigLike };

export function sendRpcs<T extends AgentTypes>(deps: SendRpcDeps<T>) {
  const { store, mem, runs, locks, writer, lifecycle, subscribers, keyOf } = deps;
  const { shape, statusOf, statusChange } = deps.changes;

  /**
   * Checks the request, stores the continued task or prepares the new one,
   * and starts the executor: within this call for a new task that waits for
   * nothing (no push config to check, no returnImmediately), else a promise.
   */
  function begin(req: AnyRequest, ctx: HandlerContext, stream: boolean): Run | Promise<Run> {
    if (runs.closed) throw new RpcError(Code.UNAVAILABLE, "the agent is shutting down");
    const incoming = req.message as MessageLike | undefined;
    if (!incoming) throw A2AErrors.invalidParams("message is required");
    const card = deps.card();
    checkExtensions(ctx, card);
    if (deps.checkModes) checkInputModes(incoming, card);
    const config = req.configuration as SendConfig | undefined;
    checkHistoryLength(config?.historyLength);
    const pushInit = config?.taskPushNotificationConfig;
    if (pushInit)
      return Promise.resolve(requirePush(card, deps.pushSender).check(pushInit.url)).then(() =>
        open(ctx, stream, incoming, config, pushInit),
      );
    return open(ctx, stream, incoming, config, undefined);
  }

  /** The task of a checked request, continued or new, and its executor started. */
  function open(
    ctx: HandlerContext,
    stream: boolean,
    incoming: MessageLike,
    config: SendConfig | undefined,
    pushInit: PushConfigLike | undefined,
  ): Run | Promise<Run> {
    if (incoming.taskId !== "") return openContinued(ctx, stream, incoming, pushInit);
    const key = keyOf(ctx, newId());
    const contextId = incoming.contextId || newId();
    const message = shape.messageIn(incoming, key.id, contextId);
    const snapshot = shape.task(key.id, contextId, statusOf(TaskState.SUBMITTED, undefined, Date.now()), [message]);
    const run = newRun(key, new LazyAbort(), { task: snapshot, pushConfig: pushInit && deps.push.configOf(pushInit, key, ctx) });
    runs.hold(run);
    // Asked to answer at once: the task must exist before the executor has said anything.
    if (config?.returnImmediately) {
      return settingUp(run, () => locks.run(run.topic, async () => writer.storeFirst(run, false))).then(() =>
        lifecycle.launch(run, ctx, stream, message, snapshot, false),
      );
    }
    return lifecycle.launch(run, ctx, stream, message, snapshot, false);
  }

  /** A message to an existing task: its turn stored (WORKING, the message in its history) under the task's lock. */
  async function openContinued(
    ctx: HandlerContext,
    stream: boolean,
    incoming: MessageLike,
    pushInit: PushConfigLike | undefined,
  ): Promise<Run> {
    const at = Date.now();
    const key = keyOf(ctx, incoming.taskId);
    const run = newRun(key, new LazyAbort(), undefined);
    const continued = await locks.run(run.topic, async () => {
      const stored = await store.tasks.get(key);
      if (!stored) throw A2AErrors.taskNotFound(key.id);
      const { task, version } = stored;
      const state = task.status?.state ?? 0;
      if (isTerminal(state)) {
        throw A2AErrors.unsupportedOperation(`task ${key.id} is ${stateName(state)}: it takes no more messages`, { taskId: key.id });
      }
      if (incoming.contextId !== "" && incoming.contextId !== task.contextId) {
        throw A2AErrors.invalidParams(`contextId ${incoming.contextId} is not the context of task ${key.id} (${task.contextId})`);
      }
      if (runs.holds(run.topic) || deps.execution.mayRunElsewhere(state)) {
        throw A2AErrors.unsupportedOperation(`task ${key.id} is still working on an earlier message: wait for it or cancel it`, {
          taskId: key.id,
        });
      }
      // Before anything of this turn is stored, so that a refused config leaves the task as it was.
      if (pushInit) await deps.push.put(key, deps.push.configOf(pushInit, key, ctx));
      const m = Object.assign(copyOf(incoming), { contextId: task.contextId });
      const next = statusChange(Object.assign(copyOf(task), { history: [...task.history, m] }), TaskState.WORKING, undefined, at);
      const version2 = await writer.commit(key, run.topic, version, next.task, next.event);
      runs.hold(run);
      run.latest = { task: next.task, version: version2 };
      return { task: next.task, version: version2, message: m };
    });
    run.first.resolve({ task: continued.task, version: continued.version });
    return lifecycle.launch(run, ctx, stream, continued.message, continued.task, true);
  }

  /** A step before the executor starts: when it fails, the task is not left marked as running. */
  async function settingUp(run: Run, step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (e) {
      runs.release(run);
      throw e;
    }
  }

  /** SendMessage's answer: once the task has settled (unless returnImmediately), the Message replied or the task as stored. */
  function sendAnswer(run: Run, req: AnyRequest, ctx: HandlerContext): SendAnswer | Promise<SendAnswer> {
    const config = req.configuration as SendConfig | undefined;
    // A quick executor has often settled its task already: no wait (and no AbortSignal for it) then.
    if (!config?.returnImmediately && !run.settled.done) {
      return unlessAborted(run.settled.promise, ctx.signal, () => nameOnDeadline(run, ctx.signal.reason)).then(() =>
        sendAnswerOf(run, config, ctx),
      );
    }
    return sendAnswerOf(run, config, ctx);
  }

  function sendAnswerOf(run: Run, config: SendConfig | undefined, ctx: HandlerContext): SendAnswer | Promise<SendAnswer> {
    // Settled, the run has mostly stored its task already: no second wait then.
    if (run.first.done && run.first.value !== undefined) return answerWith(run, run.first.value, config);
    return unlessAborted(run.first.promise, ctx.signal).then((first) => answerWith(run, first, config));
  }

  function answerWith(run: Run, first: First | undefined, config: SendConfig | undefined): SendAnswer | Promise<SendAnswer> {
    if (first && "message" in first) return { payload: { case: "message", value: first.message } };
    const answer = (stored: { task: TaskLike } | undefined): SendAnswer => {
      if (!stored) throw A2AErrors.taskNotFound(run.key.id);
      return { payload: { case: "task", value: view(stored.task, config?.historyLength) } };
    };
    if (mem) return answer(mem.get(run.key, run.entry));
    // The task as this run last stored it, when that ended its turn: no read that could fail once the task exists.
    const last = run.latest;
    if (last && endsTurn(last.task.status?.state ?? 0)) return answer(last);
    return store.tasks.get(run.key).then(answer, (e: unknown) => {
      if (!(e instanceof StoreUnavailableError)) throw e;
      // The store went away after the task was stored: what this run stored last, else an error that names the task.
      if (last) return answer(last);
      throw namingTask(run.key.id, e);
    });
  }

  return {
    sendMessage(req: AnyRequest, ctx: HandlerContext) {
      // A new task that a quick executor settles within its call (on the memory store) is answered within this one.
      try {
        const run = begin(req, ctx, false);
        return run instanceof Promise ? run.then((r) => sendAnswer(r, req, ctx)) : sendAnswer(run, req, ctx);
      } catch (e) {
        return Promise.reject(e);
      }
    },

    sendStreamingMessage(req: AnyRequest, ctx: HandlerContext) {
      return new TaskStream(
        async () => {
          requireStreaming(deps.card());
          const run = await begin(req, ctx, true);
          const sub = run.subscriber!;
          try {
            // The stream's first event waits for the executor: a Message reply, or the task once it is stored.
            const settled = run.first.done && run.first.value !== undefined && !ctx.signal.aborted;
            const first = settled ? run.first.value : await unlessAborted(run.first.promise, ctx.signal);
            if (first === undefined) return { first: [], follow: undefined, sub };
            if ("message" in first) return { first: [{ payload: { case: "message", value: first.message } }], follow: undefined, sub };
            const head = [{ payload: { case: "task", value: first.task } }];
            if (endsTask(first.task)) return { first: head, follow: undefined, sub };
            return { first: head, follow: subscribers.follow(sub, run.key, run.topic, first.version), sub };
          } catch (e) {
            sub.close();
            throw e;
          }
        },
        endsStream,
        () => ctx.signal,
      );
    },
  };
}

/**
 * The server's unary deadline came before the task's turn ended: its error
 * (made for this call, and answered once the signal's listeners ran) names
 * the task, which goes on, so that a client gets it instead of sending the
 * message again and having the work done twice.
 */
function nameOnDeadline(run: Run, reason: unknown): void {
  if (!(reason instanceof RpcError) || reason.code !== Code.DEADLINE_EXCEEDED || run.reply !== undefined) return;
  const id = run.key.id;
  reason.message = `${reason.message}; task ${id} goes on: get it with GetTask (or follow it with SubscribeToTask) rather than sending the message again`;
  reason.details.push(resourceInfo("task", `tasks/${id}`));
}

/** Waits for `p` unless the client goes away first (then undefined, `onAbort` called first). */
function unlessAborted<R>(p: Promise<R>, signal: AbortSignal, onAbort0?: () => void): Promise<R | undefined> {
  if (signal.aborted) return Promise.resolve(undefined);
  return new Promise((resolve, reject) => {
    const onAbort = () => {
      onAbort0?.();
      resolve(undefined);
    };
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener("abort", onAbort);
        resolve(v);
      },
      (e) => {
        signal.removeEventListener("abort", onAbort);
        reject(e);
      },
    );
  });
}
