/**
 * Push dispatch: what the engine hands its push sender. A config as it is
 * stored (its id, task, tenant and the A2A version that made it), and for
 * each stored event the notification every config of its task gets: the
 * event's StreamResponse JSON, or for a config a v0.3 client made, the task
 * in v0.3's JSON (a2a-v03/push.ts). On a shared store the outbox worker
 * sends what the store queued, with the same body.
 */
import { create, toJsonString, type Message as ProtoMessage } from "@bufbuild/protobuf";
import { A2AErrors } from "../a2a.js";
import { markPushConfigVersion, pushConfigVersion, v03PushBody } from "../a2a-v03/push.js";
import type { HandlerContext } from "../route-binding.js";
import { newId } from "./message-makers.js";
import { pushTargetOf, type PushSender } from "./push-sender.js";
import type { Schemas } from "./schemas.js";
import { StoreFullError, type AgentStore, type OutboxItem, type PushConfigLike, type TaskKey } from "./store.js";
import type { TaskLike } from "./types.js";

export class PushDispatch {
  constructor(
    private readonly schemas: Pick<Schemas, "task" | "stream" | "pushConfig">,
    private readonly store: AgentStore,
  ) {}

  /** The config to store: its id, task and tenant set, and the version of the request that made it (a2a-v03/push.ts). */
  configOf(init: PushConfigLike, key: TaskKey, ctx: HandlerContext): PushConfigLike {
    if (!this.schemas.pushConfig) throw A2AErrors.pushNotificationNotSupported();
    const config = create(this.schemas.pushConfig, {
      ...init,
      $typeName: undefined,
      id: init.id || newId(),
      taskId: key.id,
      tenant: key.tenant,
    } as never);
    return markPushConfigVersion(config, ctx.a2aDialect) as unknown as PushConfigLike;
  }

  /** Stores a config; a full store is InvalidParams (the caller asked for one config too many). */
  async put(key: TaskKey, config: PushConfigLike): Promise<void> {
    try {
      await this.store.pushConfigs.put(key, config);
    } catch (e) {
      if (e instanceof StoreFullError) throw A2AErrors.invalidParams(e.message);
      throw e;
    }
  }

  /** Hands `sender` the notifications of a stored event, one per config of its task. */
  send(sender: PushSender, key: TaskKey, configs: Iterable<PushConfigLike>, event: ProtoMessage, task: TaskLike): void {
    let body: string | undefined;
    let v03Body: string | undefined;
    let taskKey: string | undefined;
    for (const c of configs) {
      // A config made by a v0.3 client gets the task in v0.3's JSON (a2a-v03/push.ts); the rest, the event.
      const text = pushConfigVersion(c)
        ? (v03Body ??= v03PushBody(this.schemas.task, task as never))
        : (body ??= toJsonString(this.schemas.stream, event as never));
      // The sender's key for the task: JSON of (tenant, owner, id).
      taskKey ??= JSON.stringify([key.tenant, key.owner, key.id]);
      sender.send(taskKey, pushTargetOf(c), text);
    }
  }

  /** A shared outbox's delivery: as send() writes it; a v0.3 config gets the task as it is now. */
  readonly outboxBody = async (item: OutboxItem): Promise<string | undefined> => {
    if (!pushConfigVersion(item.config)) return toJsonString(this.schemas.stream, item.event as never);
    const stored = await this.store.tasks.get(item.key);
    return stored && v03PushBody(this.schemas.task, stored.task as never);
  };
}
