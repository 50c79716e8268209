/**
 * The A2A task engine: turns an {@link AgentExecutor} into the handlers of
 * the generated A2A service interface, so every adapter and transport
 * (HTTP+JSON, JSON-RPC, gRPC) serves it unchanged. The rules are those of
 * A2A v1.0.1; docs/agent.md explains them and the design. This file wires
 * the parts; each is one module (docs/architecture.md lists them).
 *
 * The concurrency model, stated once:
 *
 * - **A run** is one executor at work on one task's turn, in this process
 *   (run.ts). A task has at most one run holding its turn at a time
 *   (run-table.ts): a message to a task whose turn is held is refused until
 *   the turn ends (a final state) or is interrupted (INPUT_REQUIRED,
 *   AUTH_REQUIRED), and on a shared store the stored state says the same of
 *   other instances' runs (execution.ts, `mayRunElsewhere`).
 * - **The per-task lock** (task-lock.ts) orders, in this process, everything
 *   that reads a task, changes it and commits the change: a run's
 *   publications, a follow-up's turn, a cancel, a sweep's takeover. It also
 *   makes subscribers and push delivery see a task's events in order.
 * - **Versions** order what the lock cannot: every commit names the version
 *   it was made from, and the store refuses a stale one, which is then made
 *   again on the task read anew (task-writer.ts). So two instances never
 *   both write from one version, and a cancel elsewhere is never overwritten.
 * - **A lease** (shared stores only) is an instance's claim on the tasks its
 *   runs work on, renewed while they run; a task whose lease lapsed (its
 *   instance died or lost the database) is FAILED by the first instance that
 *   sweeps it (execution-distributed.ts).
 * - **Shutdown** (`close()`): no run starts, live executors' signals fire,
 *   they get a bounded time to return, and a task left unfinished is FAILED.
 */
import { equals, type DescService } from "@bufbuild/protobuf";
import { A2A_V03_HANDLERS } from "../a2a-v03/common.js";
import { consoleLogger } from "../logger.js";
import type { HandlerContext } from "../route-binding.js";
import { spanOf, telemetry } from "../telemetry.js";
import { DistributedExecution } from "./execution-distributed.js";
import { LocalExecution, type Execution } from "./execution.js";
import { createMemoryStore, memoryStoreSync } from "./memory-store.js";
import { defaultOwner, pushSenderOf, type AgentCardLike, type AgentControl, type AgentOptions } from "./options.js";
import { defaultReport, throttleStoreFaults } from "./fault-reports.js";
import { PushDispatch } from "./push-dispatch.js";
import { storeReadiness } from "./readiness.js";
import { agentCardRpcs } from "./rpc-agent-card.js";
import { pushConfigRpcs } from "./rpc-push-configs.js";
import { sendRpcs } from "./rpc-send.js";
import { taskRpcs } from "./rpc-tasks.js";
import { RunLifecycle } from "./run-lifecycle.js";
import { RunTable } from "./run-table.js";
import { schemasOf } from "./schemas.js";
import type { TaskKey } from "./store.js";
import { Subscribers } from "./subscribers.js";
import { taskChanges } from "./task-changes.js";
import { TaskLocks } from "./task-lock.js";
import { TaskWriter } from "./task-writer.js";
import type { AgentExecutor, AgentTypes, TaskLike } from "./types.js";

/** How long `close()` waits for aborted executors to return. */
const SHUTDOWN_WAIT_MS = 5_000;

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;
type Handler = (request: AnyRequest, context: HandlerContext) => unknown;

/**
 * Creates the handlers of an A2A service (the user's generated `A2AService`
 * descriptor) that run `executor` for every message. The generated
 * `create<Service>Agent` calls this with the right types.
 */
export function createAgentHandlers<T extends AgentTypes, Card extends AgentCardLike>(
  service: DescService,
  executor: AgentExecutor<T>,
  options: AgentOptions<T, Card>,
): Record<string, Handler> & AgentControl {
  const schemas = schemasOf(service);
  const store = options.store ?? createMemoryStore();
  store.bind?.({ task: schemas.task, event: schemas.stream, pushConfig: schemas.pushConfig });
  const shared = store.shared;
  // The default store, done without awaits (its async methods do the same work).
  const mem = shared ? undefined : memoryStoreSync(store);
  const ownerOf = (options.owner ?? defaultOwner) as (c: HandlerContext) => string;
  const logger = options.logger ?? consoleLogger;
  // An outage of the store repeats its error at every retry and tick: reported once per kind per interval.
  const onError = throttleStoreFaults(options.onError ?? defaultReport(logger));
  const card = (): Card => (typeof options.card === "function" ? (options.card as () => Card)() : options.card);
  // The server made the tenant one value (the context's, which its context factory saw); the request's is the same.
  // With telemetry on, the task an rpc names is an attribute of its span (telemetry.ts).
  const keyOf = (ctx: HandlerContext, id: string): TaskKey => {
    if (id !== "" && telemetry.on !== undefined) spanOf(ctx)?.annotate({ taskId: id });
    return { tenant: ctx.tenant ?? "", owner: ownerOf(ctx), id };
  };

  const pushSender = pushSenderOf(options);
  const push = new PushDispatch(schemas, store);
  const changes = taskChanges(schemas);
  const runs = new RunTable();
  const locks = new TaskLocks();
  const subscribers = new Subscribers(options.subscriberLimit ?? 1_000, shared !== undefined, (key, after) =>
    store.tasks.events(key, after),
  );
  const execution: Execution = shared
    ? new DistributedExecution({
        store,
        shared,
        runs,
        subscribers,
        locks,
        changes,
        push,
        pushSender,
        hasPush: schemas.pushConfig !== undefined,
        onError,
      })
    : new LocalExecution(store, mem, push, pushSender, onError);
  const sameTask = (a: TaskLike, b: TaskLike) => equals(schemas.task, a as never, b as never);
  const writer = new TaskWriter({ store, mem, subscribers, execution, locks, runs, push, changes, sameTask });
  const lifecycle = new RunLifecycle<T>({ executor, schemas, writer, runs, subscribers, changes, onError });

  const handlers: Record<string, Handler> = {
    ...sendRpcs<T>({
      store,
      mem,
      card,
      checkModes: options.checkInputModes ?? true,
      push,
      pushSender,
      runs,
      locks,
      writer,
      lifecycle,
      execution,
      subscribers,
      changes,
      keyOf,
    }),
    ...taskRpcs({ store, keyOf, card, locks, writer, runs, subscribers, execution, changes }),
    ...pushConfigRpcs({ store, push, pushSender, card, keyOf }),
    ...agentCardRpcs({ options, card, ownerOf }),
  };

  // Only the rpcs the user's service has: an older a2a.proto without some rpc still binds.
  const bound: Record<string, Handler> = {};
  for (const m of service.methods) {
    const h = handlers[m.localName];
    if (h) bound[m.localName] = h;
  }
  // Read by the adapters (a2a-v03/common.ts, servesV03): v0.3 off for every binding of these handlers.
  if (options.a2aV03 === false) Object.defineProperty(bound, A2A_V03_HANDLERS, { value: false });
  return Object.assign(bound, {
    ready: storeReadiness(store, () => runs.closed),
    async close() {
      if (runs.closed) return;
      await runs.close(SHUTDOWN_WAIT_MS);
      subscribers.closeAll();
      await execution.close();
      await pushSender?.close();
      await store.close?.();
    },
  });
}
