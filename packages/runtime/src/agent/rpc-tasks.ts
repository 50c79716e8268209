/**
 * The rpcs that read tasks and change nothing: GetTask and ListTasks. They
 * see only the caller's tasks (tenant and owner from the key), answer views
 * trimmed as asked (task-view.ts), and turn ListTasks' page positions into
 * opaque tokens and back (page-tokens.ts).
 */
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { A2AErrors } from "../a2a.js";
import type { HandlerContext } from "../route-binding.js";
import { decodePageToken, encodePageToken } from "./page-tokens.js";
import type { AgentStore, TaskKey } from "./store.js";
import { checkHistoryLength, view } from "./task-view.js";

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;

/** ListTasks' page size when the request gives none. */
const DEFAULT_PAGE_SIZE = 50;

/** What the reading rpcs need of the engine. */
export interface ReadTaskRpcDeps {
  readonly store: AgentStore;
  /** The key of the caller's task of that id. */
  readonly keyOf: (ctx: HandlerContext, id: string) => TaskKey;
}

export function readTaskRpcs({ store, keyOf }: ReadTaskRpcDeps) {
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
  };
}
