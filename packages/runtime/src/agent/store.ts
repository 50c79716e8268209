/**
 * The engine's storage, behind interfaces small enough for a durable and a
 * shared store (the PostgreSQL one implements the same):
 *
 * - a task and its events are written together: every change of a task is
 *   one event, and the task's version is the sequence number of its last
 *   event, so a write names the version it read (a stale one is refused)
 *   and a reader resumes after the last sequence number it saw;
 * - every lookup is by (tenant, owner, id): another owner's task is simply
 *   not there.
 *
 * Stores keep what they are given and hand it back as it is: the engine
 * never changes an object once it has passed it to a store (it copies on
 * write), and never hands a stored object to code that could.
 */
import type { DescMessage, Message as ProtoMessage } from "@bufbuild/protobuf";
import { Code, RpcError, retryInfo } from "../errors.js";

/** How soon a client is told to try again while the store is away. */
const RETRY_AFTER_MS = 1_000;
import type { TaskLike } from "./types.js";

/** Who a task belongs to, and its id. */
export interface TaskKey {
  readonly tenant: string;
  readonly owner: string;
  readonly id: string;
}

export interface StoredTask<Task extends TaskLike = TaskLike> {
  readonly task: Task;
  /** The sequence number of the task's last event. */
  readonly version: number;
  /**
   * The trace context of the request that created the task, as `create` was
   * given it (telemetry on; a store that keeps it, the SQL store): what
   * another instance's spans of the task link to. Never part of an answer.
   */
  readonly trace?: string | undefined;
}

export interface StoredEvent<Event extends ProtoMessage = ProtoMessage> {
  /** 1 for the task's first event (the Task itself), then one more per change. */
  readonly seq: number;
  /** An lf.a2a.v1.StreamResponse. */
  readonly event: Event;
}

/** A ListTasks query, already checked by the engine. */
export interface TaskQuery {
  readonly tenant: string;
  readonly owner: string;
  /** "" for any. */
  readonly contextId: string;
  /** 0 for any. */
  readonly state: number;
  /** Only tasks whose status changed at or after this time (ms since the epoch); undefined for any. */
  readonly updatedSince: number | undefined;
  /** 1..100. */
  readonly pageSize: number;
  /** After this position (a decoded page token); undefined for the first page. */
  readonly after: PagePosition | undefined;
}

/** Where a page ends, in the list's order: newest status first, then id descending. */
export interface PagePosition {
  readonly updatedAt: number;
  readonly id: string;
}

export interface TaskPage<Task extends TaskLike = TaskLike> {
  readonly tasks: Task[];
  /** Tasks that match the query, over all pages. */
  readonly total: number;
  /** Where the next page starts; undefined on the last page. */
  readonly next: PagePosition | undefined;
}

/** Thrown by {@link TaskStore.commit} when the task changed since it was read. */
export class StaleVersionError extends Error {
  constructor(
    readonly key: TaskKey,
    readonly expected: number,
    readonly actual: number,
  ) {
    super(`task ${key.id} is at version ${actual}, not ${expected}`);
    this.name = "StaleVersionError";
  }
}

/**
 * Thrown by a store that cannot be reached now (its connection failed, the
 * server is shutting down or out of connections, a statement timed out): a
 * transient fault, not the request's. A write that failed so may have been
 * made all the same (`mayHaveWritten`): the engine reads the task again
 * before it tries the write anew (task-writer.ts). It is an RpcError
 * (UNAVAILABLE) so that a request that meets it answers 503 / UNAVAILABLE,
 * which a client may retry, with a message that names no internals (the
 * store's error is the `cause`).
 */
export class StoreUnavailableError extends RpcError {
  constructor(
    readonly mayHaveWritten: boolean,
    cause: unknown,
    message = "the agent's task store cannot be reached now; try again shortly",
  ) {
    // RetryInfo: every binding then says when to try again (HTTP+JSON also as Retry-After).
    super(Code.UNAVAILABLE, message, [retryInfo(RETRY_AFTER_MS)], { cause });
    this.name = "StoreUnavailableError";
  }
}

/** Thrown by {@link TaskStore.create} when the store cannot take another task. */
export class StoreFullError extends Error {
  constructor(message = "the task store is full") {
    super(message);
    this.name = "StoreFullError";
  }
}

export interface TaskStore<Task extends TaskLike = TaskLike, Event extends ProtoMessage = ProtoMessage> {
  /** The task, or undefined when there is none under this key. */
  get(key: TaskKey): Promise<StoredTask<Task> | undefined>;
  /**
   * Stores a new task at version 1 with its first event; `trace` (telemetry
   * on) is the creating request's trace context, which a shared store keeps
   * for {@link StoredTask.trace} and {@link OutboxItem.trace} and never answers.
   */
  create(key: TaskKey, task: Task, updatedAt: number, event: Event, trace?: string): Promise<void>;
  /**
   * Replaces the task, at version `expected + 1`, and appends its event with
   * that sequence number, in one step. Throws {@link StaleVersionError} when
   * the stored version is not `expected`.
   */
  commit(key: TaskKey, task: Task, expected: number, updatedAt: number, event: Event): Promise<void>;
  /** One page of the owner's tasks, newest status first. */
  list(query: TaskQuery): Promise<TaskPage<Task>>;
  /** The task's events after `afterSeq`, in order (those the store still has). */
  events(key: TaskKey, afterSeq: number): Promise<StoredEvent<Event>[]>;
}

/** A push config as stored: lf.a2a.v1.TaskPushNotificationConfig. */
export interface PushConfigLike extends ProtoMessage {
  tenant: string;
  id: string;
  taskId: string;
  url: string;
  token: string;
  authentication?: { scheme: string; credentials: string } | undefined;
}

/** Push configs, by the key of their task (so, like tasks, per owner). */
export interface PushConfigStore<Config extends PushConfigLike = PushConfigLike> {
  /** Adds or replaces the config of that id. */
  put(key: TaskKey, config: Config): Promise<void>;
  get(key: TaskKey, id: string): Promise<Config | undefined>;
  /** In the order they were first put. */
  list(key: TaskKey): Promise<Config[]>;
  /** True when there was one. */
  delete(key: TaskKey, id: string): Promise<boolean>;
}

/** The messages of the user's a2a.proto that a store writes and reads. */
export interface StoreSchemas {
  /** lf.a2a.v1.Task */
  readonly task: DescMessage;
  /** lf.a2a.v1.StreamResponse: the events. */
  readonly event: DescMessage;
  /** lf.a2a.v1.TaskPushNotificationConfig, when the service has push rpcs. */
  readonly pushConfig: DescMessage | undefined;
}

/** Both stores, as the engine takes them. */
export interface AgentStore {
  readonly tasks: TaskStore;
  readonly pushConfigs: PushConfigStore;
  /**
   * Called by the engine once, before anything else: a store that serializes
   * (the SQL one) learns the user's message types here. A store belongs to one
   * engine.
   */
  bind?(schemas: StoreSchemas): void;
  /** Present when several agent instances share the store: see {@link SharedStore}. */
  readonly shared?: SharedStore;
  /**
   * Resolves once the store answered a trivial request (the SQL store: one
   * `SELECT 1`), rejects when it cannot: what an agent's readiness asks
   * (agent/readiness.ts), which bounds the wait and never calls it after
   * `close()`. A store without it counts as always answering.
   */
  ping?(): Promise<void>;
  /** Releases what the store holds (timers, connections). */
  close?(): Promise<void>;
}

/**
 * What makes several instances of an agent one agent (the SQL store): events
 * another instance wrote reach this one's subscribers and executors, a task
 * whose instance died is taken over, and push deliveries wait in an outbox
 * that any instance sends from.
 *
 * The store's `commit` and `create` give the task a lease in this instance's
 * name while its state is neither terminal nor interrupted (an executor is at
 * work on it), and drop it otherwise.
 */
export interface SharedStore {
  /** This instance's name, in leases and outbox claims. */
  readonly instance: string;
  /** How long a lease lasts unless renewed. */
  readonly leaseMs: number;
  /**
   * Calls `onEvent` for each event another instance commits (its task and
   * sequence number; the event itself is read with `tasks.events`), and
   * `onMissed` when notifications may have been lost (the database
   * connection came back): the engine then catches up on every task it follows.
   */
  watch(onEvent: (key: TaskKey, seq: number) => void, onMissed: () => void): Promise<() => Promise<void>>;
  /** Extends this instance's leases on these tasks. */
  renew(keys: readonly TaskKey[]): Promise<void>;
  /** Tasks whose lease ran out (their instance stopped renewing), at most `limit`. */
  expired(limit: number): Promise<StoredTaskWithKey[]>;
  /**
   * Like `tasks.commit`, but only while the task's lease is still expired:
   * how an instance ends a task another instance left behind.
   * Throws {@link StaleVersionError} otherwise.
   */
  takeOver(key: TaskKey, task: TaskLike, expected: number, updatedAt: number, event: ProtoMessage): Promise<void>;
  readonly outbox: PushOutbox;
}

export interface StoredTaskWithKey extends StoredTask {
  readonly key: TaskKey;
  /** The instance whose lease ran out. */
  readonly holder: string;
}

/** One push notification waiting in the outbox: one event for one config. */
export interface OutboxItem {
  readonly id: string;
  readonly key: TaskKey;
  readonly config: PushConfigLike;
  /** An lf.a2a.v1.StreamResponse. */
  readonly event: ProtoMessage;
  /** Attempts made so far. */
  readonly attempts: number;
  /** The task's trace context ({@link StoredTask.trace}): the attempt continues that trace. */
  readonly trace?: string | undefined;
}

/**
 * Push deliveries written in the same transaction as their event (the store's
 * commit adds one per push config of the task), sent at least once, in order
 * per config, by whichever instance claims them.
 */
export interface PushOutbox {
  /** Adds the delivery of event `seq` to one config (for a config stored after its event). */
  enqueue(key: TaskKey, configId: string, seq: number): Promise<void>;
  /** Claims up to `limit` due deliveries, each the oldest one left of its config, for `claimMs`. */
  claim(limit: number, claimMs: number): Promise<OutboxItem[]>;
  /** Sent, or given up: removes it. */
  done(id: string): Promise<void>;
  /** Failed for now: tries again at `nextAt` (ms since the epoch). */
  retry(id: string, attempts: number, nextAt: number): Promise<void>;
  /** Deliveries waiting, claimed or not (the outbox depth metric; optional for a store of one's own). */
  depth?(): Promise<number>;
}
