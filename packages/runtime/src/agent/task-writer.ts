/**
 * The task writer: how a change of a task is stored and then published.
 * Every change is one event, committed at the version it was made from (the
 * store refuses a stale one: another instance changed the task in between,
 * and the change is made again on the task read anew), then handed to this
 * process's subscribers and to push delivery (execution.ts), under the
 * task's lock so that both see the events in their order.
 *
 * On the memory store (memory-store.ts's synchronous side) all of it is done
 * within the call: no promise, so a quick executor's publications cost no
 * ticks. Elsewhere each step is a promise.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { A2AErrors, isTerminal, TaskState } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import type { Execution } from "./execution.js";
import type { MemoryStoreSync, MemoryTaskHandle } from "./memory-store.js";
import type { PushDispatch } from "./push-dispatch.js";
import { DONE, type Run } from "./run.js";
import type { RunTable } from "./run-table.js";
import { StaleVersionError, StoreFullError, type AgentStore, type TaskKey } from "./store.js";
import type { Subscribers } from "./subscribers.js";
import type { TaskChange, TaskChanges } from "./task-changes.js";
import type { TaskLocks } from "./task-lock.js";
import { endsTurn, stateName, statusTime } from "./task-state.js";
import type { Content, TaskLike } from "./types.js";

/** Commits retried when another instance changed the task in between (then the task is read again). */
export const STALE_RETRIES = 5;

/** A task as stored, and its version. */
export type Stored = { task: TaskLike; version: number };

/** A change a run publishes, made on the task as stored at `at` (ms). */
export type Change = (task: TaskLike, at: number) => TaskChange;

export interface TaskWriterDeps {
  readonly store: AgentStore;
  /** The memory store's synchronous side, when the store is one. */
  readonly mem: MemoryStoreSync | undefined;
  readonly subscribers: Subscribers;
  readonly execution: Execution;
  readonly locks: TaskLocks;
  readonly runs: RunTable;
  readonly push: PushDispatch;
  readonly changes: Pick<TaskChanges, "agentMessage" | "statusChange" | "taskEvent">;
}

export class TaskWriter {
  constructor(private readonly deps: TaskWriterDeps) {}

  /**
   * Stores a change of the task as one event, then publishes it. On the
   * memory store it is done at once and answers the new version itself
   * rather than a promise of it. Throws (or rejects with) StaleVersionError
   * when the task is no longer at `version`.
   */
  commit(
    key: TaskKey,
    topic: string,
    version: number,
    task: TaskLike,
    event: ProtoMessage,
    entry?: MemoryTaskHandle,
  ): number | Promise<number> {
    const { mem, store } = this.deps;
    if (mem) {
      mem.commit(key, task, version, statusTime(task), event, entry);
      this.published(key, topic, version + 1, event, task);
      return version + 1;
    }
    return store.tasks.commit(key, task, version, statusTime(task), event).then(async () => {
      await this.published(key, topic, version + 1, event, task);
      return version + 1;
    });
  }

  /** Hands a stored event to subscribers and to push delivery; called under the task's lock. */
  private published(key: TaskKey, topic: string, seq: number, event: ProtoMessage, task: TaskLike): Promise<void> | undefined {
    this.deps.subscribers.publish(topic, seq, event);
    return this.deps.execution.delivered(key, event, task);
  }

  /** The task of `run` as stored now (storing a new one first). */
  async current(run: Run): Promise<Stored> {
    if (run.unstored) return this.storeFirst(run);
    if (run.latest) return run.latest;
    const stored = await this.deps.store.tasks.get(run.key);
    if (!stored) throw A2AErrors.taskNotFound(run.key.id);
    return stored;
  }

  /**
   * Stores the new task of `run`, which its executor has started to publish
   * on (or which must exist before it starts). On the memory store, without
   * a push config, it is done at once (no promise), so that a quick
   * executor's publications all happen in its own call.
   */
  storeFirst(run: Run): Stored | Promise<Stored> {
    const { mem, store, push, execution } = this.deps;
    const { task, pushConfig } = run.unstored!;
    const event = this.deps.changes.taskEvent(task);
    if (mem && !pushConfig) {
      try {
        run.entry = mem.create(run.key, task, statusTime(task), event);
      } catch (e) {
        throw storeFull(e);
      }
      run.unstored = undefined;
      this.published(run.key, run.topic, 1, event, task);
      return storedFirst(run, task);
    }
    return (async () => {
      try {
        await store.tasks.create(run.key, task, statusTime(task), event);
      } catch (e) {
        throw storeFull(e);
      }
      run.unstored = undefined;
      if (pushConfig) {
        await push.put(run.key, pushConfig);
        await execution.firstConfigStored(run.key, pushConfig.id);
      }
      const p = this.published(run.key, run.topic, 1, event, task);
      if (p) await p;
      return storedFirst(run, task);
    })();
  }

  /**
   * One publication of a run's executor: applied after its earlier ones (the
   * task's lock keeps their order), refused once the task's turn is over. On
   * the memory store, with nothing ahead of it, it is done within this call:
   * the settled DONE, nothing for the next publication to wait on.
   */
  publish(run: Run, change: Change | "reply", reply?: Content): Promise<void> {
    let p: Promise<void> | undefined;
    try {
      p = this.deps.locks.run(run.topic, () =>
        run.done || change === "reply" ? this.publishOther(run, change, reply) : this.apply(run, change),
      ) as Promise<void> | undefined;
    } catch (e) {
      p = Promise.reject(e);
    }
    run.chain = p;
    if (p === undefined) return DONE;
    // The executor may not await: its failure is reported by the promise it holds, never as an unhandled rejection.
    p.catch(() => {});
    return p;
  }

  /** A publication that is refused, or a reply. */
  private publishOther(run: Run, change: Change | "reply", reply?: Content): void | Promise<void> {
    if (run.done)
      throw A2AErrors.invalidAgentResponse(`task ${run.key.id} takes no more updates: it has ended, is waiting for input, or was canceled`);
    if (change !== "reply") return this.apply(run, change);
    const { agentMessage, statusChange } = this.deps.changes;
    const contextId = run.unstored?.task.contextId;
    if (contextId !== undefined) {
      // A reply before anything was stored: the answer is the Message, and no task is kept.
      const message = agentMessage(reply!, "", contextId);
      run.reply = message;
      run.unstored = undefined;
      run.done = true;
      run.first.resolve({ message });
      run.settled.resolve();
      return;
    }
    // The task exists already (returnImmediately, or a later turn): the reply completes it.
    return this.apply(run, (task, at) => statusChange(task, TaskState.COMPLETED, agentMessage(reply!, task.id, task.contextId), at));
  }

  /**
   * Applies a change to the task as stored now: within this call when the
   * task is at hand and the store answers at once (the memory store), else
   * a promise.
   */
  private apply(run: Run, change: Change, tries = 0): void | Promise<void> {
    const now = run.unstored ? this.storeFirst(run) : run.latest;
    if (now !== undefined && !(now instanceof Promise)) return this.applyTo(run, change, now, tries);
    return (now ?? this.current(run)).then((stored) => this.applyTo(run, change, stored, tries));
  }

  private applyTo(run: Run, change: Change, { task, version }: Stored, tries: number): void | Promise<void> {
    const before = task.status?.state ?? 0;
    if (isTerminal(before)) {
      // Ended elsewhere: canceled through another instance, or failed by one that took it over.
      this.deps.runs.stop(run, new RpcError(Code.CANCELLED, `task ${run.key.id} is ${stateName(before)}`));
      throw A2AErrors.invalidAgentResponse(`task ${run.key.id} takes no more updates: it is ${stateName(before)}`);
    }
    const next = change(task, Date.now());
    let v: number | Promise<number>;
    try {
      v = this.commit(run.key, run.topic, version, next.task, next.event, run.entry);
    } catch (e) {
      return this.retry(run, change, tries, e);
    }
    if (typeof v === "number") return this.committed(run, next.task, v);
    return v.then(
      (version2) => this.committed(run, next.task, version2),
      (e: unknown) => this.retry(run, change, tries, e),
    );
  }

  /** After a failed commit: once more on the task read again when another instance changed it in between. */
  private retry(run: Run, change: Change, tries: number, e: unknown): void | Promise<void> {
    run.latest = undefined;
    if (e instanceof StaleVersionError && tries < STALE_RETRIES) return this.apply(run, change, tries + 1);
    throw e;
  }

  private committed(run: Run, task: TaskLike, version: number): void {
    run.latest = { task, version };
    if (endsTurn(task.status?.state ?? 0)) {
      run.done = true;
      // The task takes a follow-up now, even before this executor has returned.
      this.deps.runs.release(run);
      run.settled.resolve();
    }
  }
}

function storedFirst(run: Run, task: TaskLike): Stored {
  run.latest = { task, version: 1 };
  run.first.resolve(run.latest);
  return run.latest;
}

function storeFull(e: unknown): unknown {
  return e instanceof StoreFullError ? new RpcError(Code.RESOURCE_EXHAUSTED, e.message) : e;
}
