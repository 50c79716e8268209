/**
 * The default store: everything in this process's memory, bounded so that no
 * client can make the agent run out of it.
 */
import {
  StaleVersionError,
  StoreFullError,
  type AgentStore,
  type PagePosition,
  type PushConfigLike,
  type PushConfigStore,
  type StoredEvent,
  type StoredTask,
  type TaskKey,
  type TaskPage,
  type TaskQuery,
  type TaskStore,
} from "./store.js";
import { isTerminal, type TaskLike } from "./types.js";

export interface MemoryStoreOptions {
  /** Most tasks held at once. Default 10 000. */
  readonly maxTasks?: number;
  /** How long a task is kept after it ended (COMPLETED, FAILED, CANCELED, REJECTED). Default 1 hour. */
  readonly terminalTtlMs?: number;
  /**
   * Most events kept per task (the oldest go first; a reader that far behind
   * gets the rest). Default 100. Once a task has ended only its last event is
   * kept: nobody can subscribe to it any more.
   */
  readonly maxEventsPerTask?: number;
  /** Most push configs per task. Default 10. */
  readonly maxPushConfigsPerTask?: number;
  /** The clock, for tests. */
  readonly now?: () => number;
}

interface Entry {
  readonly key: TaskKey;
  task: TaskLike;
  version: number;
  updatedAt: number;
  /** When the task ended, for the TTL; undefined while it is live. */
  endedAt: number | undefined;
  /** Set once removed, so the queue of ended tasks can skip it. */
  removed: boolean;
  readonly events: StoredEvent[];
  /** Made with the first config: most tasks have none. */
  pushConfigs: Map<string, PushConfigLike> | undefined;
}

const NO_CONFIGS: ReadonlyMap<string, PushConfigLike> = new Map();

/** A stored task as the memory store's create() answered it: its entry, opaque to the engine. */
export type MemoryTaskHandle = { readonly memoryTask: never };

/**
 * The memory store's operations done at once, for the engine on its default
 * store: each `await` of an async store call costs promises and ticks per
 * published event, where the work itself is a few map lookups. Same
 * behaviour as the async methods (which call these).
 */
export interface MemoryStoreSync {
  /** As `tasks.get`; with the task's handle, without looking the task up. */
  get(key: TaskKey, handle?: MemoryTaskHandle): StoredTask | undefined;
  /**
   * As `tasks.create`; throws {@link StaleVersionError} or {@link StoreFullError}.
   * Answers a handle on the task, for get() and commit() to find it by.
   */
  create(key: TaskKey, task: TaskLike, updatedAt: number, event: StoredEvent["event"]): MemoryTaskHandle;
  /** As `tasks.commit`; throws {@link StaleVersionError}. With the task's handle, without looking the task up. */
  commit(key: TaskKey, task: TaskLike, expected: number, updatedAt: number, event: StoredEvent["event"], handle?: MemoryTaskHandle): void;
  /** The task's push configs by id, in the order they were first put; undefined when there is no such task. */
  pushConfigs(key: TaskKey): ReadonlyMap<string, PushConfigLike> | undefined;
}

const syncOf = new WeakMap<
  AgentStore,
  { tasks: TaskStore; pushConfigs: PushConfigStore; sync: MemoryStoreSync; methods: readonly unknown[] }
>();

/**
 * The synchronous side of a store made by {@link createMemoryStore}, while its
 * methods are still the ones it was made with (a wrapped or patched store gets
 * undefined, so the engine goes through the methods).
 */
export function memoryStoreSync(store: AgentStore): MemoryStoreSync | undefined {
  const s = syncOf.get(store);
  if (!s || s.tasks !== store.tasks || s.pushConfigs !== store.pushConfigs) return undefined;
  const now = [store.tasks.get, store.tasks.commit, store.tasks.create, store.pushConfigs.list, store.pushConfigs.put];
  return now.every((m, i) => m === s.methods[i]) ? s.sync : undefined;
}

/** Tasks, events and push configs in memory (the engine's default). */
export function createMemoryStore(options: MemoryStoreOptions = {}): AgentStore {
  const maxTasks = options.maxTasks ?? 10_000;
  const ttl = options.terminalTtlMs ?? 3_600_000;
  const maxEvents = options.maxEventsPerTask ?? 100;
  const maxConfigs = options.maxPushConfigsPerTask ?? 10;
  const now = options.now ?? Date.now;
  // Tasks by tenant, owner, then id: every lookup is within one owner (maps
  // by each string rather than by a string made of the two, which each
  // lookup would have to build and hash).
  const scopes = new Map<string, Map<string, Map<string, Entry>>>();
  // Ended tasks in the order they ended, for the TTL and for making room: an
  // array read from `head` (a Set with many deletes makes each walk from its
  // front slow); removed entries are skipped and the array compacted now and then.
  let ended: (Entry | undefined)[] = [];
  let head = 0;
  let count = 0;

  const scopeOf = (key: { tenant: string; owner: string }) => scopes.get(key.tenant)?.get(key.owner);
  const find = (key: TaskKey) => scopeOf(key)?.get(key.id);

  function remove(entry: Entry): void {
    const { tenant, owner, id } = entry.key;
    const owners = scopes.get(tenant);
    const scope = owners?.get(owner);
    if (scope?.get(id) !== entry) return;
    scope.delete(id);
    if (scope.size === 0) {
      owners!.delete(owner);
      if (owners!.size === 0) scopes.delete(tenant);
    }
    entry.removed = true;
    count--;
  }

  /** The task that ended longest ago and is still here. */
  function oldestEnded(): Entry | undefined {
    // A slot passed is cleared: the removed task goes at the next GC, not when the array is next compacted.
    while (head < ended.length && ended[head]!.removed) ended[head++] = undefined;
    if (head > 1024 && head * 2 > ended.length) {
      ended = ended.slice(head);
      head = 0;
    }
    return ended[head];
  }

  function sweep(): void {
    const cutoff = now() - ttl;
    for (let e = oldestEnded(); e && e.endedAt! <= cutoff; e = oldestEnded()) remove(e);
  }

  function noteState(entry: Entry): void {
    if (entry.endedAt === undefined && isTerminal(entry.task.status?.state ?? 0)) {
      entry.endedAt = now();
      ended.push(entry);
      // Only the last event is kept (in place: splice would make an array of the others).
      const events = entry.events;
      if (events.length > 1) {
        events[0] = events[events.length - 1]!;
        events.length = 1;
      }
    }
  }

  function mustFind(key: TaskKey): Entry | undefined {
    const e = find(key);
    return e && unexpired(e);
  }

  /** The entry unless its TTL has passed (then it is removed). */
  function unexpired(e: Entry): Entry | undefined {
    if (e.endedAt !== undefined && e.endedAt <= now() - ttl) {
      remove(e);
      return undefined;
    }
    return e;
  }

  /** The key's entry: the handle's own while it is stored (a map lookup or three saved), else looked up. */
  function entryOf(key: TaskKey, handle: MemoryTaskHandle | undefined): Entry | undefined {
    const h = handle as unknown as Entry | undefined;
    return h !== undefined && !h.removed ? unexpired(h) : mustFind(key);
  }

  function get(key: TaskKey, handle?: MemoryTaskHandle): StoredTask | undefined {
    const e = entryOf(key, handle);
    return e && { task: e.task, version: e.version };
  }

  function commit(
    key: TaskKey,
    task: TaskLike,
    expected: number,
    updatedAt: number,
    event: StoredEvent["event"],
    handle?: MemoryTaskHandle,
  ): void {
    const e = entryOf(key, handle);
    if (!e || e.version !== expected) throw new StaleVersionError(key, expected, e?.version ?? 0);
    e.task = task;
    e.version = expected + 1;
    e.updatedAt = updatedAt;
    e.events.push({ seq: e.version, event });
    if (e.events.length > maxEvents) e.events.splice(0, e.events.length - maxEvents);
    noteState(e);
  }

  function create(key: TaskKey, task: TaskLike, updatedAt: number, event: StoredEvent["event"]): MemoryTaskHandle {
    sweep();
    const existing = find(key);
    if (existing) throw new StaleVersionError(key, 0, existing.version);
    if (count >= maxTasks) {
      // Make room from the tasks that ended longest ago; live ones are never dropped.
      const oldest = oldestEnded();
      if (!oldest) throw new StoreFullError(`the agent holds ${maxTasks} tasks that have not ended; try again later`);
      remove(oldest);
    }
    const entry: Entry = {
      key,
      task,
      version: 1,
      updatedAt,
      endedAt: undefined,
      removed: false,
      events: [{ seq: 1, event }],
      pushConfigs: undefined,
    };
    let owners = scopes.get(key.tenant);
    if (!owners) scopes.set(key.tenant, (owners = new Map()));
    let scope = owners.get(key.owner);
    if (!scope) owners.set(key.owner, (scope = new Map()));
    scope.set(key.id, entry);
    count++;
    noteState(entry);
    return entry as unknown as MemoryTaskHandle;
  }

  const tasks: TaskStore = {
    async get(key): Promise<StoredTask | undefined> {
      return get(key);
    },

    async create(key, task, updatedAt, event) {
      create(key, task, updatedAt, event);
    },

    async commit(key, task, expected, updatedAt, event) {
      commit(key, task, expected, updatedAt, event);
    },

    async list(query: TaskQuery): Promise<TaskPage> {
      sweep();
      return listPage(scopeOf(query)?.values(), query);
    },

    async events(key, afterSeq) {
      const e = mustFind(key);
      if (!e) return [];
      return e.events.filter((s) => s.seq > afterSeq);
    },
  };

  const pushConfigs = pushConfigStore(mustFind, maxConfigs);

  const store: AgentStore = { tasks, pushConfigs, ping: answersAlways };
  const sync: MemoryStoreSync = {
    get,
    create,
    commit,
    pushConfigs(key) {
      const e = mustFind(key);
      return e && (e.pushConfigs ?? NO_CONFIGS);
    },
  };
  const methods = [tasks.get, tasks.commit, tasks.create, pushConfigs.list, pushConfigs.put];
  syncOf.set(store, { tasks, pushConfigs, sync, methods });
  return store;
}

/** The memory store's ping: it is this process, which is running. */
function answersAlways(): Promise<void> {
  return Promise.resolve();
}

/** One ListTasks page of an owner's tasks (`entries`), newest status first. */
function listPage(entries: Iterable<Entry> | undefined, query: TaskQuery): TaskPage {
  const matching: Entry[] = [];
  for (const e of entries ?? []) {
    if (query.contextId !== "" && e.task.contextId !== query.contextId) continue;
    if (query.state !== 0 && (e.task.status?.state ?? 0) !== query.state) continue;
    if (query.updatedSince !== undefined && e.updatedAt < query.updatedSince) continue;
    matching.push(e);
  }
  matching.sort((a, b) => order(positionOf(a), positionOf(b)));
  const after = query.after;
  const start = after === undefined ? 0 : matching.findIndex((e) => order(positionOf(e), after) > 0);
  const from = start < 0 ? matching.length : start;
  const page = matching.slice(from, from + query.pageSize);
  const last = page[page.length - 1];
  return {
    tasks: page.map((e) => e.task),
    total: matching.length,
    next: last && from + page.length < matching.length ? positionOf(last) : undefined,
  };
}

/** The push configs, kept on their task's entry (`find`: the live entry of a key), at most `maxConfigs` each. */
function pushConfigStore(find: (key: TaskKey) => Entry | undefined, maxConfigs: number): PushConfigStore {
  return {
    async put(key, config) {
      const e = find(key);
      if (!e) return;
      const configs = (e.pushConfigs ??= new Map());
      if (!configs.has(config.id) && configs.size >= maxConfigs) {
        throw new StoreFullError(`a task takes at most ${maxConfigs} push notification configs`);
      }
      configs.set(config.id, config);
    },
    async get(key, id) {
      return find(key)?.pushConfigs?.get(id);
    },
    async list(key) {
      return [...(find(key)?.pushConfigs?.values() ?? [])];
    },
    async delete(key, id) {
      const e = find(key);
      return e ? (e.pushConfigs?.delete(id) ?? false) : false;
    },
  };
}

/** The list's order: newest status first, then id descending (so the order is total). */
function order(a: PagePosition, b: PagePosition): number {
  if (a.updatedAt !== b.updatedAt) return b.updatedAt - a.updatedAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}

const positionOf = (e: Entry): PagePosition => ({ updatedAt: e.updatedAt, id: e.key.id });
