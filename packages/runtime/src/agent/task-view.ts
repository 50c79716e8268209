/**
 * A task as an rpc answers it: the last `historyLength` messages of its
 * history, its artifacts or not (GetTask, ListTasks, SendMessage), and the
 * check of `historyLength` itself. The stored task is never changed: a view
 * that trims is a shallow copy.
 */
import { A2AErrors } from "../a2a.js";
import { copyOf } from "./message-makers.js";
import type { TaskLike } from "./types.js";

/** A copy of the task to answer with: the last `historyLength` messages, artifacts or not (the task itself when nothing is trimmed). */
export function view(task: TaskLike, historyLength: number | undefined, includeArtifacts = true): TaskLike {
  const history = historyLength === undefined ? task.history : historyLength === 0 ? [] : task.history.slice(-historyLength);
  const artifacts = includeArtifacts ? task.artifacts : [];
  return history === task.history && artifacts === task.artifacts ? task : Object.assign(copyOf(task), { history, artifacts });
}

/** InvalidParams for a negative `historyLength`. */
export function checkHistoryLength(n: number | undefined): void {
  if (n !== undefined && n < 0) throw A2AErrors.invalidParams(`historyLength must not be negative, got ${n}`);
}
