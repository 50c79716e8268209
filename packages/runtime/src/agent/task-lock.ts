/**
 * The per-task lock: in this process, what is done to one task (a
 * publication, a follow-up's turn, a cancel, a sweep's takeover) runs after
 * everything before it on the same task, in order. It guards the read, change
 * and commit of a task against interleaving here; across instances the
 * store's versioned commit does (a stale one is refused and retried).
 */
export class TaskLocks {
  /** The tasks locked now (by topic), each with what waits for it, in order. */
  private readonly queues = new Map<string, (() => void)[]>();

  /**
   * Runs `fn` after every earlier one for the same task (in this process).
   * When nothing holds the task, `fn` starts at once, and the lock is taken
   * only if it returns a promise: nothing else runs during its synchronous
   * part, so a publication done at once on the memory store takes no lock and
   * makes nothing to wait on. Otherwise `fn` waits in the task's queue and
   * starts as soon as the one before it settles (in that one's settlement,
   * not ticks later): a publication costs its own promise and one reaction,
   * not a chain of five.
   */
  run<R>(topic: string, fn: () => Promise<R>): Promise<R>;
  run<R>(topic: string, fn: () => R | Promise<R>): R | Promise<R>;
  run<R>(topic: string, fn: () => R | Promise<R>): R | Promise<R> {
    const waiting = this.queues.get(topic);
    if (waiting === undefined) {
      const result = fn();
      if (result instanceof Promise) this.holdUntil(topic, result, []);
      return result;
    }
    return new Promise<R>((resolve, reject) =>
      waiting.push(() => {
        // Handed the lock: it is held until `fn` is done.
        let result: R | Promise<R>;
        try {
          result = fn();
        } catch (e) {
          this.unlock(topic);
          return reject(e);
        }
        if (result instanceof Promise) {
          this.holdUntil(topic, result, undefined);
          result.then(resolve, reject);
        } else {
          this.unlock(topic);
          resolve(result);
        }
      }),
    );
  }

  /** Holds the task's lock (taken now when `queue` is given) until `result` settles. */
  private holdUntil(topic: string, result: Promise<unknown>, queue: (() => void)[] | undefined): void {
    if (queue) this.queues.set(topic, queue);
    const free = () => this.unlock(topic);
    result.then(free, free);
  }

  /** Hands the task's lock to the first that waits for it, or frees it. */
  private unlock(topic: string): void {
    const waiting = this.queues.get(topic)!;
    const first = waiting.shift();
    if (first) first();
    else this.queues.delete(topic);
  }
}
