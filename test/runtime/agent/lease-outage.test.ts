/**
 * Leases through a database outage (issue 39 item 1), on the distributed
 * execution with a shared store that fails as a lost database does: an
 * instance sweeps another's expired tasks only once it has itself been
 * connected for a whole lease, and an instance whose renewal failed tries
 * again within a tenth of a lease; the engine reports such a fault once per
 * kind per interval (fault-reports.ts).
 */
import { describe, expect, it } from "vitest";
import { DistributedExecution } from "../../../packages/runtime/src/agent/execution-distributed.js";
import { PushDispatch } from "../../../packages/runtime/src/agent/push-dispatch.js";
import { RunTable } from "../../../packages/runtime/src/agent/run-table.js";
import { createMemoryStore, StoreUnavailableError } from "../../../packages/runtime/src/agent/index.js";
import type { SharedStore, StoredTaskWithKey, TaskKey } from "../../../packages/runtime/src/agent/store.js";
import { Subscribers } from "../../../packages/runtime/src/agent/subscribers.js";
import { TaskLocks } from "../../../packages/runtime/src/agent/task-lock.js";
import { defaultReport, throttleStoreFaults } from "../../../packages/runtime/src/agent/fault-reports.js";
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

  it("tries a failed renewal again within a tenth of a lease, reported once through the engine's throttle", async () => {
    const { state, execution, runs, errors } = sharedStore();
    await sleep(LEASE_MS);
    const during = state.renewals.length;
    // At least every tenth of a lease while it fails (the usual pace is a third).
    expect(during).toBeGreaterThanOrEqual(5);
    // Every failed renewal and sweep is reported to onError; the engine's throttle lets one line of its kind through.
    expect(errors.length).toBeGreaterThanOrEqual(5);
    expect(errors.every((e) => e instanceof StoreUnavailableError)).toBe(true);
    const reported: unknown[] = [];
    const throttled = throttleStoreFaults((e) => reported.push(e));
    for (const e of errors) throttled(e);
    expect(reported).toHaveLength(1);
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

describe("how the engine reports an outage", () => {
  it("one warning line of its kind, no stack; other errors with theirs", () => {
    const lines: { level: string; fields: object; msg: string | undefined }[] = [];
    const logger = {
      info: (fields: object, msg?: string) => lines.push({ level: "info", fields, msg }),
      warn: (fields: object, msg?: string) => lines.push({ level: "warn", fields, msg }),
      error: (fields: object, msg?: string) => lines.push({ level: "error", fields, msg }),
    };
    const report = throttleStoreFaults(defaultReport(logger));
    const refused = () =>
      new StoreUnavailableError(false, Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" }));
    for (let i = 0; i < 50; i++) report(refused());
    report(new StoreUnavailableError(true, new Error("Connection terminated unexpectedly")));
    const bug = new TypeError("boom");
    report(bug);
    expect(lines).toEqual([
      {
        level: "warn",
        fields: { fault: "ECONNREFUSED" },
        msg: "a2a-http agent: the task store cannot be reached (ECONNREFUSED); waiting for it",
      },
      {
        level: "warn",
        fields: { fault: "Connection terminated unexpectedly" },
        msg: "a2a-http agent: the task store cannot be reached (Connection terminated unexpectedly); waiting for it",
      },
      { level: "error", fields: { err: bug }, msg: "a2a-http agent" },
    ]);
  });
});
