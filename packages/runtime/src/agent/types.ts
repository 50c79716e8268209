/**
 * The shapes the task engine reads and writes, and the executor API.
 *
 * The engine is schema-generic: it never imports a generated a2a_pb.ts. It
 * takes the user's own `A2AService` descriptor, finds the message schemas
 * through its methods, and touches only the fields that A2A v1.0 defines, by
 * their protobuf-es local names. These interfaces are those fields, so the
 * user's generated types satisfy them structurally, and a newer a2a.proto
 * with additive changes needs no new runtime.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import type { Timestamp } from "@bufbuild/protobuf/wkt";
import type { HandlerContext } from "../route-binding.js";

import type { TaskState } from "../a2a.js";

export { TaskState, isTerminal, isInterrupted } from "../a2a.js";

/** lf.a2a.v1.Role.ROLE_AGENT. */
export const ROLE_AGENT = 2;

export interface PartLike {
  readonly content: { readonly case: string | undefined; readonly value?: unknown };
  readonly mediaType: string;
  readonly filename: string;
}

export interface MessageLike extends ProtoMessage {
  messageId: string;
  contextId: string;
  taskId: string;
  role: number;
  parts: PartLike[];
  extensions: string[];
}

export interface TaskStatusLike {
  state: number;
  message?: MessageLike | undefined;
  timestamp?: Timestamp | undefined;
}

export interface ArtifactLike {
  artifactId: string;
  parts: PartLike[];
}

export interface TaskLike extends ProtoMessage {
  id: string;
  contextId: string;
  status?: TaskStatusLike | undefined;
  artifacts: ArtifactLike[];
  history: MessageLike[];
}

/**
 * The user's generated types the engine's API is written in: the generated
 * `create<Service>Agent` fills this in from the user's a2a_pb.ts.
 */
export interface AgentTypes {
  /** lf.a2a.v1.Message */
  readonly message: MessageLike;
  /** lf.a2a.v1.Task */
  readonly task: TaskLike;
  /** The init shape of lf.a2a.v1.Part. */
  readonly part: object;
  /** The init shape of lf.a2a.v1.Artifact. */
  readonly artifact: object;
  /** The handler context (with what the server's context factory adds). */
  readonly context: HandlerContext;
}

/** What the executor is given for one incoming message. */
export interface ExecutorInput<T extends AgentTypes = AgentTypes> {
  /** The incoming message, with its taskId and contextId filled in. */
  readonly message: T["message"];
  /** The message's text parts, joined with "\n" ("" when it has none). */
  readonly text: string;
  /** The task so far, this message already in its history (a copy: changing it changes nothing). */
  readonly task: T["task"];
  /** True when the message continues an existing task (multi-turn). */
  readonly continued: boolean;
  readonly taskId: string;
  readonly contextId: string;
  /** The effective tenant ("" when none). */
  readonly tenant: string;
  /** Who the task belongs to (the owner resolver's answer; "" for anonymous callers). */
  readonly owner: string;
  /** Fires on CancelTask and on shutdown (`agent.close()`). */
  readonly signal: AbortSignal;
  /** The request's handler context: headers, extensions, what the context factory added. */
  readonly context: T["context"];
}

/** Text, or the parts of a message. */
export type Content<T extends AgentTypes = AgentTypes> = string | readonly T["part"][];

/**
 * How the executor answers. Each call is applied in order, whether or not it
 * is awaited; the promise settles once the update is stored and sent to
 * subscribers, and rejects when the task can take no more updates (it has
 * ended, or was canceled).
 */
export interface TaskUpdater<T extends AgentTypes = AgentTypes> {
  readonly taskId: string;
  readonly contextId: string;
  /** Same as the input's signal. */
  readonly signal: AbortSignal;
  /** Answers with a Message instead of a task. Only as the executor's first and only output. */
  reply(content: Content<T>): Promise<void>;
  /** Status WORKING, with an optional progress message from the agent. */
  working(message?: Content<T>): Promise<void>;
  /**
   * Adds an artifact (a text becomes one text part), or a chunk of one:
   * `append` adds its parts to the artifact of the same id, `lastChunk` marks
   * its end.
   */
  artifact(artifact: T["artifact"] | string, options?: { readonly append?: boolean; readonly lastChunk?: boolean }): Promise<void>;
  /** Optionally an artifact (text or an Artifact), then COMPLETED. */
  complete(result?: T["artifact"] | string): Promise<void>;
  /** FAILED, with the reason as the status message. */
  fail(reason: Content<T>): Promise<void>;
  /** REJECTED, with the reason as the status message. */
  reject(reason: Content<T>): Promise<void>;
  /** INPUT_REQUIRED: the task waits for the client's next message. */
  askForInput(question: Content<T>): Promise<void>;
  /** AUTH_REQUIRED: the task waits for the client to authenticate. */
  askForAuth(reason: Content<T>): Promise<void>;
  /** Any status, with an optional message (the helpers above cover the usual ones). */
  status(state: TaskState, message?: Content<T>): Promise<void>;
}

/**
 * What an agent does with one incoming message. It publishes through
 * `task`; when it returns without having ended or interrupted the task (and
 * without a reply), the task is COMPLETED. When it throws, the task FAILED:
 * the status message is the message of an {@link RpcError}, or a generic one
 * (the error goes to `onError`).
 */
export type AgentExecutor<T extends AgentTypes = AgentTypes> = (input: ExecutorInput<T>, task: TaskUpdater<T>) => void | Promise<void>;
