/**
 * The messages the engine makes: tasks, statuses, events, artifacts, parts,
 * ids and timestamps. It makes several per published event, so each maker
 * is an object literal when the schema is A2A v1.0's (checked once, on
 * samples, against what create() makes: literal-check.ts), else create()'s
 * own result without its per-call reflection. Nothing here holds state but a
 * cache of the last second made an int64 of.
 */
import { create, protoInt64, type DescMessage, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { everyField, makesSame } from "./literal-check.js";
import type { Schemas } from "./schemas.js";
import type { MessageLike, TaskLike } from "./types.js";

export type Init = Record<string, unknown>;

/**
 * A shallow copy of a message, to set fields of: as `{ ...m }`, but V8 makes
 * `{ ...m, field }`, and a field added to a spread copy, many times slower
 * than Object.assign (messages have no setters and no `__proto__` field).
 */
export function copyOf<M extends object>(m: M): M {
  return Object.assign({}, m);
}

/**
 * `create(desc, init)` for an init whose values are already what the message
 * holds (messages, scalars, oneof ADTs of those; undefined for unset): a copy
 * of the zero message with the values set, as create() makes it, without its
 * reflection over every field on every call (the engine makes several
 * messages per published event). Messages that need a prototype (proto2
 * defaults, editions) go through create() itself.
 */
export function maker(desc: DescMessage): (init: Init) => ProtoMessage {
  const zero = create(desc) as unknown as Init;
  if (Object.getPrototypeOf(zero) !== Object.prototype) return (init) => create(desc, init as never);
  // Lists, maps and oneof ADTs are mutable: each message gets its own.
  const names: string[] = [];
  const kinds: ("oneof" | "list" | "map")[] = [];
  for (const m of desc.members) {
    const kind = m.kind === "oneof" ? "oneof" : m.fieldKind === "list" || m.fieldKind === "map" ? m.fieldKind : undefined;
    if (kind === undefined) continue;
    names.push(m.localName);
    kinds.push(kind);
  }
  return (init) => {
    const msg: Init = copyOf(zero);
    for (let i = 0; i < names.length; i++) {
      const name = names[i]!;
      if (init[name] == null) msg[name] = kinds[i] === "oneof" ? { case: undefined } : kinds[i] === "list" ? [] : {};
    }
    for (const k in init) {
      const v = init[k];
      if (v != null) msg[k] = v;
    }
    return msg as unknown as ProtoMessage;
  };
}

const makeTimestamp = maker(TimestampSchema);

/** The messages the engine makes for every published event. */
export interface EventMakers {
  timestamp(seconds: unknown, nanos: number): ProtoMessage;
  status(state: number, message: MessageLike | undefined, timestamp: ProtoMessage): ProtoMessage;
  statusUpdate(taskId: string, contextId: string, status: unknown): ProtoMessage;
  artifactUpdate(taskId: string, contextId: string, artifact: unknown, append: boolean, lastChunk: boolean): ProtoMessage;
  stream(payload: string, value: unknown): ProtoMessage;
}

/**
 * The event messages as object literals when the schema's messages are A2A
 * v1.0's (V8 makes a literal in nanoseconds, a copy of the zero message in a
 * hundred); each is checked once against maker()'s, field for field
 * (literal-check.ts), and a schema that differs (a newer a2a.proto with
 * other fields) keeps maker()'s.
 */
/** Exported for its test only (not from a2a-http/agent). */
export function eventMakers(schemas: Pick<Schemas, "status" | "statusUpdate" | "artifactUpdate" | "stream">): EventMakers {
  const m = {
    timestamp: makeTimestamp,
    status: maker(schemas.status),
    statusUpdate: maker(schemas.statusUpdate),
    artifactUpdate: maker(schemas.artifactUpdate),
    stream: maker(schemas.stream),
  };
  const made: EventMakers = {
    timestamp: (seconds, nanos) => m.timestamp({ seconds, nanos }),
    status: (state, message, timestamp) => m.status({ state, message, timestamp }),
    statusUpdate: (taskId, contextId, status) => m.statusUpdate({ taskId, contextId, status }),
    artifactUpdate: (taskId, contextId, artifact, append, lastChunk) =>
      m.artifactUpdate({ taskId, contextId, artifact, append, lastChunk }),
    stream: (payload, value) => m.stream({ payload: { case: payload, value } }),
  };
  const ts = TimestampSchema.typeName;
  const st = schemas.status.typeName;
  const su = schemas.statusUpdate.typeName;
  const au = schemas.artifactUpdate.typeName;
  const sr = schemas.stream.typeName;
  const literal: EventMakers = {
    timestamp: (seconds, nanos) => ({ $typeName: ts, seconds, nanos }) as unknown as ProtoMessage,
    status: (state, message, timestamp) =>
      (message ? { $typeName: st, state, message, timestamp } : { $typeName: st, state, timestamp }) as unknown as ProtoMessage,
    statusUpdate: (taskId, contextId, status) => ({ $typeName: su, taskId, contextId, status }) as unknown as ProtoMessage,
    artifactUpdate: (taskId, contextId, artifact, append, lastChunk) =>
      ({ $typeName: au, taskId, contextId, append, lastChunk, artifact }) as unknown as ProtoMessage,
    stream: (payload, value) => ({ $typeName: sr, payload: { case: payload, value } }) as unknown as ProtoMessage,
  };
  const x = {} as MessageLike;
  const y = {};
  const pick = <K extends keyof EventMakers>(k: K, ...samples: Parameters<EventMakers[K]>[]): EventMakers[K] =>
    makesSame(literal[k] as (...a: unknown[]) => unknown, made[k] as (...a: unknown[]) => unknown, samples) ? literal[k] : made[k];
  return {
    timestamp: pick("timestamp", [protoInt64.parse(1), 2]),
    status: pick("status", [2, x, y as ProtoMessage], [2, undefined, y as ProtoMessage]),
    statusUpdate: pick("statusUpdate", ["t", "c", y]),
    artifactUpdate: pick("artifactUpdate", ["t", "c", y, true, false]),
    stream: pick("stream", ["task", y]),
  };
}

/** The task and artifact messages the engine makes and copies for every update. */
export interface ShapeMakers {
  /** A copy of a task, to set fields of. */
  copyTask(task: TaskLike): TaskLike;
  /** A copy of a message in the given task and context. */
  messageIn(message: MessageLike, taskId: string, contextId: string): MessageLike;
  /** A new task: no artifacts yet. */
  task(id: string, contextId: string, status: unknown, history: MessageLike[]): TaskLike;
  /** A copy of an artifact, to set fields of. */
  copyArtifact(artifact: TaskLike["artifacts"][number]): TaskLike["artifacts"][number];
  /** A text part. */
  textPart(text: string): object;
  /** An artifact of the given parts, its id "" (the engine gives it one). */
  artifact(parts: readonly object[]): TaskLike["artifacts"][number];
  /** As create(Artifact, init) for the usual init (text and url parts); undefined for anything else, which goes through create(). */
  artifactOf(init: unknown): TaskLike["artifacts"][number] | undefined;
}

/**
 * The task, artifact and part messages as object literals when the schema's
 * are A2A v1.0's (a copy of a message by Object.assign, or create() of an
 * init, costs several times as much, and keeps a message's fields out of the
 * object, in an array of their own). The literals have the fields create()
 * gives, message fields last as fromBinary and fromJson make them (the
 * order is not compared: literal-check.ts): each is checked once, on
 * samples, to give what create() or a copy gives, and a schema where any
 * differs (other fields, kinds, presence or defaults) keeps maker(),
 * Object.assign and create().
 */
/** Exported for its test only (not from a2a-http/agent). */
export function shapeMakers(schemas: Pick<Schemas, "task" | "message" | "artifact" | "part">): ShapeMakers {
  const make = { task: maker(schemas.task), artifact: maker(schemas.artifact), part: maker(schemas.part) };
  type Artifact = TaskLike["artifacts"][number];
  const generic: ShapeMakers = {
    copyTask: copyOf,
    messageIn: (m, taskId, contextId) => Object.assign(copyOf(m), { taskId, contextId }),
    task: (id, contextId, status, history) => make.task({ id, contextId, status, history }) as unknown as TaskLike,
    copyArtifact: copyOf,
    textPart: (text) => make.part({ content: { case: "text", value: text } }),
    artifact: (parts) => make.artifact({ parts }) as unknown as Artifact,
    artifactOf: () => undefined,
  };
  const tn = schemas.task.typeName;
  const mn = schemas.message.typeName;
  const an = schemas.artifact.typeName;
  const pn = schemas.part.typeName;
  type Loose = Record<string, unknown>;
  // A message with unknown fields, or with a field the literal has not, is copied whole.
  const copyTask = (t: TaskLike): TaskLike => {
    const x = t as unknown as Loose;
    if (x.$unknown !== undefined || x.status === undefined) return copyOf(t);
    const c: Loose = { $typeName: tn, id: t.id, contextId: t.contextId, artifacts: t.artifacts, history: t.history, status: t.status };
    if (x.metadata !== undefined) c.metadata = x.metadata;
    return c as unknown as TaskLike;
  };
  const messageIn = (m: MessageLike, taskId: string, contextId: string): MessageLike => {
    const x = m as unknown as Loose;
    if (x.$unknown !== undefined || x.$typeName !== mn) return generic.messageIn(m, taskId, contextId);
    const c: Loose = {
      $typeName: mn,
      messageId: m.messageId,
      contextId,
      taskId,
      role: m.role,
      parts: m.parts,
      extensions: m.extensions,
      referenceTaskIds: x.referenceTaskIds,
    };
    if (x.metadata !== undefined) c.metadata = x.metadata;
    return c as unknown as MessageLike;
  };
  const copyArtifact = (a: Artifact): Artifact => {
    const x = a as unknown as Loose;
    if (x.$unknown !== undefined) return copyOf(a);
    const c: Loose = {
      $typeName: an,
      artifactId: x.artifactId,
      name: x.name,
      description: x.description,
      parts: x.parts,
      extensions: x.extensions,
    };
    if (x.metadata !== undefined) c.metadata = x.metadata;
    return c as unknown as Artifact;
  };
  const plain = (v: unknown): v is Loose => typeof v === "object" && v !== null && Object.getPrototypeOf(v) === Object.prototype;
  // As create(Part, p) for a plain init with a text or url part, or none; else undefined.
  const partOf = (p: unknown): object | undefined => {
    if (!plain(p)) return undefined;
    if (p.$typeName !== undefined) return p.$typeName === pn ? p : undefined;
    const c = p.content as { case?: unknown; value?: unknown } | null | undefined;
    let content: { case: unknown; value?: unknown };
    if (c == null || c.case === undefined) content = { case: undefined };
    else if (c.case === "text" || c.case === "url") content = { case: c.case, value: c.value };
    else return undefined;
    const part: Loose = { $typeName: pn, content, filename: p.filename ?? "", mediaType: p.mediaType ?? "" };
    if (p.metadata != null) part.metadata = p.metadata;
    return part;
  };
  const artifactOf = (init: unknown): Artifact | undefined => {
    if (!plain(init) || init.$typeName !== undefined || !Array.isArray(init.parts)) return undefined;
    const given = init.parts as unknown[];
    const parts: object[] = new Array(given.length);
    for (let i = 0; i < given.length; i++) {
      const p = partOf(given[i]);
      if (p === undefined) return undefined;
      parts[i] = p;
    }
    const a: Loose = {
      $typeName: an,
      artifactId: init.artifactId ?? "",
      name: init.name ?? "",
      description: init.description ?? "",
      parts,
      extensions: init.extensions ?? [],
    };
    if (init.metadata != null) a.metadata = init.metadata;
    return a as unknown as Artifact;
  };
  const literal: ShapeMakers = {
    copyTask,
    messageIn,
    task: (id, contextId, status, history) => ({ $typeName: tn, id, contextId, artifacts: [], history, status }) as unknown as TaskLike,
    copyArtifact,
    textPart: (text) => ({ $typeName: pn, content: { case: "text", value: text }, filename: "", mediaType: "" }),
    artifact: (parts) => ({ $typeName: an, artifactId: "", name: "", description: "", parts, extensions: [] }) as unknown as Artifact,
    artifactOf,
  };
  // The samples: a copy is checked on a message with every field set (a field
  // the literal would drop shows only when set), with no metadata, and with
  // no field set; a new message and an artifact init against create().
  const filled = (desc: DescMessage, init?: Init) => create(desc, { ...everyField(desc), ...init }) as unknown as Loose;
  const copies = <M>(desc: DescMessage): [M][] => [filled(desc), filled(desc, { metadata: undefined }), create(desc)].map((m) => [m as M]);
  const task = filled(schemas.task);
  const part = filled(schemas.part);
  const partInit = (kind: string) => ({ ...everyField(schemas.part), content: { case: kind, value: "x" } });
  const artifactInit = { ...everyField(schemas.artifact), parts: [partInit("text"), partInit("url"), {}, part] };
  const same =
    makesSame(literal.copyTask, generic.copyTask, copies<TaskLike>(schemas.task)) &&
    makesSame(
      literal.messageIn,
      generic.messageIn,
      copies<MessageLike>(schemas.message).map(([m]): [MessageLike, string, string] => [m, "t", "c"]),
    ) &&
    makesSame(literal.copyArtifact, generic.copyArtifact, copies<Artifact>(schemas.artifact)) &&
    makesSame(
      literal.task,
      (id, contextId, status, history) => create(schemas.task, { id, contextId, status, history }) as unknown as TaskLike,
      [["t", "c", task.status, task.history as MessageLike[]]],
    ) &&
    makesSame(literal.textPart, (text) => create(schemas.part, { content: { case: "text", value: text } }), [["x"]]) &&
    makesSame(literal.artifact, (parts) => create(schemas.artifact, { parts }), [[[part]]]) &&
    makesSame(literal.artifactOf, (init) => create(schemas.artifact, init as Init), [[{ parts: [] }], [artifactInit]]);
  return same ? literal : generic;
}

/**
 * A new id (a UUID v4), as one flat string. Node builds a UUID by joining
 * twenty short strings, and V8 keeps such a join as a tree of them (about 490
 * bytes and a dozen objects against 60 bytes and one) until something reads
 * it whole; the engine keeps two or more ids per task for as long as the task
 * is stored, and the garbage collector walks them all. Reading a character
 * makes V8 flatten the string in place, and the tree goes at the next GC.
 */
export function newId(): string {
  const id = crypto.randomUUID();
  id.charCodeAt(0);
  return id;
}

/** The last second made an int64 of, and that int64 (a bigint, or a string without BigInt): the next status is often in the same second. */
let lastSecond = NaN;
let lastSeconds: ReturnType<typeof protoInt64.parse> = protoInt64.zero;

/** As protobuf-es's timestampFromMs. */
export function timestampFromMs(ms: number, eventMade: Pick<EventMakers, "timestamp">): ProtoMessage {
  const seconds = Math.floor(ms / 1000);
  if (seconds !== lastSecond) {
    lastSeconds = protoInt64.parse(seconds);
    lastSecond = seconds;
  }
  // An int32 (at most 999,000,000): a small integer in the message rather than a boxed double.
  return eventMade.timestamp(lastSeconds, ((ms - seconds * 1000) * 1000000) | 0);
}
