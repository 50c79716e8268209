/**
 * A run's life: the executor called with its input and task updater, every
 * publication going through the task writer, and its end. An executor that
 * returns without ending its task has COMPLETED it; one that throws has
 * FAILED it (an RpcError's message is the reason, anything else is reported
 * to onError and the reason kept generic); one still at work when the agent
 * shuts down has FAILED it. Then the run table hears that it returned.
 */
import { clone } from "@bufbuild/protobuf";
import { TaskState } from "../a2a.js";
import { isRpcError } from "../errors.js";
import type { HandlerContext } from "../route-binding.js";
import { spanOf, telemetry, type Telemetry } from "../telemetry.js";
import { DONE, type Run } from "./run.js";
import type { RunTable } from "./run-table.js";
import type { Schemas } from "./schemas.js";
import type { Subscribers } from "./subscribers.js";
import type { TaskChanges } from "./task-changes.js";
import type { TaskWriter } from "./task-writer.js";
import type { AgentExecutor, AgentTypes, Content, ExecutorInput, MessageLike, PartLike, TaskLike, TaskUpdater } from "./types.js";

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

const signalGetter = ownGetter(function (this: { [RUN]: Run }) {
  return this[RUN].controller.signal;
});

export interface RunLifecycleDeps<T extends AgentTypes> {
  readonly executor: AgentExecutor<T>;
  readonly schemas: Pick<Schemas, "task">;
  readonly writer: TaskWriter;
  readonly runs: RunTable;
  readonly subscribers: Subscribers;
  readonly changes: Pick<TaskChanges, "agentMessage" | "statusChange" | "artifactChange" | "toArtifact">;
  readonly onError: (e: unknown) => void;
}

export class RunLifecycle<T extends AgentTypes> {
  /** The executor's `task`: a copy of the task as it was when the executor started. */
  private readonly taskGetter: PropertyDescriptor;

  constructor(private readonly deps: RunLifecycleDeps<T>) {
    const schema = deps.schemas.task;
    this.taskGetter = ownGetter(function (this: { [SNAPSHOT]: TaskLike }) {
      return clone(schema, this[SNAPSHOT] as never);
    });
  }

  /** Starts the executor on the task of `run` (subscribing a stream first), `message` being the turn's. */
  launch(run: Run, ctx: HandlerContext, stream: boolean, message: MessageLike, snapshot: TaskLike, continued: boolean): Run {
    // Subscribed before the executor starts, so a stream misses none of its events.
    if (stream) run.subscriber = this.deps.subscribers.subscribe(run.topic);
    // Built field by field in the literal's order, with `task` and `signal` shared getters (see ownGetter).
    const input = { [RUN]: run, [SNAPSHOT]: snapshot, message, text: textOf(message.parts) } as unknown as Record<string | symbol, unknown>;
    Object.defineProperty(input, "task", this.taskGetter);
    input.continued = continued;
    input.taskId = run.key.id;
    input.contextId = snapshot.contextId;
    input.tenant = run.key.tenant;
    input.owner = run.key.owner;
    Object.defineProperty(input, "signal", signalGetter);
    input.context = ctx;
    const t = telemetry.on;
    if (t === undefined) this.start(run, input as unknown as ExecutorInput<T>);
    else this.traced(t, run, input as unknown as ExecutorInput<T>, continued);
    // The executor may outlive the answer (returnImmediately, a task waiting
    // for input, a client that left): on Workers its work would be dropped
    // with the answer unless the host is told to wait for it.
    ctx.waitUntil?.(run.returned.promise);
    return run;
  }

  /**
   * The run in its span (telemetry.ts), a child of the request's: the
   * executor runs in its context, so what it calls (another agent through
   * the generated client) continues the trace, and so do the push deliveries
   * its publications queue. It ends when the executor has returned.
   */
  private traced(t: Telemetry, run: Run, input: ExecutorInput<T>, continued: boolean): void {
    const parent = spanOf(input.context);
    const ids = { tenant: run.key.tenant || undefined, taskId: run.key.id, contextId: input.contextId };
    parent?.annotate(ids);
    const span = t.executorRun(parent, ids, continued);
    span.run(() => this.start(run, input));
    const end = () => span.end(run.latest?.task.status?.state);
    run.returned.promise.then(end, end);
  }

  /** Runs the executor; when it returns without an end, the task is COMPLETED; when it throws, FAILED. */
  private start(run: Run, input: ExecutorInput<T>): void {
    const task = this.updater(run, input.contextId);
    this.deps.runs.started(run);
    let result: void | Promise<void>;
    try {
      result = this.deps.executor(input, task);
    } catch (e) {
      void this.finish(run, input.contextId, e);
      return;
    }
    // A quick executor has ended its task within its call and returned nothing pending
    // (undefined, or the settled promise a publication done at once answers): over now.
    if ((result === undefined || result === DONE) && run.done && run.chain === undefined) return this.deps.runs.returned(run);
    Promise.resolve(result).then(
      // The usual end: the executor ended the task itself, and nothing it published is pending.
      () => (run.done && run.chain === undefined ? this.deps.runs.returned(run) : this.finish(run, input.contextId, undefined)),
      (e) => this.finish(run, input.contextId, e),
    );
  }

  /** After the executor returned (or threw) and its last publication settled: COMPLETED or FAILED unless it ended the task. */
  private async finish(run: Run, contextId: string, error: unknown): Promise<void> {
    const { writer, changes, onError } = this.deps;
    if (run.chain) await run.chain.catch(() => {});
    const fail = (reason: string) =>
      writer.publish(run, (t, at) => changes.statusChange(t, TaskState.FAILED, changes.agentMessage(reason, run.key.id, contextId), at));
    try {
      if (!run.done) {
        if (this.deps.runs.closed) await fail("the agent shut down before the task finished");
        else if (error === undefined) await writer.publish(run, (t, at) => changes.statusChange(t, TaskState.COMPLETED, undefined, at));
        else {
          if (!isRpcError(error)) onError(error);
          await fail(isRpcError(error) ? error.message : "the agent failed while working on the task");
        }
      }
    } catch (e) {
      if (!run.done) onError(e);
      // Nothing could be stored: the request answers this error.
      run.first.reject(e);
    } finally {
      this.deps.runs.returned(run);
    }
  }

  /** The executor's task updater: each call one publication of the run. */
  private updater(run: Run, contextId: string): TaskUpdater<T> {
    const { writer, changes } = this.deps;
    const id = run.key.id;
    const message = (content: Content<T> | undefined) => (content === undefined ? undefined : changes.agentMessage(content, id, contextId));
    const status = (state: number, content?: Content<T>) => {
      const m = message(content);
      return writer.publish(run, (task, at) => changes.statusChange(task, state, m, at));
    };
    const artifact = (a: T["artifact"] | string, o: { readonly append?: boolean; readonly lastChunk?: boolean } = {}) => {
      const made = changes.toArtifact(a);
      return writer.publish(run, (task) => changes.artifactChange(task, made, o.append ?? false, o.lastChunk ?? false));
    };
    // Built field by field in the literal's order, with `signal` a shared getter (see ownGetter).
    const updater = { [RUN]: run, taskId: id, contextId } as unknown as Record<string | symbol, unknown>;
    Object.defineProperty(updater, "signal", signalGetter);
    updater.reply = (content: Content<T>) => writer.publish(run, "reply", content);
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
}

function textOf(parts: readonly PartLike[]): string {
  // The usual message: one text part.
  if (parts.length === 1 && parts[0]!.content.case === "text") return parts[0]!.content.value as string;
  const texts: string[] = [];
  for (const p of parts) if (p.content.case === "text") texts.push(p.content.value as string);
  return texts.join("\n");
}
