/**
 * How tasks are executed: by this process alone (its store is its own:
 * memory, a PGlite directory) or by several instances on one shared store
 * (PostgreSQL; execution-distributed.ts). The engine talks to one
 * {@link Execution} and never asks which; this file holds the interface and
 * the local one.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { MemoryStoreSync } from "./memory-store.js";
import type { PushDispatch } from "./push-dispatch.js";
import type { PushSender } from "./push-sender.js";
import type { AgentStore, TaskKey } from "./store.js";
import type { TaskLike } from "./types.js";

export interface Execution {
  /**
   * A task's event was stored and handed to this process's subscribers: its
   * push deliveries. Called under the task's lock, so deliveries queue in the
   * events' order; undefined when done at once.
   */
  delivered(key: TaskKey, event: ProtoMessage, task: TaskLike): Promise<void> | undefined;
  /** A push config stored with a new task, after its first event: that event's delivery to it. */
  firstConfigStored(key: TaskKey, configId: string): Promise<void> | undefined;
  /**
   * Whether an executor may be at work on a task in `state` that no run of
   * this process holds: on a shared store the stored state tells (another
   * instance's executor works until the task ends or is interrupted).
   */
  mayRunElsewhere(state: number): boolean;
  /** Settles once this process hears of what other instances commit (at once when there are none). */
  readonly ready: Promise<void>;
  /** Stops what runs in the background (timers, listening, the outbox worker). */
  close(): Promise<void>;
}

/** Execution by this process alone: push deliveries are sent from here as events are stored. */
export class LocalExecution implements Execution {
  readonly ready = Promise.resolve();

  constructor(
    private readonly store: AgentStore,
    /** The memory store's synchronous side, when the store is one (memory-store.ts). */
    private readonly mem: MemoryStoreSync | undefined,
    private readonly push: PushDispatch,
    private readonly pushSender: PushSender | undefined,
    private readonly onError: (e: unknown) => void,
  ) {}

  delivered(key: TaskKey, event: ProtoMessage, task: TaskLike): Promise<void> | undefined {
    const sender = this.pushSender;
    if (!sender) return undefined;
    if (this.mem) {
      const configs = this.mem.pushConfigs(key);
      if (configs !== undefined && configs.size > 0) this.push.send(sender, key, configs.values(), event, task);
      return undefined;
    }
    return this.store.pushConfigs.list(key).then(
      (configs) => this.push.send(sender, key, configs, event, task),
      (e: unknown) => this.onError(e),
    );
  }

  firstConfigStored(): undefined {
    // `delivered` reads the task's configs as the first event goes out: the new one is among them.
    return undefined;
  }

  mayRunElsewhere(): boolean {
    return false;
  }

  async close(): Promise<void> {}
}
