/**
 * Task changes: what one update does to a task, as the new task and the
 * event that says so (a status with its message in the history, an artifact
 * added, replaced or appended to), and the agent's messages and artifacts
 * they carry. Pure: nothing is stored here; the engine commits what these
 * make. The stored task is never changed in place (it may still be being
 * written to a client): a change copies what it changes.
 */
import { create, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { eventMakers, maker, newId, shapeMakers, timestampFromMs, type ShapeMakers } from "./message-makers.js";
import type { Schemas } from "./schemas.js";
import { ROLE_AGENT, type Content, type MessageLike, type TaskLike } from "./types.js";

type Artifact = TaskLike["artifacts"][number];

/** A change of a task: the task after it, and the StreamResponse event that says so. */
export interface TaskChange {
  readonly task: TaskLike;
  readonly event: ProtoMessage;
}

export interface TaskChanges {
  /** The task, message and artifact makers of the schemas (new tasks, the client's message in its task). */
  readonly shape: ShapeMakers;
  /** A message of the agent in the task and context: a string is one text part; parts given go through create(). */
  agentMessage(content: Content, taskId: string, contextId: string): MessageLike;
  /** A StreamResponse of a Task (already a message). */
  taskEvent(task: TaskLike): ProtoMessage;
  /** A TaskStatus of the state, with its message, at `at` (ms). */
  statusOf(state: number, message: MessageLike | undefined, at: number): TaskLike["status"];
  /** The task in a new state, the message (if any) added to its history; the event a status update. */
  statusChange(task: TaskLike, state: number, message: MessageLike | undefined, at: number): TaskChange;
  /** The task with the artifact added, replacing the one of its id, or appended to it; the event an artifact update. */
  artifactChange(task: TaskLike, artifact: Artifact, append: boolean, lastChunk: boolean): TaskChange;
  /** The artifact of the executor's init (a string is one text part), given an id when it has none. */
  toArtifact(a: object | string): Artifact;
}

/** The changes for the schemas given (their makers are chosen once, here). */
export function taskChanges(schemas: Schemas): TaskChanges {
  const make = { message: maker(schemas.message) };
  const made = eventMakers(schemas);
  const shape = shapeMakers(schemas);

  /** Content as the message's parts: a string is one text part, made here; the user's parts go through create(). */
  function partsOf(content: Content): readonly object[] {
    return typeof content === "string" ? [shape.textPart(content)] : (content as readonly object[]);
  }

  function agentMessage(content: Content, taskId: string, contextId: string): MessageLike {
    const init = { messageId: newId(), contextId, taskId, role: ROLE_AGENT, parts: partsOf(content) };
    return (typeof content === "string" ? make.message(init) : create(schemas.message, init as never)) as unknown as MessageLike;
  }

  function taskEvent(task: TaskLike): ProtoMessage {
    return made.stream("task", task);
  }

  function statusOf(state: number, message: MessageLike | undefined, at: number) {
    return made.status(state, message, timestampFromMs(at, made)) as unknown as TaskLike["status"];
  }

  function statusChange(task: TaskLike, state: number, message: MessageLike | undefined, at: number) {
    const status = statusOf(state, message, at);
    const next = shape.copyTask(task);
    next.status = status;
    if (message) next.history = [...task.history, message];
    const event = made.stream("statusUpdate", made.statusUpdate(task.id, task.contextId, status));
    return { task: next, event };
  }

  function artifactChange(task: TaskLike, artifact: Artifact, append: boolean, lastChunk: boolean) {
    // A copy of what changes (a stored task may still be being written to a client).
    const artifacts = task.artifacts.slice();
    let i = 0;
    while (i < artifacts.length && artifacts[i]!.artifactId !== artifact.artifactId) i++;
    if (i === artifacts.length) artifacts.push(artifact);
    else if (!append) artifacts[i] = artifact;
    else {
      const appended = shape.copyArtifact(artifacts[i]!);
      appended.parts = appended.parts.concat(artifact.parts);
      artifacts[i] = appended;
    }
    const event = made.stream("artifactUpdate", made.artifactUpdate(task.id, task.contextId, artifact, append, lastChunk));
    const next = shape.copyTask(task);
    next.artifacts = artifacts;
    return { task: next, event };
  }

  function toArtifact(a: object | string): Artifact {
    const artifact =
      typeof a === "string"
        ? shape.artifact(partsOf(a))
        : (shape.artifactOf(a) ?? (create(schemas.artifact, a as never) as unknown as Artifact));
    if (artifact.artifactId === "") artifact.artifactId = newId();
    return artifact;
  }

  return { shape, agentMessage, taskEvent, statusOf, statusChange, artifactChange, toArtifact };
}
