/**
 * Leases through a database outage (issue 39 item 1), on the distributed
 * execution with a shared store that fails as a lost database does: an
 * instance sweeps another's expired tasks only once it has itself been
 * connected for a whole lease, and an instance whose renewal failed tries
 * again within a tenth of a lease, reporting the outage once.
 */
import { describe, expect, it } from "vitest";
import { DistributedExecution } from "../../../packages/runtime/src/agent/execution-distributed.js";
import { PushDispatch } from "../../../packages/runtime/src/agent/push-dispatch.js";
import { RunTable } from "../../../packages/runtime/src/agent/run-table.js";
import { createMemoryStore, StoreUnavailableError } from "../../../packages/runtime/src/agent/index.js";
import type { SharedStore, StoredTaskWithKey, TaskKey } from "../../../packages/runtime/src/agent/store.js";
import { Subscribers } from "../../../packages/runtime/src/agent/subscribers.js";
import { TaskLocks } from "../../../packages/runtime/src/agent/task-lock.js";
import { schemasOf } from "../../../packages/runtime/src/agent/schemas.js";
import { taskChanges } from "../../../packages/runtime/src/agent/task-changes.js";
import { A2AService, TaskState } from "../../../gen/a2a_pb.js";

const LEASE_MS = 400;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A shared store whose calls fail while `down`; it has one task of instance "B" whose lease ran out. */
function sharedStore() {
  const schemas = schemasOf(A2AService);
  const changes = taskChanges(schemas);
  const key: TaskKey = { tenant: "", owner: "", id: "t1" };
  const task = changes.shape.task("t1", "c1", changes.statusOf(TaskState.WORKING, undefined, Date.now()), []);
  const state = { down: true, renewals: [] as number[], takenOver: [] as number[], sweeps: 0 };
  const check = () => {
    if (state.down) throw new StoreUnavailableError(false, new Error("connect ECONNREFUSED"));
  };
  const shared: SharedStore = {
    instance: "A",
    leaseMs: LEASE_MS,
    watch: async () => async () => {},
    renew: async () => {
      state.renewals.push(Date.now());
      check();
    },
    expired: async () => {
      state.sweeps++;
      check();
      const stale: StoredTaskWithKey = { key, task, version: 2, holder: "B" };
      return [stale];
    },
    takeOver: async () => {
      check();
      state.takenOver.push(Date.now());
    },
    outbox: {
      enqueue: async () => {},
      claim: async () => [],
      done: async () => {},
      retry: async () => {},
    },
  };
  const store = createMemoryStore();
  const runs = new RunTable();
  const errors: unknown[] = [];
  const execution = new DistributedExecution({
    store,
    shared,
    runs,
    subscribers: new Subscribers(10, true, (k, after) => store.tasks.events(k, after)),
    locks: new TaskLocks(),
    changes,
    push: new PushDispatch(schemas, store),
    pushSender: undefined,
    hasPush: false,
    onError: (e) => errors.push(e),
  });
  return { state, execution, runs, errors };
}

describe("leases through a database outage", () => {
  it("sweeps another instance's expired task only once connected for a whole lease", async () => {
    const { state, execution, runs } = sharedStore();
    await sleep(LEASE_MS);
    expect(state.sweeps).toBeGreaterThan(0);
    expect(state.takenOver).toEqual([]);
    const back = Date.now();
    state.down = false;
    await sleep(LEASE_MS * 3);
    expect(state.takenOver.length).toBeGreaterThan(0);
    expect(state.takenOver[0]! - back).toBeGreaterThanOrEqual(LEASE_MS);
    runs.closed = true;
    await execution.close();
  });

  it("tries a failed renewal again within a tenth of a lease, and reports the outage once", async () => {
    const { state, execution, runs, errors } = sharedStore();
    await sleep(LEASE_MS);
    const during = state.renewals.length;
    // At least every tenth of a lease while it fails (the usual pace is a third).
    expect(during).toBeGreaterThanOrEqual(5);
    expect(errors.filter((e) => e instanceof StoreUnavailableError && /ECONNREFUSED/.test(String((e as Error).cause)))).toHaveLength(
      // One for the renewals; the sweeps report theirs at their own pace.
      1 + state.sweeps,
    );
    state.down = false;
    await sleep(LEASE_MS / 5);
    const afterBack = state.renewals.length;
    await sleep(LEASE_MS);
    // Back to a third of a lease once it succeeds.
    expect(state.renewals.length - afterBack).toBeLessThanOrEqual(4);
    runs.closed = true;
    await execution.close();
  });
});
