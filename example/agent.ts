/**
 * An in-memory A2A agent built only on the generated code: it implements
 * `A2AServiceHandlers`, so any of the generated adapters can serve it.
 *
 * What it does with a message depends on the message's first text part:
 * - `/message <text>`: answers with a Message, no task;
 * - `/wait`: the task stays WORKING until it is canceled (for subscribe and cancel);
 * - `/input`: the task stops in INPUT_REQUIRED;
 * - `/fail`: the task ends FAILED;
 * - `/work <n>`: n progress steps of `stepMs` each, logged, then COMPLETED;
 * - anything else: the task COMPLETES with an artifact that echoes the text.
 */
import { clone, create, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampDate, timestampFromDate } from "@bufbuild/protobuf/wkt";
import {
  AgentCardSchema,
  ArtifactSchema,
  MessageSchema,
  Role,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  type AgentCard,
  type Message,
  type StreamResponse,
  type Task,
  type TaskPushNotificationConfig,
} from "../gen/a2a_pb.js";
import type { A2AServiceHandlers } from "../gen/a2a_http.js";
import { A2AErrors, type HandlerContext } from "a2a-http";

export interface ExampleAgentOptions {
  /** The public card, or a function that gives it; `/extendedAgentCard` answers it with one more skill. */
  readonly card?: AgentCard | (() => AgentCard);
  /** Delay of one `/work` step. Default 1000 ms. */
  readonly stepMs?: number;
  /** Where progress goes. Default: nowhere. */
  readonly log?: (line: string) => void;
}

const terminal = new Set([TaskState.COMPLETED, TaskState.FAILED, TaskState.CANCELED, TaskState.REJECTED]);
const interrupted = new Set([TaskState.INPUT_REQUIRED, TaskState.AUTH_REQUIRED]);

interface TaskRecord {
  readonly tenant: string;
  readonly task: Task;
  readonly pushConfigs: Map<string, TaskPushNotificationConfig>;
  /** Live subscribers; each gets every event, and `undefined` when the task settles. */
  readonly listeners: Set<(event: StreamResponse | undefined) => void>;
  canceled: boolean;
}

const taskNotFound = (id: string) => A2AErrors.taskNotFound(id);

/** Creates the example agent's handlers over a fresh in-memory task store. */
export function createExampleAgent(options: ExampleAgentOptions = {}): A2AServiceHandlers {
  const tasks = new Map<string, TaskRecord>();
  const stepMs = options.stepMs ?? 1000;
  const log = options.log ?? (() => {});
  const card = options.card ?? exampleAgentCard("http://127.0.0.1");
  const currentCard = typeof card === "function" ? card : () => card;

  const key = (tenant: string, id: string) => `${tenant}\u0000${id}`;
  const tenantOf = (ctx: HandlerContext, fromRequest: string) => ctx.tenant ?? fromRequest;
  const find = (tenant: string, id: string): TaskRecord => {
    const record = tasks.get(key(tenant, id));
    if (!record) throw taskNotFound(id);
    return record;
  };

  function emit(record: TaskRecord, event: StreamResponse): void {
    for (const l of record.listeners) l(event);
  }

  function setState(record: TaskRecord, state: TaskState, text?: string): StreamResponse {
    const { task } = record;
    task.status = {
      $typeName: "lf.a2a.v1.TaskStatus",
      state,
      timestamp: timestampFromDate(new Date()),
      ...(text === undefined ? {} : { message: agentMessage(task, text) }),
    };
    const event = create(StreamResponseSchema, {
      payload: { case: "statusUpdate", value: { taskId: task.id, contextId: task.contextId, status: task.status } },
    });
    emit(record, event);
    if (terminal.has(state) || interrupted.has(state)) {
      for (const l of record.listeners) l(undefined);
    }
    return event;
  }

  /** Drives a task through its plan; each step is published to subscribers. */
  async function run(record: TaskRecord, text: string): Promise<void> {
    const { task } = record;
    const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
    await Promise.resolve();
    if (record.canceled) return;
    setState(record, TaskState.WORKING);
    if (text.startsWith("/wait")) return;
    if (text.startsWith("/input")) {
      setState(record, TaskState.INPUT_REQUIRED, "What else do you need?");
      return;
    }
    if (text.startsWith("/fail")) {
      setState(record, TaskState.FAILED, "failed on purpose");
      return;
    }
    const work = /^\/work\s+(\d+)/.exec(text);
    if (work) {
      const steps = Math.min(Number(work[1]), 1000);
      for (let i = 1; i <= steps; i++) {
        await sleep(stepMs);
        if (record.canceled) return;
        log(`task ${task.id}: step ${i}/${steps}`);
        setState(record, TaskState.WORKING, `step ${i} of ${steps}`);
      }
    }
    const artifact = create(ArtifactSchema, {
      artifactId: `${task.id}-echo`,
      name: "echo",
      parts: [{ content: { case: "text", value: `echo: ${text}` } }],
    });
    task.artifacts.push(artifact);
    emit(
      record,
      create(StreamResponseSchema, {
        payload: { case: "artifactUpdate", value: { taskId: task.id, contextId: task.contextId, artifact, lastChunk: true } },
      }),
    );
    setState(record, TaskState.COMPLETED);
    log(`task ${task.id}: completed`);
  }

  /**
   * Events of a task from now until it settles or the signal fires. It
   * subscribes at once, not on the first `next()`, so nothing published in
   * between is lost.
   */
  function follow(record: TaskRecord, signal: AbortSignal): AsyncGenerator<StreamResponse> {
    const queue: (StreamResponse | undefined)[] = [];
    let wake: (() => void) | undefined;
    const listener = (e: StreamResponse | undefined) => {
      queue.push(e);
      wake?.();
    };
    const onAbort = () => wake?.();
    record.listeners.add(listener);
    signal.addEventListener("abort", onAbort);
    const stop = () => {
      record.listeners.delete(listener);
      signal.removeEventListener("abort", onAbort);
    };
    async function* drain(): AsyncGenerator<StreamResponse> {
      try {
        for (;;) {
          while (queue.length === 0 && !signal.aborted) await new Promise<void>((r) => (wake = r));
          if (signal.aborted) return;
          const next = queue.shift();
          if (next === undefined) return;
          yield next;
        }
      } finally {
        stop();
      }
    }
    const events = drain();
    // A generator never started skips its finally block on return(); unsubscribe here too.
    const close = events.return.bind(events);
    events.return = (value) => {
      stop();
      return close(value);
    };
    return events;
  }

  function startTask(ctx: HandlerContext, tenant: string, message: Message): { record: TaskRecord; text: string } {
    const existing = message.taskId ? tasks.get(key(tenant, message.taskId)) : undefined;
    if (message.taskId && !existing) throw taskNotFound(message.taskId);
    if (existing && terminal.has(existing.task.status?.state ?? TaskState.UNSPECIFIED)) {
      throw A2AErrors.unsupportedOperation(`task ${message.taskId} is in a terminal state`, { taskId: message.taskId });
    }
    const text = message.parts.find((p) => p.content.case === "text")?.content.value;
    const said = typeof text === "string" ? text : "";
    if (existing) {
      existing.task.history.push(message);
      return { record: existing, text: said };
    }
    const id = crypto.randomUUID();
    const contextId = message.contextId || crypto.randomUUID();
    message.taskId = id;
    message.contextId = contextId;
    const task = create(TaskSchema, {
      id,
      contextId,
      status: { state: TaskState.SUBMITTED, timestamp: timestampFromDate(new Date()) },
      history: [message],
    });
    const record: TaskRecord = { tenant, task, pushConfigs: new Map(), listeners: new Set(), canceled: false };
    tasks.set(key(tenant, id), record);
    log(`task ${id} (${ctx.rpc}${tenant ? `, tenant ${tenant}` : ""}): submitted`);
    return { record, text: said };
  }

  const view = (task: Task, historyLength: number | undefined, includeArtifacts = true): Task => {
    const copy = clone(TaskSchema, task);
    copy.history = historyLength === undefined ? [...task.history] : historyLength === 0 ? [] : task.history.slice(-historyLength);
    copy.artifacts = includeArtifacts ? [...task.artifacts] : [];
    return copy;
  };

  const messageReply = (message: Message, text: string) =>
    create(MessageSchema, {
      messageId: crypto.randomUUID(),
      contextId: message.contextId || crypto.randomUUID(),
      role: Role.AGENT,
      parts: [{ content: { case: "text", value: text.replace(/^\/message\s*/, "") || "hello" } }],
    });

  return {
    async sendMessage(req, ctx) {
      const message = req.message!;
      const text = message.parts.find((p) => p.content.case === "text")?.content.value;
      if (typeof text === "string" && text.startsWith("/message")) {
        return { payload: { case: "message", value: messageReply(message, text) } };
      }
      const tenant = tenantOf(ctx, req.tenant);
      const { record, text: said } = startTask(ctx, tenant, message);
      const settled = follow(record, ctx.signal);
      const done = run(record, said);
      if (!req.configuration?.returnImmediately && !said.startsWith("/wait")) {
        for await (const _ of settled) {
          // Wait until the task completes, fails or needs input.
        }
      } else {
        await settled.return(undefined);
      }
      void done;
      return { payload: { case: "task", value: view(record.task, req.configuration?.historyLength) } };
    },

    async *sendStreamingMessage(req, ctx) {
      const message = req.message!;
      const text = message.parts.find((p) => p.content.case === "text")?.content.value;
      if (typeof text === "string" && text.startsWith("/message")) {
        yield { payload: { case: "message", value: messageReply(message, text) } };
        return;
      }
      const tenant = tenantOf(ctx, req.tenant);
      const { record, text: said } = startTask(ctx, tenant, message);
      const events = follow(record, ctx.signal);
      void run(record, said);
      yield { payload: { case: "task", value: view(record.task, undefined) } };
      yield* events;
    },

    getTask(req, ctx) {
      if (req.historyLength !== undefined && req.historyLength < 0) {
        throw A2AErrors.invalidParams("historyLength must not be negative");
      }
      return view(find(tenantOf(ctx, req.tenant), req.id).task, req.historyLength);
    },

    listTasks(req, ctx) {
      const tenant = tenantOf(ctx, req.tenant);
      const pageSize = req.pageSize ?? 50;
      if (pageSize < 1 || pageSize > 100) {
        throw A2AErrors.invalidParams("pageSize must be between 1 and 100");
      }
      const after = req.statusTimestampAfter ? timestampDate(req.statusTimestampAfter).getTime() : -Infinity;
      const time = (t: Task) => (t.status?.timestamp ? timestampDate(t.status.timestamp).getTime() : 0);
      const matching = [...tasks.values()]
        .filter((r) => r.tenant === tenant)
        .map((r) => r.task)
        .filter((t) => (req.contextId === "" || t.contextId === req.contextId) && (req.status === TaskState.UNSPECIFIED || t.status?.state === req.status) && time(t) > after)
        .sort((a, b) => time(b) - time(a) || (a.id < b.id ? -1 : 1));
      const start = req.pageToken === "" ? 0 : Number.parseInt(req.pageToken, 10);
      if (!Number.isInteger(start) || start < 0 || String(start) !== (req.pageToken || "0")) {
        throw A2AErrors.invalidParams(`invalid pageToken ${JSON.stringify(req.pageToken)}`);
      }
      const page = matching.slice(start, start + pageSize);
      const next = start + pageSize < matching.length ? String(start + pageSize) : "";
      return {
        tasks: page.map((t) => view(t, req.historyLength, req.includeArtifacts === true)),
        nextPageToken: next,
        pageSize,
        totalSize: matching.length,
      };
    },

    cancelTask(req, ctx) {
      const record = find(tenantOf(ctx, req.tenant), req.id);
      const state = record.task.status?.state ?? TaskState.UNSPECIFIED;
      if (terminal.has(state)) {
        throw A2AErrors.taskNotCancelable(req.id, `task ${req.id} is already ${TaskState[state]}`);
      }
      record.canceled = true;
      setState(record, TaskState.CANCELED);
      log(`task ${req.id}: canceled`);
      return view(record.task, undefined);
    },

    async *subscribeToTask(req, ctx) {
      const record = find(tenantOf(ctx, req.tenant), req.id);
      const state = record.task.status?.state ?? TaskState.UNSPECIFIED;
      if (terminal.has(state)) {
        throw A2AErrors.unsupportedOperation(`task ${req.id} is in a terminal state`, { taskId: req.id });
      }
      const events = follow(record, ctx.signal);
      yield { payload: { case: "task", value: view(record.task, undefined) } };
      yield* events;
    },

    createTaskPushNotificationConfig(req, ctx) {
      const tenant = tenantOf(ctx, req.tenant);
      const record = find(tenant, req.taskId);
      const config = create(TaskPushNotificationConfigSchema, { ...req, id: req.id || crypto.randomUUID() });
      record.pushConfigs.set(config.id, config);
      return config;
    },

    getTaskPushNotificationConfig(req, ctx) {
      const config = find(tenantOf(ctx, req.tenant), req.taskId).pushConfigs.get(req.id);
      if (!config) throw taskNotFound(req.taskId);
      return config;
    },

    listTaskPushNotificationConfigs(req, ctx) {
      return { configs: [...find(tenantOf(ctx, req.tenant), req.taskId).pushConfigs.values()] };
    },

    deleteTaskPushNotificationConfig(req, ctx) {
      find(tenantOf(ctx, req.tenant), req.taskId).pushConfigs.delete(req.id);
      return {};
    },

    getExtendedAgentCard() {
      const extended = clone(AgentCardSchema, currentCard());
      extended.skills.push({
        $typeName: "lf.a2a.v1.AgentSkill",
        id: "extended-echo",
        name: "Extended echo",
        description: "Only on the extended card.",
        tags: ["echo"],
        examples: [],
        inputModes: [],
        outputModes: [],
        securityRequirements: [],
      });
      return extended;
    },
  };
}

function agentMessage(task: Task, text: string): Message {
  return create(MessageSchema, {
    messageId: crypto.randomUUID(),
    contextId: task.contextId,
    taskId: task.id,
    role: Role.AGENT,
    parts: [{ content: { case: "text", value: text } }],
  });
}

/** Where the example agent serves its other bindings (see example/server.ts). */
export interface ExampleInterfaces {
  /** The JSON-RPC endpoint's URL. */
  readonly jsonRpcUrl?: string;
  /** The gRPC server's `host:port`. */
  readonly grpcTarget?: string;
}

/**
 * The example agent's card: the HTTP+JSON interface at `url`, then JSON-RPC
 * and gRPC when they are given, all with the same optional tenant.
 */
export function exampleAgentCard(url: string, tenant = "", more: ExampleInterfaces = {}): AgentCard {
  const init: MessageInitShape<typeof AgentCardSchema> = {
    name: "Echo agent",
    description: "An in-memory A2A agent generated by protoc-gen-a2a-http: it echoes what you send.",
    version: "1.0.0",
    supportedInterfaces: [
      { url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant },
      ...(more.jsonRpcUrl ? [{ url: more.jsonRpcUrl, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant }] : []),
      ...(more.grpcTarget ? [{ url: more.grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0", tenant }] : []),
    ],
    capabilities: { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [{ id: "echo", name: "Echo", description: "Echoes the text of a message.", tags: ["echo"] }],
  };
  return create(AgentCardSchema, init);
}
