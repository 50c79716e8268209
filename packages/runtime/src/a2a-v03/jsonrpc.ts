// A2A v0.3's JSON-RPC methods on the v1.0 handlers: each v0.3 method is a
// v1.0 rpc with its params and result translated (spec-json.ts). The
// JSON-RPC server serves them, with every rule of the v1.0 path, to requests
// that speak v0.3 (no A2A-Version, or 0.3).
import type { JsonValue } from "@bufbuild/protobuf";
import type { JsonRpcDialect, JsonRpcDialectMethod } from "../jsonrpc/dialect.js";
import { withV03CardFields } from "./card.js";
import { A2A_V03 } from "./common.js";
import {
  listPushConfigsIn,
  pushConfigIdIn,
  pushConfigListOut,
  pushConfigOut,
  sendParamsIn,
  sendResultOut,
  setPushConfigIn,
  streamEventOut,
  taskIdIn,
  taskOut,
  taskQueryIn,
} from "./spec-json.js";

const asTask = (r: JsonValue) => taskOut(r as never);
const nothing = (): JsonValue => null;
const noParams = (): JsonValue => ({});

const method = (rpc: string, params: JsonRpcDialectMethod["params"], result: JsonRpcDialectMethod["result"]): JsonRpcDialectMethod => ({
  rpc,
  params,
  result,
});

/** The v0.3 JSON-RPC methods (A2A v0.3 §7), each on the v1.0 rpc (proto name) that does its work. */
export const A2A_V03_JSONRPC: JsonRpcDialect = {
  version: A2A_V03,
  methods: new Map([
    ["message/send", method("SendMessage", sendParamsIn, sendResultOut)],
    ["message/stream", method("SendStreamingMessage", sendParamsIn, streamEventOut)],
    ["tasks/get", method("GetTask", taskQueryIn, asTask)],
    ["tasks/cancel", method("CancelTask", taskIdIn(true), asTask)],
    ["tasks/resubscribe", method("SubscribeToTask", taskIdIn(false), streamEventOut)],
    ["tasks/pushNotificationConfig/set", method("CreateTaskPushNotificationConfig", setPushConfigIn, pushConfigOut)],
    ["tasks/pushNotificationConfig/get", method("GetTaskPushNotificationConfig", pushConfigIdIn, pushConfigOut)],
    ["tasks/pushNotificationConfig/list", method("ListTaskPushNotificationConfigs", listPushConfigsIn, pushConfigListOut)],
    ["tasks/pushNotificationConfig/delete", method("DeleteTaskPushNotificationConfig", pushConfigIdIn, nothing)],
    ["agent/getAuthenticatedExtendedCard", method("GetExtendedAgentCard", noParams, withV03CardFields)],
  ]),
};
