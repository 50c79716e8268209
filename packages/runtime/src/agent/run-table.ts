/**
 * Which runs this process has, the one owner of the two sets the engine
 * keeps of them: the run that holds each task's turn (a follow-up message
 * waits until it ends or is interrupted), and every run whose executor has
 * not returned yet (what a cancel, another instance's end of the task, and
 * shutdown abort). Also whether the engine is closing: no run starts then.
 */
import { RpcError, Code } from "../errors.js";
import type { Run } from "./run.js";

export class RunTable {
  /** The run that holds each task's turn, by topic. */
  private readonly holders = new Map<string, Run>();
  /** Every run whose executor has not returned. */
  private readonly live = new Set<Run>();
  /** Set by `close()`: the engine starts no run, and a run that ends unfinished fails its task. */
  closed = false;

  /** Whether a run here holds the task's turn. */
  holds(topic: string): boolean {
    return this.holders.has(topic);
  }

  /** `run` now holds its task's turn. */
  hold(run: Run): void {
    this.holders.set(run.topic, run);
  }

  /** `run` no longer holds its task's turn (a later run may, then nothing changes). */
  release(run: Run): void {
    if (this.holders.get(run.topic) === run) this.holders.delete(run.topic);
  }

  /** The executor of `run` was called. */
  started(run: Run): void {
    this.live.add(run);
  }

  /** The executor of `run` returned and its last publication settled: it ends here. */
  returned(run: Run): void {
    this.release(run);
    this.live.delete(run);
    run.done = true;
    run.settled.resolve();
    if (!run.first.done) run.first.reject(new RpcError(Code.INTERNAL, "the task could not be stored"));
    run.returned.resolve();
  }

  /** Ends a run from outside (cancel, another instance): its executor's signal fires and it can publish no more. */
  stop(run: Run, reason: RpcError): void {
    run.done = true;
    this.release(run);
    run.settled.resolve();
    run.controller.abort(reason);
  }

  /** Stops every run of the task here, with `why` as the reason its executor's signal gives. */
  stopTask(topic: string, why: string): void {
    // A run that stopped publishing (INPUT_REQUIRED) may still be at work: its signal fires too.
    for (const run of this.live) if (run.topic === topic) this.stop(run, new RpcError(Code.CANCELLED, why));
    // A follow-up whose turn is stored but whose executor has not started yet (the lock
    // hands over before the follow-up's own code goes on): it starts stopped.
    const next = this.holders.get(topic);
    if (next && !this.live.has(next)) this.stop(next, new RpcError(Code.CANCELLED, why));
  }

  /** Whether an executor of this task is live here (still publishing, when `publishing`); every notification asks, so no copy of the set. */
  liveOn(topic: string, publishing: boolean): boolean {
    for (const r of this.live) if (r.topic === topic && !(publishing && r.done)) return true;
    return false;
  }

  /** The runs whose executors have not returned (a snapshot). */
  liveRuns(): Run[] {
    return [...this.live];
  }

  /**
   * Closes the table: no run starts from now, every live executor's signal
   * fires with UNAVAILABLE, and the answer settles when they have returned or
   * after `waitMs` (an executor that ignores its signal must not hold shutdown).
   */
  async close(waitMs: number): Promise<void> {
    this.closed = true;
    const running = [...this.live];
    for (const run of running) run.controller.abort(new RpcError(Code.UNAVAILABLE, "the agent is shutting down"));
    let timer: ReturnType<typeof setTimeout> | undefined;
    await Promise.race([
      Promise.all(running.map((r) => r.returned.promise)),
      new Promise((resolve) => (timer = setTimeout(resolve, waitMs))),
    ]);
    clearTimeout(timer);
  }
}
