/** The push configs of tasks, at most `maxPushConfigsPerTask` per task. */
import type { DescMessage } from "@bufbuild/protobuf";
import { StoreFullError, type PushConfigLike, type PushConfigStore } from "../store.js";
import type { SqlStoreContext } from "./context.js";
import { encodeReusing } from "./encode.js";
import { checkKeySize, short } from "./keys.js";
import { FORMAT_PROTOBUF, decodeStored } from "./message-format.js";
import {
  COUNT_PUSH_CONFIGS,
  DELETE_CONFIG_DELIVERIES,
  DELETE_PUSH_CONFIG,
  GET_PUSH_CONFIG,
  INSERT_PUSH_CONFIG,
  LIST_PUSH_CONFIGS,
  LOCK_TASK,
  UPDATE_PUSH_CONFIG,
} from "./statements.js";

export function createPushConfigs(ctx: SqlStoreContext, maxConfigs: number): PushConfigStore {
  const { db } = ctx;
  const configSchema = (): DescMessage => {
    const s = ctx.schemas().pushConfig;
    if (!s) throw new Error("this A2A service has no push notification rpcs");
    return s;
  };
  const decode = (row: Record<string, unknown>, id: string, taskId: string) =>
    decodeStored<PushConfigLike>(configSchema(), row, `push config ${id} of task ${taskId}`);

  return {
    async put(key, config) {
      checkKeySize(`push config ${short(config.id)}:`, key.tenant, key.owner, key.id, config.id);
      await db.transaction(async (tx) => {
        // The count and the insert under the task's row lock, so two puts cannot both pass the limit.
        const t = await tx.query(LOCK_TASK, [key.tenant, key.owner, key.id]);
        if (t.rows.length === 0) return;
        const body = encodeReusing(configSchema(), config);
        const updated = await tx.query(UPDATE_PUSH_CONFIG, [key.tenant, key.owner, key.id, config.id, body, FORMAT_PROTOBUF]);
        if (updated.rowCount > 0) return;
        const n = await tx.query(COUNT_PUSH_CONFIGS, [key.tenant, key.owner, key.id]);
        if (Number(n.rows[0]!["n"]) >= maxConfigs) throw new StoreFullError(`a task takes at most ${maxConfigs} push notification configs`);
        await tx.query(INSERT_PUSH_CONFIG, [key.tenant, key.owner, key.id, config.id, FORMAT_PROTOBUF, body]);
      });
    },
    async get(key, id) {
      const r = await db.query(GET_PUSH_CONFIG, [key.tenant, key.owner, key.id, id]);
      return r.rows[0] && decode(r.rows[0], id, key.id);
    },
    async list(key) {
      const r = await db.query(LIST_PUSH_CONFIGS, [key.tenant, key.owner, key.id]);
      return r.rows.map((row) => decode(row, String(row["id"]), key.id));
    },
    async delete(key, id) {
      return db.transaction(async (tx) => {
        const r = await tx.query(DELETE_PUSH_CONFIG, [key.tenant, key.owner, key.id, id]);
        // Its pending deliveries go with it.
        await tx.query(DELETE_CONFIG_DELIVERIES, [key.tenant, key.owner, key.id, id]);
        return r.rowCount > 0;
      });
    },
  };
}
