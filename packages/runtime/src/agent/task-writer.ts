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
import { Code, resourceInfo, RpcError } from "../errors.js";
import { telemetry } from "../telemetry.js";
import type { Execution } from "./execution.js";
import type { MemoryStoreSync, MemoryTaskHandle } from "./memory-store.js";
import type { PushDispatch } from "./push-dispatch.js";
import { DONE, type Run } from "./run.js";
import type { RunTable } from "./run-table.js";
import { StaleVersionError, StoreFullError, StoreUnavailableError, type AgentStore, type TaskKey } from "./store.js";
import type { Subscribers } from "./subscribers.js";
import type { TaskChange, TaskChanges } from "./task-changes.js";
import type { TaskLocks } from "./task-lock.js";
import { endsTurn, stateName, statusTime } from "./task-state.js";
import type { Content, TaskLike } from "./types.js";

/** Commits retried when another instance changed the task in between (then the task is read again). */
export const STALE_RETRIES = 5;

/** The first wait before a write the store could not take is tried again; it doubles up to {@link MAX_BACKOFF_MS}. */
const FIRST_BACKOFF_MS = 100;
const MAX_BACKOFF_MS = 5_000;

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
  /** Whether two tasks are the same (protobuf equality): whether a write whose outcome was unknown was made. */
  readonly sameTask: (a: TaskLike, b: TaskLike) => boolean;
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
   * executor's publications all happen in its own call. A request that
   * stores it before the executor starts (`retry` false) hears at once that
   * the store cannot be reached; an executor's publication waits until it can.
   */
  storeFirst(run: Run, retry = true): Stored | Promise<Stored> {
    const { mem, push, execution } = this.deps;
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
      await this.create(run, task, event, retry);
      run.unstored = undefined;
      // The task exists from here: what follows is waited for (the run goes on with its task), and an error names the task.
      try {
        if (pushConfig) {
          await this.whileUnreachable(() => push.put(run.key, pushConfig));
          await this.whileUnreachable(async () => await execution.firstConfigStored(run.key, pushConfig.id));
        }
        const p = this.published(run.key, run.topic, 1, event, task);
        if (p) await p;
      } catch (e) {
        throw e instanceof StoreUnavailableError ? namingTask(run.key.id, e) : e;
      }
      return storedFirst(run, task);
    })();
  }

  /** Runs `step` until the store answers it (a step safe to repeat), with backoff; gives up once the engine closes. */
  private async whileUnreachable(step: () => Promise<void>): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      try {
        return await step();
      } catch (e) {
        if (!(e instanceof StoreUnavailableError)) throw e;
        await this.backoff(attempt, e);
      }
    }
  }

  /**
   * Creates the task; while the store cannot be reached, tries again with
   * backoff until it can or the engine closes. A create whose outcome was
   * unknown and that was made is found by reading the task.
   */
  private async create(run: Run, task: TaskLike, event: ProtoMessage, retry: boolean): Promise<void> {
    const { store, sameTask } = this.deps;
    // With telemetry on, the creating request's trace (or its run's), which a shared store keeps for other instances.
    const trace = telemetry.on?.taskTrace();
    for (let attempt = 0; ; attempt++) {
      try {
        await (trace === undefined
          ? store.tasks.create(run.key, task, statusTime(task), event)
          : store.tasks.create(run.key, task, statusTime(task), event, trace));
        return;
      } catch (e) {
        if (!retry || !(e instanceof StoreUnavailableError) || this.deps.runs.closed) throw storeFull(e);
        await this.backoff(attempt, e);
        const stored = await this.readWhenReachable(run.key);
        if (stored && stored.version === 1 && sameTask(stored.task, task)) return;
      }
    }
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
      return this.retry(run, change, tries, e, version, next);
    }
    if (typeof v === "number") return this.committed(run, next.task, v);
    return v.then(
      (version2) => this.committed(run, next.task, version2),
      (e: unknown) => this.retry(run, change, tries, e, version, next),
    );
  }

  /**
   * After a failed commit: made again on the task read anew when another
   * instance changed it in between; when the store could not be reached,
   * tried again once it can (task-writer.ts's header), so that a run's
   * publications, its final state above all, are not lost while it lives.
   */
  private retry(run: Run, change: Change, tries: number, e: unknown, version: number, next: TaskChange): void | Promise<void> {
    run.latest = undefined;
    if (e instanceof StaleVersionError && tries < STALE_RETRIES) return this.apply(run, change, tries + 1);
    if (e instanceof StoreUnavailableError && !this.deps.runs.closed) return this.whenReachable(run, change, tries, e, version, next);
    throw e;
  }

  /**
   * Waits (with backoff) until the store answers, then: when the failed
   * write was made after all (its outcome was unknown), it is published as
   * committed; else the change is made again on the task as stored now.
   */
  private async whenReachable(
    run: Run,
    change: Change,
    tries: number,
    e: StoreUnavailableError,
    version: number,
    next: TaskChange,
  ): Promise<void> {
    await this.backoff(0, e);
    const stored = await this.readWhenReachable(run.key);
    if (!stored) throw A2AErrors.taskNotFound(run.key.id);
    if (e.mayHaveWritten && stored.version === version + 1 && this.deps.sameTask(stored.task, next.task)) {
      await this.published(run.key, run.topic, version + 1, next.event, next.task);
      return this.committed(run, next.task, version + 1);
    }
    run.latest = stored;
    return this.apply(run, change, tries);
  }

  /** The task as stored, read as soon as the store answers (undefined when there is none); gives up once the engine closes. */
  private async readWhenReachable(key: TaskKey): Promise<Stored | undefined> {
    for (let attempt = 1; ; attempt++) {
      try {
        return await this.deps.store.tasks.get(key);
      } catch (again) {
        if (!(again instanceof StoreUnavailableError)) throw again;
        await this.backoff(attempt, again);
      }
    }
  }

  /** Waits before trying the store again: 100 ms doubled per attempt up to 5 s; throws `e` once the engine closes. */
  private async backoff(attempt: number, e: unknown): Promise<void> {
    if (this.deps.runs.closed) throw e;
    await new Promise((resolve) => setTimeout(resolve, Math.min(MAX_BACKOFF_MS, FIRST_BACKOFF_MS * 2 ** attempt)));
    if (this.deps.runs.closed) throw e;
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

/** The store's fault once task `id` exists: the answer names it, so that a client gets it rather than sending again. */
export function namingTask(id: string, e: StoreUnavailableError): StoreUnavailableError {
  if (e.message.includes(id)) return e;
  const named = new StoreUnavailableError(
    e.mayHaveWritten,
    e,
    `task ${id} was created, but the agent's task store cannot be reached now; get it with GetTask shortly rather than sending the message again`,
  );
  named.details.push(resourceInfo("task", `tasks/${id}`));
  return named;
}

function storeFull(e: unknown): unknown {
  return e instanceof StoreFullError ? new RpcError(Code.RESOURCE_EXHAUSTED, e.message) : e;
}
