/**
 * The A2A task engine: turns an {@link AgentExecutor} into the handlers of
 * the generated A2A service interface, so every adapter and transport
 * (HTTP+JSON, JSON-RPC, gRPC) serves it unchanged. The rules are those of
 * A2A v1.0.1; docs/agent.md explains them and the design.
 */
import { clone, type DescService, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { A2AErrors } from "../a2a.js";
import { A2A_V03_HANDLERS } from "../a2a-v03/common.js";
import { Code, RpcError, isRpcError } from "../errors.js";
import type { HandlerContext } from "../route-binding.js";
import { copyOf, newId } from "./message-makers.js";
import { TaskStream } from "./task-stream.js";
import { createMemoryStore, memoryStoreSync, type MemoryTaskHandle } from "./memory-store.js";
import { startOutboxWorker, type OutboxWorker } from "./outbox-worker.js";
import { checkExtensions, checkInputModes, requirePush, requireStreaming } from "./capabilities.js";
import { defaultOwner, pushSenderOf, type AgentCardLike, type AgentControl, type AgentOptions } from "./options.js";
import { PushDispatch } from "./push-dispatch.js";
import { DONE, LazyAbort, newRun, type Run } from "./run.js";
import { agentCardRpcs } from "./rpc-agent-card.js";
import { pushConfigRpcs } from "./rpc-push-configs.js";
import { readTaskRpcs } from "./rpc-read-tasks.js";
import { schemasOf } from "./schemas.js";
import { taskChanges } from "./task-changes.js";
import { Subscribers } from "./subscribers.js";
import { keyOfTopic, topicOf } from "./task-key.js";
import { TaskLocks } from "./task-lock.js";
import { checkHistoryLength, view } from "./task-view.js";
import { endsStream, endsTask, endsTurn, stateName, stateOfEvent, statusTime } from "./task-state.js";
import { StaleVersionError, StoreFullError, type PushConfigLike, type TaskKey } from "./store.js";
import {
  TaskState,
  isInterrupted,
  isTerminal,
  type AgentExecutor,
  type AgentTypes,
  type Content,
  type ExecutorInput,
  type MessageLike,
  type PartLike,
  type TaskLike,
  type TaskUpdater,
} from "./types.js";

/** Where the executor's input and task updater keep what their getters read. */
const RUN = Symbol("a2a-http agent run");
const SNAPSHOT = Symbol("a2a-http agent task");

/**
 * An own, enumerable getter shared by every object it is defined on, as an
 * object literal's `get x()` is, for the executor's input and task updater:
 * V8 makes an object literal with getters (a new function each) in its slow,
 * dictionary form, at about 2 µs per object; with one getter function for
 * all, defined on the object in the same place, the objects keep one fast shape.
 */
function ownGetter(get: () => unknown): PropertyDescriptor {
  return { get, enumerable: true, configurable: true };
}

/** How long `close()` waits for aborted executors to return. */
const SHUTDOWN_WAIT_MS = 5_000;
/** Commits retried when another instance changed the task in between (then the task is read again). */
const STALE_RETRIES = 5;
/** Tasks the sweeper ends per round when their instance stopped. */
const SWEEP_BATCH = 50;

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;

/**
 * Creates the handlers of an A2A service (the user's generated `A2AService`
 * descriptor) that run `executor` for every message. The generated
 * `create<Service>Agent` calls this with the right types.
 */
export function createAgentHandlers<T extends AgentTypes, Card extends AgentCardLike>(
  service: DescService,
  executor: AgentExecutor<T>,
  options: AgentOptions<T, Card>,
): Record<string, (request: AnyRequest, context: HandlerContext) => unknown> & AgentControl {
  const schemas = schemasOf(service);
  const store = options.store ?? createMemoryStore();
  store.bind?.({ task: schemas.task, event: schemas.stream, pushConfig: schemas.pushConfig });
  const shared = store.shared;
  // The streams following tasks here (and, on a shared store, how far each task's events were handed to them).
  const subscribers = new Subscribers(options.subscriberLimit ?? 1_000, shared !== undefined, (key, after) =>
    store.tasks.events(key, after),
  );
  // The default store, done without awaits (its async methods do the same work).
  const mem = shared ? undefined : memoryStoreSync(store);
  const ownerOf = (options.owner ?? defaultOwner) as (c: HandlerContext) => string;
  const onError = options.onError ?? ((e: unknown) => console.error("a2a-http agent:", e));
  const checkModes = options.checkInputModes ?? true;
  const currentCard = (): Card => (typeof options.card === "function" ? (options.card as () => Card)() : options.card);
  // The run that holds each task (a follow-up waits for it to end or be interrupted)...
  const runs = new Map<string, Run>();
  // ...and every executor that has not returned yet, which cancel and shutdown abort.
  const live = new Set<Run>();
  // The per-task lock: what is done to one task here, one after another, in order.
  const locks = new TaskLocks();
  const pushSender = pushSenderOf(options);
  const push = new PushDispatch(schemas, store);
  let closed = false;

  // The server made the tenant one value (the context's, which its context factory saw); the request's is the same.
  const keyOf = (ctx: HandlerContext, id: string): TaskKey => ({
    tenant: ctx.tenant ?? "",
    owner: ownerOf(ctx),
    id,
  });

  // --- messages -------------------------------------------------------------

  // The executor's input and task updater: `task` a copy of the task as it was when the executor started, `signal` the run's.
  const taskGetter = ownGetter(function (this: { [SNAPSHOT]: TaskLike }) {
    return clone(schemas.task, this[SNAPSHOT] as never);
  });
  const signalGetter = ownGetter(function (this: { [RUN]: Run }) {
    return this[RUN].controller.signal;
  });
  // What an update does to a task: the new task and its event.
  const { shape, agentMessage, taskEvent, statusOf, statusChange, artifactChange, toArtifact } = taskChanges(schemas);

  // --- storing and publishing -------------------------------------------------

  /**
   * Stores a change of the task as one event, then hands the event to
   * subscribers and push configs. On the memory store it is done at once and
   * answers the new version itself rather than a promise of it.
   */
  function commit(
    key: TaskKey,
    topic: string,
    version: number,
    task: TaskLike,
    event: ProtoMessage,
    entry?: MemoryTaskHandle,
  ): number | Promise<number> {
    if (mem) {
      mem.commit(key, task, version, statusTime(task), event, entry);
      published(key, topic, version + 1, event, task);
      return version + 1;
    }
    return store.tasks.commit(key, task, version, statusTime(task), event).then(async () => {
      await published(key, topic, version + 1, event, task);
      return version + 1;
    });
  }

  /**
   * Hands a stored event to subscribers and queues its push deliveries. Called
   * under the task's lock, so deliveries are queued in the events' order
   * whatever the store's speed. On the memory store it is done at once.
   */
  function published(key: TaskKey, topic: string, seq: number, event: ProtoMessage, task: TaskLike): Promise<void> | undefined {
    subscribers.publish(topic, seq, event);
    if (shared) {
      // The store queued the push deliveries in the event's transaction: any instance sends them.
      outbox?.kick();
      return undefined;
    }
    if (!pushSender) return undefined;
    if (mem) {
      const configs = mem.pushConfigs(key);
      if (configs !== undefined && configs.size > 0) push.send(pushSender, key, configs.values(), event, task);
      return undefined;
    }
    return store.pushConfigs.list(key).then(
      (configs) => push.send(pushSender, key, configs, event, task),
      (e: unknown) => onError(e),
    );
  }

  type Stored = { task: TaskLike; version: number };

  /**
   * Stores a new task the executor has started to publish on. On the memory
   * store, without a push config, it is done at once (no promise), so that a
   * quick executor's publications all happen in its own call.
   */
  function store1st(run: Run): Stored | Promise<Stored> {
    const { task, pushConfig } = run.unstored!;
    const event = taskEvent(task);
    if (mem && !pushConfig) {
      try {
        run.entry = mem.create(run.key, task, statusTime(task), event);
      } catch (e) {
        throw storeFull(e);
      }
      run.unstored = undefined;
      published(run.key, run.topic, 1, event, task);
      return stored1st(run, task);
    }
    return (async () => {
      try {
        await store.tasks.create(run.key, task, statusTime(task), event);
      } catch (e) {
        throw storeFull(e);
      }
      run.unstored = undefined;
      if (pushConfig) {
        await push.put(run.key, pushConfig);
        // Stored after the task's first event, which the store's commit could not queue for it.
        await shared?.outbox.enqueue(run.key, pushConfig.id, 1);
      }
      const p = published(run.key, run.topic, 1, event, task);
      if (p) await p;
      return stored1st(run, task);
    })();
  }

  function stored1st(run: Run, task: TaskLike): Stored {
    run.latest = { task, version: 1 };
    run.first.resolve(run.latest);
    return run.latest;
  }

  function storeFull(e: unknown): unknown {
    return e instanceof StoreFullError ? new RpcError(Code.RESOURCE_EXHAUSTED, e.message) : e;
  }

  /** The task as stored now (storing a new one first). */
  async function current(run: Run): Promise<Stored> {
    if (run.unstored) return store1st(run);
    if (run.latest) return run.latest;
    const stored = await store.tasks.get(run.key);
    if (!stored) throw A2AErrors.taskNotFound(run.key.id);
    return stored;
  }

  type Change = (task: TaskLike, at: number) => { task: TaskLike; event: ProtoMessage };

  /** One publication of the executor: applied after the earlier ones, refused once the task is done. */
  function publish(run: Run, change: Change | "reply", reply?: Content<T>): Promise<void> {
    // The task's lock keeps the run's publications in the order they were made.
    // On the memory store, with nothing ahead of it, a publication is done
    // within this call: no promise of its own, nothing for the next to wait on.
    let p: Promise<void> | undefined;
    try {
      p = locks.run(run.topic, () => (run.done || change === "reply" ? publishOther(run, change, reply) : apply(run, change))) as
        | Promise<void>
        | undefined;
    } catch (e) {
      p = Promise.reject(e);
    }
    run.chain = p;
    if (p === undefined) return DONE;
    // The executor may not await: its failure is reported by the promise it holds, never as an unhandled rejection.
    p.catch(() => {});
    return p;
  }

  /** A publication that is refused, or a reply. */
  function publishOther(run: Run, change: Change | "reply", reply?: Content<T>): void | Promise<void> {
    if (run.done)
      throw A2AErrors.invalidAgentResponse(`task ${run.key.id} takes no more updates: it has ended, is waiting for input, or was canceled`);
    if (change === "reply") {
      const contextId = run.unstored?.task.contextId;
      if (contextId !== undefined) {
        // A reply before anything was stored: the answer is the Message, and no task is kept.
        const message = agentMessage(reply!, "", contextId);
        run.reply = message;
        run.unstored = undefined;
        run.done = true;
        run.first.resolve({ message });
        run.settled.resolve();
        return;
      }
      // The task exists already (returnImmediately, or a later turn): the reply completes it.
      return apply(run, (task, at) => statusChange(task, TaskState.COMPLETED, agentMessage(reply!, task.id, task.contextId), at));
    }
    return apply(run, change);
  }

  /**
   * Applies a change to the task as stored now: within this call when the
   * task is at hand and the store answers at once (the memory store), else
   * a promise.
   */
  function apply(run: Run, change: Change, tries = 0): void | Promise<void> {
    const now = run.unstored ? store1st(run) : run.latest;
    if (now !== undefined && !(now instanceof Promise)) return applyTo(run, change, now, tries);
    return (now ?? current(run)).then((stored) => applyTo(run, change, stored, tries));
  }

  function applyTo(run: Run, change: Change, { task, version }: Stored, tries: number): void | Promise<void> {
    const before = task.status?.state ?? 0;
    if (isTerminal(before)) {
      // Ended elsewhere: canceled through another instance, or failed by one that took it over.
      stopRun(run, new RpcError(Code.CANCELLED, `task ${run.key.id} is ${stateName(before)}`));
      throw A2AErrors.invalidAgentResponse(`task ${run.key.id} takes no more updates: it is ${stateName(before)}`);
    }
    const next = change(task, Date.now());
    let v: number | Promise<number>;
    try {
      v = commit(run.key, run.topic, version, next.task, next.event, run.entry);
    } catch (e) {
      return retry(run, change, tries, e);
    }
    if (typeof v === "number") return committed(run, next.task, v);
    return v.then(
      (version2) => committed(run, next.task, version2),
      (e: unknown) => retry(run, change, tries, e),
    );
  }

  /** After a failed commit: once more on the task read again when another instance changed it in between. */
  function retry(run: Run, change: Change, tries: number, e: unknown): void | Promise<void> {
    run.latest = undefined;
    if (e instanceof StaleVersionError && tries < STALE_RETRIES) return apply(run, change, tries + 1);
    throw e;
  }

  function committed(run: Run, task: TaskLike, version: number): void {
    run.latest = { task, version };
    if (endsTurn(task.status?.state ?? 0)) {
      run.done = true;
      // The task takes a follow-up now, even before this executor has returned.
      if (runs.get(run.topic) === run) runs.delete(run.topic);
      run.settled.resolve();
    }
  }

  /** Ends a run from outside (cancel, another instance): its executor's signal fires and it can publish no more. */
  function stopRun(run: Run, reason: RpcError): void {
    run.done = true;
    if (runs.get(run.topic) === run) runs.delete(run.topic);
    run.settled.resolve();
    run.controller.abort(reason);
  }

  function updater(run: Run, contextId: string): TaskUpdater<T> {
    const id = run.key.id;
    const message = (content: Content<T> | undefined) => (content === undefined ? undefined : agentMessage(content, id, contextId));
    const status = (state: number, content?: Content<T>) => {
      const m = message(content);
      return publish(run, (task, at) => statusChange(task, state, m, at));
    };
    const artifact = (a: T["artifact"] | string, o: { readonly append?: boolean; readonly lastChunk?: boolean } = {}) => {
      const made = toArtifact(a);
      return publish(run, (task) => artifactChange(task, made, o.append ?? false, o.lastChunk ?? false));
    };
    // Built field by field in the literal's order, with `signal` a shared getter (see ownGetter).
    const updater = { [RUN]: run, taskId: id, contextId } as unknown as Record<string | symbol, unknown>;
    Object.defineProperty(updater, "signal", signalGetter);
    updater.reply = (content: Content<T>) => publish(run, "reply", content);
    updater.working = (m?: Content<T>) => status(TaskState.WORKING, m);
    updater.artifact = artifact;
    updater.complete = (result?: T["artifact"] | string) => {
      if (result !== undefined) void artifact(result, { lastChunk: true });
      return status(TaskState.COMPLETED);
    };
    updater.fail = (reason?: Content<T>) => status(TaskState.FAILED, reason);
    updater.reject = (reason?: Content<T>) => status(TaskState.REJECTED, reason);
    updater.askForInput = (q: Content<T>) => status(TaskState.INPUT_REQUIRED, q);
    updater.askForAuth = (r: Content<T>) => status(TaskState.AUTH_REQUIRED, r);
    updater.status = (state: number, m?: Content<T>) => status(state, m);
    return updater as unknown as TaskUpdater<T>;
  }

  // --- SendMessage ------------------------------------------------------------

  /**
   * Checks the request, stores the continued task or prepares the new one,
   * and starts the executor: within this call for a new task that waits for
   * nothing (no push config to check, no returnImmediately), else a promise.
   */
  function begin(req: AnyRequest, ctx: HandlerContext, stream: boolean): Run | Promise<Run> {
    if (closed) throw new RpcError(Code.UNAVAILABLE, "the agent is shutting down");
    const incoming = req.message as MessageLike | undefined;
    if (!incoming) throw A2AErrors.invalidParams("message is required");
    const card = currentCard();
    checkExtensions(ctx, card);
    if (checkModes) checkInputModes(incoming, card);
    const config = req.configuration as { taskPushNotificationConfig?: PushConfigLike; historyLength?: number } | undefined;
    checkHistoryLength(config?.historyLength);
    const pushInit = config?.taskPushNotificationConfig;
    if (pushInit)
      return Promise.resolve(requirePush(card, pushSender).check(pushInit.url)).then(() => open(req, ctx, stream, incoming, pushInit));
    return open(req, ctx, stream, incoming, undefined);
  }

  /** The task of a checked request, continued or new, and its executor started. */
  function open(
    req: AnyRequest,
    ctx: HandlerContext,
    stream: boolean,
    incoming: MessageLike,
    pushInit: PushConfigLike | undefined,
  ): Run | Promise<Run> {
    if (incoming.taskId !== "") return openContinued(ctx, stream, incoming, pushInit);
    const controller = new LazyAbort();
    const key = keyOf(ctx, newId());
    const contextId = incoming.contextId || newId();
    const message = shape.messageIn(incoming, key.id, contextId);
    const snapshot = shape.task(key.id, contextId, statusOf(TaskState.SUBMITTED, undefined, Date.now()), [message]);
    const run = newRun(key, controller, { task: snapshot, pushConfig: pushInit && push.configOf(pushInit, key, ctx) });
    runs.set(run.topic, run);
    // Asked to answer at once: the task must exist before the executor has said anything.
    if ((req.configuration as { returnImmediately?: boolean } | undefined)?.returnImmediately) {
      return settingUp(run, () => locks.run(run.topic, async () => store1st(run))).then(() =>
        launch(run, ctx, stream, message, snapshot, false),
      );
    }
    return launch(run, ctx, stream, message, snapshot, false);
  }

  /** A message to an existing task: its turn stored (WORKING, the message in its history) under the task's lock. */
  async function openContinued(
    ctx: HandlerContext,
    stream: boolean,
    incoming: MessageLike,
    pushInit: PushConfigLike | undefined,
  ): Promise<Run> {
    const controller = new LazyAbort();
    const at = Date.now();
    const key = keyOf(ctx, incoming.taskId);
    const run = newRun(key, controller, undefined);
    const continued = await locks.run(run.topic, async () => {
      const stored = await store.tasks.get(key);
      if (!stored) throw A2AErrors.taskNotFound(key.id);
      const { task, version } = stored;
      const state = task.status?.state ?? 0;
      if (isTerminal(state)) {
        throw A2AErrors.unsupportedOperation(`task ${key.id} is ${stateName(state)}: it takes no more messages`, { taskId: key.id });
      }
      if (incoming.contextId !== "" && incoming.contextId !== task.contextId) {
        throw A2AErrors.invalidParams(`contextId ${incoming.contextId} is not the context of task ${key.id} (${task.contextId})`);
      }
      // Across instances the stored state tells: an executor somewhere is at work until it ends or is interrupted.
      if (runs.has(run.topic) || (shared && !isInterrupted(state))) {
        throw A2AErrors.unsupportedOperation(`task ${key.id} is still working on an earlier message: wait for it or cancel it`, {
          taskId: key.id,
        });
      }
      // Before anything of this turn is stored, so that a refused config leaves the task as it was.
      if (pushInit) await push.put(key, push.configOf(pushInit, key, ctx));
      const m = Object.assign(copyOf(incoming), { contextId: task.contextId });
      const next = statusChange(Object.assign(copyOf(task), { history: [...task.history, m] }), TaskState.WORKING, undefined, at);
      const version2 = await commit(key, run.topic, version, next.task, next.event);
      runs.set(run.topic, run);
      run.latest = { task: next.task, version: version2 };
      return { task: next.task, version: version2, message: m };
    });
    run.first.resolve({ task: continued.task, version: continued.version });
    return launch(run, ctx, stream, continued.message, continued.task, true);
  }

  /** Starts the executor on the task (subscribing a stream first). */
  function launch(run: Run, ctx: HandlerContext, stream: boolean, message: MessageLike, snapshot: TaskLike, continued: boolean): Run {
    // Subscribed before the executor starts, so a stream misses none of its events.
    if (stream) run.subscriber = subscribers.subscribe(run.topic);
    // Built field by field in the literal's order, with `task` and `signal` shared getters (see ownGetter).
    const input = { [RUN]: run, [SNAPSHOT]: snapshot, message, text: textOf(message.parts) } as unknown as Record<string | symbol, unknown>;
    Object.defineProperty(input, "task", taskGetter);
    input.continued = continued;
    input.taskId = run.key.id;
    input.contextId = snapshot.contextId;
    input.tenant = run.key.tenant;
    input.owner = run.key.owner;
    Object.defineProperty(input, "signal", signalGetter);
    input.context = ctx;
    start(run, input as unknown as ExecutorInput<T>);
    // The executor may outlive the answer (returnImmediately, a task waiting
    // for input, a client that left): on Workers its work would be dropped
    // with the answer unless the host is told to wait for it.
    ctx.waitUntil?.(run.returned.promise);
    return run;
  }

  /** A step before the executor starts: when it fails, the task is not left marked as running. */
  async function settingUp(run: Run, step: () => Promise<unknown>): Promise<void> {
    try {
      await step();
    } catch (e) {
      if (runs.get(run.topic) === run) runs.delete(run.topic);
      throw e;
    }
  }

  /** Runs the executor; when it returns without an end, the task is COMPLETED; when it throws, FAILED. */
  function start(run: Run, input: ExecutorInput<T>): void {
    const task = updater(run, input.contextId);
    live.add(run);
    let result: void | Promise<void>;
    try {
      result = executor(input, task);
    } catch (e) {
      void finish(run, input.contextId, e);
      return;
    }
    // A quick executor has ended its task within its call and returned nothing pending
    // (undefined, or the settled promise a publication done at once answers): over now.
    if ((result === undefined || result === DONE) && run.done && run.chain === undefined) return over(run);
    Promise.resolve(result).then(
      // The usual end: the executor ended the task itself, and nothing it published is pending.
      () => (run.done && run.chain === undefined ? over(run) : finish(run, input.contextId, undefined)),
      (e) => finish(run, input.contextId, e),
    );
  }

  /** After the executor returned (or threw) and its last publication settled: COMPLETED or FAILED unless it ended the task. */
  async function finish(run: Run, contextId: string, error: unknown): Promise<void> {
    if (run.chain) await run.chain.catch(() => {});
    try {
      if (!run.done) {
        if (closed) {
          const reason = "the agent shut down before the task finished";
          await publish(run, (t, at) => statusChange(t, TaskState.FAILED, agentMessage(reason, run.key.id, contextId), at));
        } else if (error === undefined) await publish(run, (t, at) => statusChange(t, TaskState.COMPLETED, undefined, at));
        else {
          if (!isRpcError(error)) onError(error);
          const reason = isRpcError(error) ? error.message : "the agent failed while working on the task";
          await publish(run, (t, at) => statusChange(t, TaskState.FAILED, agentMessage(reason, run.key.id, contextId), at));
        }
      }
    } catch (e) {
      if (!run.done) onError(e);
      // Nothing could be stored: the request answers this error.
      run.first.reject(e);
    } finally {
      over(run);
    }
  }

  /** The run is over: its task takes a follow-up, and whoever waits for it hears so. */
  function over(run: Run): void {
    if (runs.get(run.topic) === run) runs.delete(run.topic);
    live.delete(run);
    run.done = true;
    run.settled.resolve();
    if (!run.first.done) run.first.reject(new RpcError(Code.INTERNAL, "the task could not be stored"));
    run.returned.resolve();
  }

  /** Waits for `p` unless the client goes away first. */
  function unlessAborted<R>(p: Promise<R>, signal: AbortSignal): Promise<R | undefined> {
    if (signal.aborted) return Promise.resolve(undefined);
    return new Promise((resolve, reject) => {
      const onAbort = () => resolve(undefined);
      signal.addEventListener("abort", onAbort, { once: true });
      p.then(
        (v) => {
          signal.removeEventListener("abort", onAbort);
          resolve(v);
        },
        (e) => {
          signal.removeEventListener("abort", onAbort);
          reject(e);
        },
      );
    });
  }

  // --- the handlers -------------------------------------------------------------

  type SendAnswer = { payload: { case: "task"; value: TaskLike } | { case: "message"; value: MessageLike } };
  type First = Awaited<Run["first"]["promise"]>;

  /** SendMessage's answer: once the task has settled (unless returnImmediately), the Message replied or the task as stored. */
  function sendAnswer(run: Run, req: AnyRequest, ctx: HandlerContext): SendAnswer | Promise<SendAnswer> {
    const config = req.configuration as { returnImmediately?: boolean; historyLength?: number } | undefined;
    // A quick executor has often settled its task already: no wait (and no AbortSignal for it) then.
    if (!config?.returnImmediately && !run.settled.done) {
      return unlessAborted(run.settled.promise, ctx.signal).then(() => sendAnswerOf(run, config, ctx));
    }
    return sendAnswerOf(run, config, ctx);
  }

  function sendAnswerOf(run: Run, config: { historyLength?: number } | undefined, ctx: HandlerContext): SendAnswer | Promise<SendAnswer> {
    // Settled, the run has mostly stored its task already: no second wait then.
    if (run.first.done && run.first.value !== undefined) return answerWith(run, run.first.value, config);
    return unlessAborted(run.first.promise, ctx.signal).then((first) => answerWith(run, first, config));
  }

  function answerWith(
    run: Run,
    first: First | undefined,
    config: { historyLength?: number } | undefined,
  ): SendAnswer | Promise<SendAnswer> {
    if (first && "message" in first) return { payload: { case: "message", value: first.message } };
    const answer = (stored: { task: TaskLike } | undefined): SendAnswer => {
      if (!stored) throw A2AErrors.taskNotFound(run.key.id);
      return { payload: { case: "task", value: view(stored.task, config?.historyLength) } };
    };
    return mem ? answer(mem.get(run.key, run.entry)) : store.tasks.get(run.key).then(answer);
  }

  const handlers = {
    sendMessage(req: AnyRequest, ctx: HandlerContext) {
      // A new task that a quick executor settles within its call (on the memory store) is answered within this one.
      try {
        const run = begin(req, ctx, false);
        return run instanceof Promise ? run.then((r) => sendAnswer(r, req, ctx)) : sendAnswer(run, req, ctx);
      } catch (e) {
        return Promise.reject(e);
      }
    },

    sendStreamingMessage(req: AnyRequest, ctx: HandlerContext) {
      return new TaskStream(
        async () => {
          requireStreaming(currentCard());
          const run = await begin(req, ctx, true);
          const sub = run.subscriber!;
          try {
            // The stream's first event waits for the executor: a Message reply, or the task once it is stored.
            const settled = run.first.done && run.first.value !== undefined && !ctx.signal.aborted;
            const first = settled ? run.first.value : await unlessAborted(run.first.promise, ctx.signal);
            if (first === undefined) return { first: [], follow: undefined, sub };
            if ("message" in first) return { first: [{ payload: { case: "message", value: first.message } }], follow: undefined, sub };
            const head = [{ payload: { case: "task", value: first.task } }];
            if (endsTask(first.task)) return { first: head, follow: undefined, sub };
            return { first: head, follow: subscribers.follow(sub, run.key, run.topic, first.version), sub };
          } catch (e) {
            sub.close();
            throw e;
          }
        },
        endsStream,
        () => ctx.signal,
      );
    },

    ...readTaskRpcs({ store, keyOf }),

    async cancelTask(req: AnyRequest, ctx: HandlerContext) {
      const key = keyOf(ctx, req.id);
      const topic = topicOf(key);
      return locks.run(topic, async () => {
        for (let tries = 0; ; tries++) {
          const stored = await store.tasks.get(key);
          if (!stored) throw A2AErrors.taskNotFound(req.id);
          const state = stored.task.status?.state ?? 0;
          if (isTerminal(state)) throw A2AErrors.taskNotCancelable(req.id, `task ${req.id} is already ${stateName(state)}`);
          const next = statusChange(stored.task, TaskState.CANCELED, undefined, Date.now());
          try {
            await commit(key, topic, stored.version, next.task, next.event);
          } catch (e) {
            // The executor (here or on another instance) published in between: cancel what it made.
            if (e instanceof StaleVersionError && tries < STALE_RETRIES) continue;
            throw e;
          }
          // A run on another instance hears of it from the store (see onRemoteEvent).
          stopRuns(topic, `task ${req.id} was canceled`);
          return next.task;
        }
      });
    },

    subscribeToTask(req: AnyRequest, ctx: HandlerContext) {
      return new TaskStream(
        async () => {
          requireStreaming(currentCard());
          const key = keyOf(ctx, req.id);
          // Another instance's events reach this one only once it listens.
          await watching;
          const topic = topicOf(key);
          const sub = subscribers.subscribe(topic);
          try {
            const stored = await store.tasks.get(key);
            if (!stored) throw A2AErrors.taskNotFound(req.id);
            const state = stored.task.status?.state ?? 0;
            if (isTerminal(state)) {
              throw A2AErrors.unsupportedOperation(`task ${req.id} is ${stateName(state)}: there is nothing to subscribe to`, {
                taskId: req.id,
              });
            }
            return {
              first: [{ payload: { case: "task", value: stored.task } }],
              follow: subscribers.follow(sub, key, topic, stored.version),
              sub,
            };
          } catch (e) {
            sub.close();
            throw e;
          }
        },
        endsStream,
        () => ctx.signal,
      );
    },

    ...pushConfigRpcs({ store, push, pushSender, card: currentCard, keyOf }),
    ...agentCardRpcs({ options, card: currentCard, ownerOf }),
  };

  function stopRuns(topic: string, why: string): void {
    // A run that stopped publishing (INPUT_REQUIRED) may still be at work: its signal fires too.
    for (const run of live) if (run.topic === topic) stopRun(run, new RpcError(Code.CANCELLED, why));
    // A follow-up whose turn is stored but whose executor has not started yet (the lock
    // hands over before the follow-up's own code goes on): it starts stopped.
    const next = runs.get(topic);
    if (next && !live.has(next)) stopRun(next, new RpcError(Code.CANCELLED, why));
  }

  // --- several instances on one store ------------------------------------------

  /** Follows events that other instances commit: to this one's subscribers, and to its runs (a cancel). */
  const catchingUp = new Map<string, Promise<void>>();
  function onRemoteEvent(key: TaskKey, seq: number): void {
    const topic = topicOf(key);
    const subscribed = subscribers.has(topic);
    const running = runsOn(topic, false);
    if (!subscribed && !running) return;
    // One catch-up at a time per task, in the order the notifications came.
    const before = catchingUp.get(topic) ?? Promise.resolve();
    const next = before.then(() => catchUp(key, topic, seq)).catch(onError);
    catchingUp.set(topic, next);
    void next.then(() => {
      if (catchingUp.get(topic) === next) catchingUp.delete(topic);
    });
  }

  /** Whether an executor of this task is live here (still publishing, when `publishing`); every notification asks, so no copy of the set. */
  function runsOn(topic: string, publishing: boolean): boolean {
    for (const r of live) if (r.topic === topic && !(publishing && r.done)) return true;
    return false;
  }

  /** Hands subscribers the task's events they lack, and stops a run here whose task another instance ended. */
  async function catchUp(key: TaskKey, topic: string, seq: number): Promise<void> {
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
    if (ended !== undefined)
      stopRuns(
        topic,
        `task ${key.id} was ${ended === TaskState.CANCELED ? "canceled" : `ended (${stateName(ended)})`} through another instance`,
      );
  }

  /** After notifications may have been lost: every task followed here catches up from the store. */
  function onMissedEvents(): void {
    const keys = new Map<string, TaskKey>();
    for (const run of live) if (!run.done) keys.set(run.topic, run.key);
    for (const topic of subscribers.topics()) if (!keys.has(topic)) keys.set(topic, keyOfTopic(topic));
    for (const [topic, key] of keys) onRemoteEvent(key, (subscribers.handedUpTo(topic) ?? 0) + 1);
  }

  /** The leases of the tasks whose executors run here, renewed well before they lapse. */
  async function renewLeases(): Promise<void> {
    const keys = [...live].filter((r) => !r.done && !r.unstored && !r.reply).map((r) => r.key);
    await shared!.renew(keys);
  }

  /** Ends the tasks of instances that stopped renewing their leases (they died or lost the database). */
  async function sweepExpired(): Promise<void> {
    for (const t of await shared!.expired(SWEEP_BATCH)) {
      const topic = topicOf(t.key);
      // Our own lease lapsed while the run goes on here (a stalled event loop): renewing is the answer, not failing.
      if (t.holder === shared!.instance && runsOn(topic, true)) continue;
      const reason =
        "the agent instance that was working on this task stopped renewing its lease (it stopped or lost the database); the task cannot go on";
      const next = statusChange(t.task, TaskState.FAILED, agentMessage(reason, t.key.id, t.task.contextId), Date.now());
      try {
        await shared!.takeOver(t.key, next.task, t.version, statusTime(next.task), next.event);
      } catch (e) {
        // Renewed, or ended, or taken over by another instance in between: nothing to do.
        if (e instanceof StaleVersionError) continue;
        throw e;
      }
      await locks.run(topic, async () => published(t.key, topic, t.version + 1, next.event, next.task));
    }
  }

  const timers: ReturnType<typeof setInterval>[] = [];
  let outbox: OutboxWorker | undefined;
  let unwatch: (() => Promise<void>) | undefined;
  const watching: Promise<void> = shared
    ? shared.watch(onRemoteEvent, onMissedEvents).then(
        (stop) => void (unwatch = stop),
        (e: unknown) => onError(e),
      )
    : Promise.resolve();
  if (shared) {
    const every = (ms: number, fn: () => Promise<void>) => {
      let busy = false;
      const t = setInterval(() => {
        if (busy || closed) return;
        busy = true;
        fn().then(
          () => (busy = false),
          (e: unknown) => {
            busy = false;
            onError(e);
          },
        );
      }, ms);
      t.unref?.();
      timers.push(t);
    };
    every(Math.max(10, Math.floor(shared.leaseMs / 3)), renewLeases);
    every(Math.max(10, Math.floor(shared.leaseMs / 2)), sweepExpired);
    // Without a sender this instance sends nothing; instances with one send the shared outbox.
    if (schemas.pushConfig && pushSender) outbox = startOutboxWorker(shared.outbox, pushSender, { body: push.outboxBody, onError });
  }

  // Only the rpcs the user's service has: an older a2a.proto without some rpc still binds.
  const bound: Record<string, (request: AnyRequest, context: HandlerContext) => unknown> = {};
  for (const m of service.methods) {
    const h = (handlers as Record<string, (request: AnyRequest, context: HandlerContext) => unknown>)[m.localName];
    if (h) bound[m.localName] = h;
  }
  // Read by the adapters (a2a-v03/common.ts, servesV03): v0.3 off for every binding of these handlers.
  if (options.a2aV03 === false) Object.defineProperty(bound, A2A_V03_HANDLERS, { value: false });
  return Object.assign(bound, {
    async close() {
      if (closed) return;
      closed = true;
      const running = [...live];
      for (const run of running) run.controller.abort(new RpcError(Code.UNAVAILABLE, "the agent is shutting down"));
      // Executors that ignore their signal are not waited for past a bound: shutdown must end.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        Promise.all(running.map((r) => r.returned.promise)),
        new Promise((resolve) => (timer = setTimeout(resolve, SHUTDOWN_WAIT_MS))),
      ]);
      clearTimeout(timer);
      subscribers.closeAll();
      for (const t of timers) clearInterval(t);
      await watching;
      await unwatch?.();
      await outbox?.close();
      await pushSender?.close();
      await store.close?.();
    },
  });
}

function textOf(parts: readonly PartLike[]): string {
  // The usual message: one text part.
  if (parts.length === 1 && parts[0]!.content.case === "text") return parts[0]!.content.value as string;
  const texts: string[] = [];
  for (const p of parts) if (p.content.case === "text") texts.push(p.content.value as string);
  return texts.join("\n");
}
