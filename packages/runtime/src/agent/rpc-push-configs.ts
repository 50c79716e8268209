/**
 * The push config rpcs: Create, Get, List and DeleteTaskPushNotificationConfig.
 * Each asks the card (and the push sender) first, finds the caller's task, and
 * answers configs without the version mark the store keeps (a2a-v03/push.ts).
 * What a config becomes when stored, and what it is sent, is push-dispatch.ts's.
 */
import { A2AErrors } from "../a2a.js";
import { withoutPushConfigMark } from "../a2a-v03/push.js";
import type { HandlerContext } from "../route-binding.js";
import { requirePush } from "./capabilities.js";
import type { AgentCardLike } from "./options.js";
import { decodeConfigToken, encodeConfigToken } from "./page-tokens.js";
import type { PushDispatch } from "./push-dispatch.js";
import type { PushSender } from "./push-sender.js";
import type { AgentStore, TaskKey } from "./store.js";

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;

/** What the push config rpcs need of the engine. */
export interface PushConfigRpcDeps {
  readonly store: AgentStore;
  readonly push: PushDispatch;
  readonly pushSender: PushSender | undefined;
  /** The card as it is now (read per request). */
  readonly card: () => AgentCardLike;
  /** The key of the caller's task of that id. */
  readonly keyOf: (ctx: HandlerContext, id: string) => TaskKey;
}

export function pushConfigRpcs({ store, push, pushSender, card, keyOf }: PushConfigRpcDeps) {
  /** The key of the caller's task, when it exists; else TaskNotFound. */
  async function existing(ctx: HandlerContext, taskId: string): Promise<TaskKey> {
    const key = keyOf(ctx, taskId);
    if (!(await store.tasks.get(key))) throw A2AErrors.taskNotFound(taskId);
    return key;
  }

  return {
    async createTaskPushNotificationConfig(req: AnyRequest, ctx: HandlerContext) {
      const sender = requirePush(card(), pushSender);
      const key = keyOf(ctx, req.taskId);
      if (!(await store.tasks.get(key))) throw A2AErrors.taskNotFound(req.taskId);
      await sender.check(req.url);
      const config = push.configOf(req, key, ctx);
      await push.put(key, config);
      return withoutPushConfigMark(config);
    },

    async getTaskPushNotificationConfig(req: AnyRequest, ctx: HandlerContext) {
      requirePush(card(), pushSender);
      const key = await existing(ctx, req.taskId);
      const config = await store.pushConfigs.get(key, req.id);
      if (!config) throw A2AErrors.taskNotFound(req.taskId, "push notification config not found");
      return withoutPushConfigMark(config);
    },

    async listTaskPushNotificationConfigs(req: AnyRequest, ctx: HandlerContext) {
      requirePush(card(), pushSender);
      const key = await existing(ctx, req.taskId);
      const all = await store.pushConfigs.list(key);
      const pageSize: number = req.pageSize || all.length || 1;
      if (pageSize < 0) throw A2AErrors.invalidParams(`pageSize must not be negative, got ${pageSize}`);
      const start = req.pageToken ? all.findIndex((c) => c.id === decodeConfigToken(req.pageToken)) + 1 : 0;
      if (start === 0 && req.pageToken) throw A2AErrors.invalidParams(`invalid pageToken ${JSON.stringify(req.pageToken)}`);
      const configs = all.slice(start, start + pageSize).map(withoutPushConfigMark);
      const last = configs[configs.length - 1];
      return { configs, nextPageToken: last && start + configs.length < all.length ? encodeConfigToken(last.id) : "" };
    },

    async deleteTaskPushNotificationConfig(req: AnyRequest, ctx: HandlerContext) {
      requirePush(card(), pushSender);
      const key = await existing(ctx, req.taskId);
      await store.pushConfigs.delete(key, req.id);
      return {};
    },
  };
}
