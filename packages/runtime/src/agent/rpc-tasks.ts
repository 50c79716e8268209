/**
 * The rpcs on the caller's tasks: GetTask and ListTasks, which change
 * nothing; CancelTask; SubscribeToTask. They see only the caller's tasks
 * (tenant and owner from the key). The reads answer views trimmed as asked
 * (task-view.ts), and turn ListTasks' page positions into opaque tokens and
 * back (page-tokens.ts). A cancel is one more event, committed under the
 * task's lock, and stops the task's runs here (on other instances they hear
 * of it from the store: execution-distributed.ts).
 */
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { A2AErrors, isTerminal, TaskState } from "../a2a.js";
import type { HandlerContext } from "../route-binding.js";
import { linkToTask } from "../telemetry.js";
import { requireStreaming } from "./capabilities.js";
import type { Execution } from "./execution.js";
import type { AgentCardLike } from "./options.js";
import { decodePageToken, encodePageToken } from "./page-tokens.js";
import type { RunTable } from "./run-table.js";
import { StaleVersionError, type AgentStore, type TaskKey } from "./store.js";
import type { Subscribers } from "./subscribers.js";
import type { TaskChanges } from "./task-changes.js";
import { topicOf } from "./task-key.js";
import type { TaskLocks } from "./task-lock.js";
import { endsStream, stateName } from "./task-state.js";
import { TaskStream } from "./task-stream.js";
import { checkHistoryLength, view } from "./task-view.js";
import { STALE_RETRIES, type TaskWriter } from "./task-writer.js";

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;

/** ListTasks' page size when the request gives none. */
const DEFAULT_PAGE_SIZE = 50;

/** What the task rpcs need of the engine. */
export interface TaskRpcDeps {
  readonly store: AgentStore;
  /** The key of the caller's task of that id. */
  readonly keyOf: (ctx: HandlerContext, id: string) => TaskKey;
  /** The card as it is now (read per request). */
  readonly card: () => AgentCardLike;
  readonly locks: TaskLocks;
  readonly writer: TaskWriter;
  readonly runs: RunTable;
  readonly subscribers: Subscribers;
  readonly execution: Execution;
  readonly changes: Pick<TaskChanges, "statusChange">;
}

export function taskRpcs({ store, keyOf, card, locks, writer, runs, subscribers, execution, changes }: TaskRpcDeps) {
  return {
    async getTask(req: AnyRequest, ctx: HandlerContext) {
      checkHistoryLength(req.historyLength);
      const stored = await store.tasks.get(keyOf(ctx, req.id));
      if (!stored) throw A2AErrors.taskNotFound(req.id);
      return view(stored.task, req.historyLength);
    },

    async listTasks(req: AnyRequest, ctx: HandlerContext) {
      const pageSize: number = req.pageSize ?? DEFAULT_PAGE_SIZE;
      if (pageSize < 1 || pageSize > 100) throw A2AErrors.invalidParams(`pageSize must be between 1 and 100, got ${pageSize}`);
      checkHistoryLength(req.historyLength);
      const key = keyOf(ctx, "");
      const page = await store.tasks.list({
        tenant: key.tenant,
        owner: key.owner,
        contextId: req.contextId ?? "",
        state: req.status ?? 0,
        updatedSince: req.statusTimestampAfter ? timestampMs(req.statusTimestampAfter) : undefined,
        pageSize,
        after: req.pageToken ? decodePageToken(req.pageToken) : undefined,
      });
      return {
        tasks: page.tasks.map((t) => view(t, req.historyLength, req.includeArtifacts === true)),
        nextPageToken: page.next ? encodePageToken(page.next) : "",
        pageSize,
        totalSize: page.total,
      };
    },

    async cancelTask(req: AnyRequest, ctx: HandlerContext) {
      const key = keyOf(ctx, req.id);
      const topic = topicOf(key);
      return locks.run(topic, async () => {
        for (let tries = 0; ; tries++) {
          const stored = await store.tasks.get(key);
          if (!stored) throw A2AErrors.taskNotFound(req.id);
          if (tries === 0) linkToTask(ctx, stored.trace);
          const state = stored.task.status?.state ?? 0;
          if (isTerminal(state)) throw A2AErrors.taskNotCancelable(req.id, `task ${req.id} is already ${stateName(state)}`);
          const next = changes.statusChange(stored.task, TaskState.CANCELED, undefined, Date.now());
          try {
            await writer.commit(key, topic, stored.version, next.task, next.event);
          } catch (e) {
            // The executor (here or on another instance) published in between: cancel what it made.
            if (e instanceof StaleVersionError && tries < STALE_RETRIES) continue;
            throw e;
          }
          runs.stopTask(topic, `task ${req.id} was canceled`);
          return next.task;
        }
      });
    },

    subscribeToTask(req: AnyRequest, ctx: HandlerContext) {
      return new TaskStream(
        async () => {
          requireStreaming(card());
          const key = keyOf(ctx, req.id);
          // Another instance's events reach this one only once it listens.
          await execution.ready;
          const topic = topicOf(key);
          const sub = subscribers.subscribe(topic);
          try {
            const stored = await store.tasks.get(key);
            if (!stored) throw A2AErrors.taskNotFound(req.id);
            linkToTask(ctx, stored.trace);
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
  };
}
