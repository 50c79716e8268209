/**
 * What a task's state means to the engine, said once: when the executor's
 * turn is over (the task ended, or waits for the client) and so a stream
 * ends, a state's name for messages, the state an event carries, and the
 * time ListTasks orders by.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { endsTurn } from "../a2a.js";
import { TaskState, type TaskLike } from "./types.js";

export { endsTurn };

/** Whether a stream that gives this task as it is now ends with it (see {@link endsTurn}). */
export function endsTask(task: TaskLike): boolean {
  return endsTurn(task.status?.state ?? 0);
}

/** Whether a stream ends with this event: a Message, or a task or status update whose state {@link endsTurn}. */
export function endsStream(event: ProtoMessage): boolean {
  return (event as unknown as { payload: { case: string } }).payload.case === "message" || endsTurn(stateOfEvent(event));
}

/** The task state an event carries (a Task or a status update), else 0. */
export function stateOfEvent(event: ProtoMessage): number {
  const payload = (event as unknown as { payload: { case: string; value: { status?: { state: number } } } }).payload;
  return payload.case === "statusUpdate" || payload.case === "task" ? (payload.value.status?.state ?? 0) : 0;
}

/** A state's name (TaskState's key), for messages: 3 gives "COMPLETED". */
export function stateName(state: number): string {
  return (Object.keys(TaskState) as (keyof typeof TaskState)[]).find((k) => TaskState[k] === state) ?? String(state);
}

/** When the task's status last changed: what ListTasks filters and orders by (an artifact alone does not move it). */
export function statusTime(task: TaskLike): number {
  const t = task.status?.timestamp;
  return t ? timestampMs(t) : Date.now();
}
