/**
 * The memory store alone: every lookup within (tenant, owner), its bounds
 * (maxTasks, the TTL of ended tasks, push configs per task), and its
 * synchronous side agreeing with its methods. The engine suite runs the
 * engine on it; this reaches what the rpcs do not show.
 */
import { describe, expect, it } from "vitest";
import { createMemoryStore, memoryStoreSync } from "../../../packages/runtime/src/agent/memory-store.js";
import { StaleVersionError, StoreFullError, type PushConfigLike, type TaskKey } from "../../../packages/runtime/src/agent/store.js";
import type { TaskLike } from "../../../packages/runtime/src/agent/types.js";

const task = (id: string, state: number) => ({ id, contextId: "c", status: { state }, artifacts: [], history: [] }) as unknown as TaskLike;
const event = { $typeName: "ev" } as never;
const config = (id: string) => ({ id, url: "https://example.com/hook" }) as unknown as PushConfigLike;
const WORKING = 2;
const COMPLETED = 3;

describe("memory store", () => {
  it("finds a task by (tenant, owner, id) only, wherever the same id is used", async () => {
    const store = createMemoryStore();
    const keys: TaskKey[] = [
      { tenant: "", owner: "", id: "t" },
      { tenant: "a", owner: "", id: "t" },
      { tenant: "", owner: "a", id: "t" },
      { tenant: "a\u0000b", owner: "c", id: "t" },
      { tenant: "a", owner: "b\u0000c", id: "t" },
    ];
    for (const [i, k] of keys.entries()) await store.tasks.create(k, task(`t${i}`, WORKING), i, event);
    for (const [i, k] of keys.entries()) expect((await store.tasks.get(k))?.task.id).toBe(`t${i}`);
    expect(await store.tasks.get({ tenant: "a", owner: "b", id: "t" })).toBeUndefined();
    await expect(store.tasks.create(keys[1]!, task("again", WORKING), 0, event)).rejects.toThrow(StaleVersionError);
    const page = await store.tasks.list({
      tenant: "a",
      owner: "",
      contextId: "",
      state: 0,
      updatedSince: undefined,
      pageSize: 10,
      after: undefined,
    });
    expect(page.tasks.map((t) => t.id)).toEqual(["t1"]);
  });

  it("makes room from the task that ended longest ago, and refuses when none has ended", async () => {
    const store = createMemoryStore({ maxTasks: 2 });
    const a = { tenant: "x", owner: "o", id: "a" };
    const b = { tenant: "y", owner: "p", id: "b" };
    await store.tasks.create(a, task("a", COMPLETED), 1, event);
    await store.tasks.create(b, task("b", WORKING), 2, event);
    await store.tasks.create({ tenant: "x", owner: "o", id: "c" }, task("c", WORKING), 3, event);
    expect(await store.tasks.get(a)).toBeUndefined();
    expect((await store.tasks.get(b))?.task.id).toBe("b");
    const list = await store.tasks.list({
      tenant: "x",
      owner: "o",
      contextId: "",
      state: 0,
      updatedSince: undefined,
      pageSize: 10,
      after: undefined,
    });
    expect(list.tasks.map((t) => t.id)).toEqual(["c"]);
    await expect(store.tasks.create({ tenant: "z", owner: "", id: "d" }, task("d", WORKING), 4, event)).rejects.toThrow(StoreFullError);
  });

  it("drops an ended task after the TTL", async () => {
    let now = 1_000;
    const store = createMemoryStore({ terminalTtlMs: 100, now: () => now });
    const k = { tenant: "", owner: "", id: "t" };
    await store.tasks.create(k, task("t", WORKING), 1, event);
    await store.tasks.commit(k, task("t", COMPLETED), 1, 2, event);
    now += 99;
    expect((await store.tasks.get(k))?.version).toBe(2);
    now += 2;
    expect(await store.tasks.get(k)).toBeUndefined();
  });

  it("keeps push configs per task, at most maxPushConfigsPerTask, and says when there is no such task", async () => {
    const store = createMemoryStore({ maxPushConfigsPerTask: 2 });
    const sync = memoryStoreSync(store)!;
    const k = { tenant: "", owner: "o", id: "t" };
    const other = { tenant: "", owner: "p", id: "t" };
    await store.tasks.create(k, task("t", WORKING), 1, event);
    await store.tasks.create(other, task("t", WORKING), 1, event);
    expect(await store.pushConfigs.list(k)).toEqual([]);
    expect(sync.pushConfigs(k)?.size).toBe(0);
    expect(sync.pushConfigs({ tenant: "", owner: "q", id: "t" })).toBeUndefined();
    expect(await store.pushConfigs.delete(k, "1")).toBe(false);
    await store.pushConfigs.put(k, config("1"));
    await store.pushConfigs.put(k, config("2"));
    await store.pushConfigs.put(k, config("2"));
    await expect(store.pushConfigs.put(k, config("3"))).rejects.toThrow(StoreFullError);
    expect((await store.pushConfigs.list(k)).map((c) => c.id)).toEqual(["1", "2"]);
    expect([...sync.pushConfigs(k)!.keys()]).toEqual(["1", "2"]);
    expect(await store.pushConfigs.list(other)).toEqual([]);
    expect((await store.pushConfigs.get(k, "2"))?.id).toBe("2");
    expect(await store.pushConfigs.get(other, "2")).toBeUndefined();
    expect(await store.pushConfigs.delete(k, "1")).toBe(true);
    expect((await store.pushConfigs.list(k)).map((c) => c.id)).toEqual(["2"]);
    // A config for a task that is not there is dropped.
    await store.pushConfigs.put({ tenant: "", owner: "o", id: "none" }, config("1"));
    expect(await store.pushConfigs.list({ tenant: "", owner: "o", id: "none" })).toEqual([]);
  });

  it("its synchronous side is there only while the store's methods are its own", () => {
    const store = createMemoryStore();
    expect(memoryStoreSync(store)).toBeDefined();
    const wrapped = { ...store, tasks: { ...store.tasks, get: store.tasks.get } };
    expect(memoryStoreSync(wrapped)).toBeUndefined();
    store.tasks.get = async () => undefined;
    expect(memoryStoreSync(store)).toBeUndefined();
  });
});
