/**
 * Execution by several instances on one shared store (the SQL store's
 * `shared` side, store.ts's SharedStore): what makes them one agent.
 *
 * - Another instance's events reach this one's subscribers (caught up from
 *   the store, one catch-up at a time per task, in the order heard), and its
 *   runs: a task ended elsewhere (a cancel through another instance, a
 *   sweep) stops the run here.
 * - Leases: while a run here works on a task, its lease is renewed every
 *   third of its length; an instance that stops renewing (it died or lost the
 *   database) has its tasks FAILED by whichever instance sweeps them first.
 *   Leases survive outages of the database, however long: an instance whose
 *   renewal failed tries again every RENEW_RETRY_MS (at most a tenth of a
 *   lease) until it succeeds, and an instance sweeps only once it has itself
 *   been connected for a whole lease. Why that suffices: the database came
 *   back at T; a sweeper sweeps at T + lease at the earliest; a live
 *   instance's first renewal after T succeeds by T + a tenth of a lease (plus
 *   its statement's time) and holds its leases past T + 1.1 leases. So only
 *   an instance that stayed away from the database for a whole lease after it
 *   came back (dead, or cut off from it alone) loses its tasks.
 * - Push deliveries wait in the store's outbox, written with their event;
 *   any instance with a push sender sends them.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { isInterrupted, isTerminal, TaskState } from "../a2a.js";
import { startOutboxWorker, type OutboxWorker } from "./outbox-worker.js";
import type { Execution } from "./execution.js";
import type { PushDispatch } from "./push-dispatch.js";
import type { PushSender } from "./push-sender.js";
import type { RunTable } from "./run-table.js";
import { StaleVersionError, type AgentStore, type SharedStore, type TaskKey } from "./store.js";
import type { Subscribers } from "./subscribers.js";
import type { TaskChanges } from "./task-changes.js";
import { keyOfTopic, topicOf } from "./task-key.js";
import type { TaskLocks } from "./task-lock.js";
import { stateName, stateOfEvent, statusTime } from "./task-state.js";

/** Tasks the sweeper ends per round when their instance stopped. */
const SWEEP_BATCH = 50;
/** How soon a failed renewal is tried again (also at most a tenth of the lease). */
const RENEW_RETRY_MS = 1_000;

export interface DistributedExecutionDeps {
  readonly store: AgentStore;
  readonly shared: SharedStore;
  readonly runs: RunTable;
  readonly subscribers: Subscribers;
  readonly locks: TaskLocks;
  readonly changes: Pick<TaskChanges, "statusChange" | "agentMessage">;
  readonly push: PushDispatch;
  /** Without one this instance sends nothing; instances with one send the shared outbox. */
  readonly pushSender: PushSender | undefined;
  /** Whether the user's service has push configs at all. */
  readonly hasPush: boolean;
  readonly onError: (e: unknown) => void;
}

export class DistributedExecution implements Execution {
  readonly ready: Promise<void>;
  private readonly shared: SharedStore;
  /** One catch-up at a time per task (by topic), in the order the notifications came. */
  private readonly catchingUp = new Map<string, Promise<void>>();
  private readonly timers: ReturnType<typeof setInterval>[] = [];
  private readonly outbox: OutboxWorker | undefined;
  private unwatch: (() => Promise<void>) | undefined;
  /** Since when this instance's statements have succeeded without a break (undefined: not since its last failure). */
  private connectedSince: number | undefined;
  /** When the leases are next renewed; 0 after a failed renewal (tried again at the next short tick). */
  private renewAt = 0;

  constructor(private readonly deps: DistributedExecutionDeps) {
    const shared = (this.shared = deps.shared);
    this.ready = shared
      .watch(
        (key, seq) => this.onRemoteEvent(key, seq),
        () => this.onMissedEvents(),
      )
      .then(
        (stop) => void (this.unwatch = stop),
        (e: unknown) => deps.onError(e),
      );
    this.every(Math.max(10, Math.min(RENEW_RETRY_MS, Math.floor(shared.leaseMs / 10))), () => this.renewLeases());
    this.every(Math.max(10, Math.floor(shared.leaseMs / 2)), () => this.sweepExpired());
    if (deps.hasPush && deps.pushSender) {
      this.outbox = startOutboxWorker(shared.outbox, deps.pushSender, { body: deps.push.outboxBody, onError: deps.onError });
    }
  }

  delivered(): undefined {
    // The store queued the push deliveries in the event's transaction: any instance sends them.
    this.outbox?.kick();
    return undefined;
  }

  firstConfigStored(key: TaskKey, configId: string): Promise<void> {
    // Stored after the task's first event, which the store's commit could not queue for it.
    return this.shared.outbox.enqueue(key, configId, 1);
  }

  mayRunElsewhere(state: number): boolean {
    return !isInterrupted(state);
  }

  async close(): Promise<void> {
    for (const t of this.timers) clearInterval(t);
    await this.ready;
    await this.unwatch?.();
    await this.outbox?.close();
  }

  /** Runs `fn` every `ms`, one at a time, until the engine closes; its failures go to onError. */
  private every(ms: number, fn: () => Promise<void>): void {
    let busy = false;
    const t = setInterval(() => {
      if (busy || this.deps.runs.closed) return;
      busy = true;
      fn().then(
        () => (busy = false),
        (e: unknown) => {
          busy = false;
          this.deps.onError(e);
        },
      );
    }, ms);
    t.unref?.();
    this.timers.push(t);
  }

  /** Another instance committed event `seq` of a task: to this one's subscribers, and to its runs (a cancel). */
  private onRemoteEvent(key: TaskKey, seq: number): void {
    const topic = topicOf(key);
    if (!this.deps.subscribers.has(topic) && !this.deps.runs.liveOn(topic, false)) return;
    const before = this.catchingUp.get(topic) ?? Promise.resolve();
    const next = before.then(() => this.catchUp(key, topic, seq)).catch(this.deps.onError);
    this.catchingUp.set(topic, next);
    void next.then(() => {
      if (this.catchingUp.get(topic) === next) this.catchingUp.delete(topic);
    });
  }

  /** Hands subscribers the task's events they lack, and stops a run here whose task another instance ended. */
  private async catchUp(key: TaskKey, topic: string, seq: number): Promise<void> {
    const { subscribers, store } = this.deps;
    let ended: number | undefined;
    if (subscribers.has(topic)) {
      const from = subscribers.handedUpTo(topic) ?? seq - 1;
      if (seq <= from) return;
      for (const e of await store.tasks.events(key, from)) {
        subscribers.publish(topic, e.seq, e.event);
        const state = stateOfEvent(e.event);
        if (isTerminal(state)) ended = state;
      }
    } else {
      const stored = await store.tasks.get(key);
      const state = stored?.task.status?.state ?? 0;
      if (isTerminal(state)) ended = state;
    }
    if (ended !== undefined) {
      const how = ended === TaskState.CANCELED ? "canceled" : `ended (${stateName(ended)})`;
      this.deps.runs.stopTask(topic, `task ${key.id} was ${how} through another instance`);
    }
  }

  /** After notifications may have been lost: every task followed here catches up from the store. */
  private onMissedEvents(): void {
    // The listening connection came back: the database may have been away, so no sweep for a lease from now.
    this.connectedSince = Date.now();
    const keys = new Map<string, TaskKey>();
    for (const run of this.deps.runs.liveRuns()) if (!run.done) keys.set(run.topic, run.key);
    for (const topic of this.deps.subscribers.topics()) if (!keys.has(topic)) keys.set(topic, keyOfTopic(topic));
    for (const [topic, key] of keys) this.onRemoteEvent(key, (this.deps.subscribers.handedUpTo(topic) ?? 0) + 1);
  }

  /** The leases of the tasks whose executors run here, renewed every third of a lease, and soon again after a failure. */
  private async renewLeases(): Promise<void> {
    const now = Date.now();
    if (now < this.renewAt) return;
    const keys = this.deps.runs
      .liveRuns()
      .filter((r) => !r.done && !r.unstored && !r.reply)
      .map((r) => r.key);
    try {
      await this.shared.renew(keys);
    } catch (e) {
      // Tried again at the next short tick (its reports are thinned out by the engine: fault-reports.ts).
      this.renewAt = 0;
      this.connectedSince = undefined;
      throw e;
    }
    this.renewAt = now + Math.floor(this.shared.leaseMs / 3);
  }

  /** Ends the tasks of instances that stopped renewing their leases (they died or lost the database). */
  private async sweepExpired(): Promise<void> {
    const { runs, changes, locks, subscribers } = this.deps;
    let expired: Awaited<ReturnType<SharedStore["expired"]>>;
    try {
      expired = await this.shared.expired(SWEEP_BATCH);
    } catch (e) {
      this.connectedSince = undefined;
      throw e;
    }
    this.connectedSince ??= Date.now();
    // Not until this instance has been connected for a whole lease: the owners of those leases may just be back too.
    if (Date.now() - this.connectedSince < this.shared.leaseMs) return;
    for (const t of expired) {
      const topic = topicOf(t.key);
      // Our own lease lapsed while the run goes on here (a stalled event loop): renewing is the answer, not failing.
      if (t.holder === this.shared.instance && runs.liveOn(topic, true)) continue;
      const reason =
        "the agent instance that was working on this task stopped renewing its lease (it stopped or lost the database); the task cannot go on";
      const next = changes.statusChange(t.task, TaskState.FAILED, changes.agentMessage(reason, t.key.id, t.task.contextId), Date.now());
      try {
        await this.shared.takeOver(t.key, next.task, t.version, statusTime(next.task), next.event);
      } catch (e) {
        // Renewed, or ended, or taken over by another instance in between: nothing to do.
        if (e instanceof StaleVersionError) continue;
        throw e;
      }
      const event: ProtoMessage = next.event;
      await locks.run(topic, async () => {
        subscribers.publish(topic, t.version + 1, event);
        this.delivered();
      });
    }
  }
}
