/**
 * A run: one executor at work on one task, in this process, and what the
 * engine and its callers wait on (the first event, the task settled, the
 * executor returned). A run is owned by the engine's run table; this module
 * holds only its shape and the lazily made promises and signal it carries.
 */
import type { Subscriber } from "./event-hub.js";
import type { MemoryTaskHandle } from "./memory-store.js";
import type { PushConfigLike, TaskKey } from "./store.js";
import { topicOf } from "./task-key.js";
import type { MessageLike, TaskLike } from "./types.js";

/** One executor at work on one task, in this process. */
export interface Run {
  readonly topic: string;
  readonly key: TaskKey;
  readonly controller: LazyAbort;
  /** The new task before anything is stored (undefined once stored, or for a continued task). */
  unstored: { task: TaskLike; pushConfig: PushConfigLike | undefined } | undefined;
  /**
   * The task as this run last stored it, so a publication need not read it
   * back; a commit on a stale one is refused by the store's version check and
   * the task is read again (another instance may have canceled it).
   */
  latest: { task: TaskLike; version: number } | undefined;
  /** The Message the executor replied with instead of a task. */
  reply: MessageLike | undefined;
  /** The task in the memory store, once this run stored it there: found without a lookup. */
  entry: MemoryTaskHandle | undefined;
  /** Set once the task ended or was interrupted (or canceled): the executor can publish no more. */
  done: boolean;
  /** The last publication, while it may still be pending (one done at once leaves undefined). */
  chain: Promise<unknown> | undefined;
  /** A stream's subscription, made before the executor starts so that no event is missed. */
  subscriber: Subscriber | undefined;
  /**
   * Settles when the stream's first event is known: the stored task (and its
   * version) or the reply; rejects when the task could not be stored.
   */
  readonly first: Deferred<{ task: TaskLike; version: number } | { message: MessageLike }>;
  /** Settles when the task ends, is interrupted, or the executor replies or returns. */
  readonly settled: Deferred<void>;
  /** Settles when the executor has returned and its last publication is stored. */
  readonly returned: Deferred<void>;
}

export interface Deferred<T> {
  readonly promise: Promise<T>;
  resolve(value: T): void;
  reject(error: unknown): void;
  readonly done: boolean;
  /** Once resolved: the value, so that a caller that finds it done need not wait a tick for it. */
  readonly value: T | undefined;
}

/**
 * A promise settled from outside. Its promise is made on first use: most runs
 * never wait on some of theirs (`returned` only at shutdown, `settled` only for
 * a blocking SendMessage), and each promise (with the catch that keeps a
 * rejection nobody waits for quiet) is two allocations per request.
 */
class LazyDeferred<T> implements Deferred<T> {
  done = false;
  value: T | undefined = undefined;
  private error: unknown = undefined;
  private failed = false;
  private made: Promise<T> | undefined;
  private settle: ((v: T) => void) | undefined;
  private fail: ((e: unknown) => void) | undefined;

  get promise(): Promise<T> {
    if (this.made) return this.made;
    if (this.done) {
      this.made = this.failed ? Promise.reject(this.error) : Promise.resolve(this.value as T);
    } else {
      this.made = new Promise<T>((ok, fail) => {
        this.settle = ok;
        this.fail = fail;
      });
    }
    // Nobody may be waiting (a blocking SendMessage reads the store instead).
    this.made.catch(() => {});
    return this.made;
  }

  resolve(v: T): void {
    if (this.done) return;
    this.done = true;
    this.value = v;
    this.settle?.(v);
  }

  reject(e: unknown): void {
    if (this.done) return;
    this.done = true;
    this.failed = true;
    this.error = e;
    this.fail?.(e);
  }
}

/**
 * An AbortController made when its signal is first read: an executor that
 * never looks at its signal (most quick ones) costs no AbortSignal per task.
 * Aborted before, the signal is made aborted with the same reason.
 */
export class LazyAbort {
  private controller: AbortController | undefined;
  private reason: unknown = undefined;
  private aborted = false;

  get signal(): AbortSignal {
    if (this.controller) return this.controller.signal;
    if (this.aborted) return (this.made ??= AbortSignal.abort(this.reason));
    return (this.controller = new AbortController()).signal;
  }

  private made: AbortSignal | undefined;

  abort(reason: unknown): void {
    if (this.controller) return this.controller.abort(reason);
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
  }
}

function deferred<T>(): Deferred<T> {
  return new LazyDeferred<T>();
}

/** What a publication done at once answers. */
export const DONE: Promise<void> = Promise.resolve();

/** A run not started yet: nothing stored by it, nothing to wait on settled. */
export function newRun(key: TaskKey, controller: LazyAbort, unstored: Run["unstored"]): Run {
  const topic = topicOf(key);
  return {
    topic,
    key,
    controller,
    unstored,
    latest: undefined,
    reply: undefined,
    entry: undefined,
    done: false,
    chain: undefined,
    subscriber: undefined,
    first: deferred(),
    settled: deferred(),
    returned: deferred(),
  };
}
