// A2A v0.3's HTTP+JSON binding on the v1.0 handlers: the `/v1/...` routes of
// a2a-v0_3.proto's HttpRules (test/runtime/a2a-v03 checks them against the
// proto), each a v1.0 rpc with its body and answer translated
// (proto-json.ts), errors in the shape v0.3 clients read. The HTTP+JSON core
// serves them to requests that speak v0.3 (no A2A-Version, or 0.3).
import type { JsonValue } from "@bufbuild/protobuf";
import { RpcError, codeName, type Code, type ErrorDetail } from "../errors.js";
import { toJsonRpcError } from "../jsonrpc/errors.js";
import type { HttpDialect, HttpDialectRoute } from "../server/http-dialect.js";
import { A2A_V03, badV03 } from "./common.js";
import {
  cardOut,
  createPushConfigIn,
  emptyOut,
  pushConfigListOut,
  pushConfigOut,
  sendRequestIn,
  sendResponseOut,
  streamResponseOut,
  taskOut,
} from "./proto-json.js";

/** An integer query value as a JSON number (ProtoJSON takes it either way; a bad one fails decoding with its name). */
function queryInt(rawQuery: string, ...names: string[]): Record<string, JsonValue> {
  if (rawQuery === "") return {};
  const q = new URLSearchParams(rawQuery);
  for (const name of names) {
    const v = q.get(name);
    if (v === null) continue;
    if (!/^-?\d{1,10}$/.test(v)) throw badV03(name, `${JSON.stringify(v)} is not an integer`);
    return { [names[0]!]: Number(v) };
  }
  return {};
}

const route = (
  rpc: string,
  method: string,
  template: string,
  body: boolean,
  request: HttpDialectRoute["request"],
  result: HttpDialectRoute["result"],
): HttpDialectRoute => ({ rpc, method, template, body, request, result });

const byId = (v: Readonly<Record<string, string>>): JsonValue => ({ id: v["id"]! });
const configOf = (v: Readonly<Record<string, string>>): JsonValue => ({ taskId: v["id"]!, id: v["configId"]! });

/**
 * The routes. Templates name the task `{id}` where a2a-v0_3.proto binds
 * `{name=tasks/*}`: the same paths. Create-config is bound to `/v1/tasks/...`,
 * where v0.3 clients send it (the proto's rule says `task/*`, a typo no
 * client follows). Subscribe takes GET (the proto) and POST (the spec text).
 */
const routes: readonly HttpDialectRoute[] = [
  route("SendMessage", "POST", "/v1/message:send", true, (_v, _q, b) => sendRequestIn(b), sendResponseOut),
  route("SendStreamingMessage", "POST", "/v1/message:stream", true, (_v, _q, b) => sendRequestIn(b), streamResponseOut),
  route(
    "GetTask",
    "GET",
    "/v1/tasks/{id}",
    false,
    (v, q) => ({ id: v["id"]!, ...queryInt(q, "historyLength", "history_length") }),
    taskOut,
  ),
  route("CancelTask", "POST", "/v1/tasks/{id}:cancel", true, byId, taskOut),
  route("SubscribeToTask", "GET", "/v1/tasks/{id}:subscribe", false, byId, streamResponseOut),
  route("SubscribeToTask", "POST", "/v1/tasks/{id}:subscribe", true, byId, streamResponseOut),
  route(
    "CreateTaskPushNotificationConfig",
    "POST",
    "/v1/tasks/{id}/pushNotificationConfigs",
    true,
    (v, _q, b) => createPushConfigIn(v["id"]!, b),
    pushConfigOut,
  ),
  route("GetTaskPushNotificationConfig", "GET", "/v1/tasks/{id}/pushNotificationConfigs/{configId}", false, configOf, pushConfigOut),
  route(
    "ListTaskPushNotificationConfigs",
    "GET",
    "/v1/tasks/{id}/pushNotificationConfigs",
    false,
    (v, q) => ({ taskId: v["id"]!, ...queryInt(q, "pageSize", "page_size") }),
    pushConfigListOut,
  ),
  route("DeleteTaskPushNotificationConfig", "DELETE", "/v1/tasks/{id}/pushNotificationConfigs/{configId}", false, configOf, emptyOut),
  route("GetExtendedAgentCard", "GET", "/v1/card", false, () => ({}), cardOut),
];

const codeByName = new Map<string, Code>(Array.from({ length: 17 }, (_, c) => [codeName(c as Code), c as Code]));

/**
 * v0.3's error body: `{code, message, data}` with the JSON-RPC code of the
 * error's A2A reason (-32001 for a missing task, ...), which is what v0.3
 * clients (@a2a-js/sdk 0.3's REST transport) read; `data` holds the
 * google.rpc details. The HTTP status stays v1.0's.
 */
function errorBody(statusJson: string): string {
  try {
    const e = (JSON.parse(statusJson) as { error: { status?: string; message?: string; details?: ErrorDetail[] } }).error;
    const code = codeByName.get(e.status ?? "") ?? 13;
    const details = Array.isArray(e.details)
      ? e.details.filter((d) => typeof d === "object" && d !== null && typeof d["@type"] === "string")
      : [];
    const err = new RpcError(code, e.message ?? "", details);
    return JSON.stringify(toJsonRpcError(err, true));
  } catch {
    return statusJson;
  }
}

/** A2A v0.3's HTTP+JSON binding. */
export const A2A_V03_REST: HttpDialect = { version: A2A_V03, prefix: "/v1/", routes, errorBody };
