// The client's side of v0.3: a v1.0 client (the generated one, its typed v1.0
// API unchanged) speaking v0.3 to an agent that speaks only v0.3, over its
// JSON-RPC (`message/send`, ...) or HTTP+JSON (`/v1/...`) binding, through
// the same translations the server uses, the other way round. pickTransport
// chooses it from a v0.3 card; `a2aVersion: "0.3"` in the client's options
// turns it on.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { EventSourceMessage } from "eventsource-parser";
import { JSON_MEDIA_TYPE } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import { fromJsonRpcError } from "../jsonrpc/errors.js";
import type { JsonRpcClientDialect, JsonRpcClientMethod } from "../jsonrpc/client.js";
import { answerJson, jsonOrUndefined, readBounded } from "../client/body.js";
import { clientError } from "../client/client-error.js";
import type { ClientOptions } from "../client/options.js";
import { rpcErrorFromStatusJson } from "../client/status.js";
import { SSE_MEDIA_TYPE, type ClientWire, type RpcWire } from "../client/wire-client.js";
import { A2A_V03, copyPresent } from "./common.js";
import * as rest from "./proto-json.js";
import * as spec from "./spec-json.js";
import { isJsonObject } from "../json-object.js";

/** The v1.0 rpcs v0.3 has no method for. */
function notInV03(rpc: string): RpcError {
  return clientError(Code.UNIMPLEMENTED, `${rpc} is not in A2A v0.3: the agent speaks only v0.3 (its card's protocolVersion)`);
}

const jsonRpcMethods: ReadonlyMap<string, JsonRpcClientMethod> = new Map<string, JsonRpcClientMethod>([
  ["SendMessage", { name: "message/send", params: spec.sendParamsOut, result: spec.sendResultIn }],
  ["SendStreamingMessage", { name: "message/stream", params: spec.sendParamsOut, result: spec.streamEventIn }],
  ["GetTask", { name: "tasks/get", params: (r) => copyPresent(r, {}, ["id", "historyLength"]), result: (v) => spec.taskIn(v) }],
  ["CancelTask", { name: "tasks/cancel", params: (r) => copyPresent(r, {}, ["id", "metadata"]), result: (v) => spec.taskIn(v) }],
  ["SubscribeToTask", { name: "tasks/resubscribe", params: (r) => copyPresent(r, {}, ["id"]), result: spec.streamEventIn }],
  [
    "CreateTaskPushNotificationConfig",
    { name: "tasks/pushNotificationConfig/set", params: spec.pushConfigOut, result: spec.pushConfigResultIn },
  ],
  [
    "GetTaskPushNotificationConfig",
    { name: "tasks/pushNotificationConfig/get", params: spec.pushConfigIdOut, result: spec.pushConfigResultIn },
  ],
  [
    "ListTaskPushNotificationConfigs",
    { name: "tasks/pushNotificationConfig/list", params: (r) => ({ id: r["taskId"] ?? "" }), result: spec.pushConfigListIn },
  ],
  ["DeleteTaskPushNotificationConfig", { name: "tasks/pushNotificationConfig/delete", params: spec.pushConfigIdOut, result: () => ({}) }],
  ["GetExtendedAgentCard", { name: "agent/getAuthenticatedExtendedCard", params: () => ({}), result: cardFromV03 }],
]);

/** v0.3's JSON-RPC methods for the v1.0 rpcs (jsonrpc/client.ts puts them on the wire). */
export const A2A_V03_JSONRPC_CLIENT: JsonRpcClientDialect = {
  method(rpc) {
    const m = jsonRpcMethods.get(rpc);
    if (m === undefined) throw notInV03(rpc);
    return m;
  },
};

/** One v1.0 rpc on v0.3's HTTP+JSON binding: the request's method, path and body, and its answer read back. */
interface RestCall {
  readonly method: string;
  /** The path below the interface URL (ids percent-encoded) and the query. */
  path(r: JsonObject): string;
  body?(r: JsonObject): JsonValue;
  /** The answer's (or a stream event's) JSON as the v1.0 output's. */
  readonly result: (v: unknown) => JsonValue;
}

const seg = (v: JsonValue | undefined) => encodeURIComponent(String(v ?? ""));
const task = (r: JsonObject) => `/v1/tasks/${seg(r["id"])}`;
const configs = (r: JsonObject) => `/v1/tasks/${seg(r["taskId"])}/pushNotificationConfigs`;

/**
 * The routes of a2a-v0_3.proto's HttpRules. Two follow what v0.3 servers
 * take rather than the rule: subscribe is a GET (the rule) and create-config
 * is POSTed to `tasks/*` with the whole request as its body
 * (`{parent, configId, config}`), which the reference server reads (the rule
 * says `task/*` and `body: "config"`).
 */
const restCalls: ReadonlyMap<string, RestCall> = new Map<string, RestCall>([
  ["SendMessage", { method: "POST", path: () => "/v1/message:send", body: rest.sendRequestOut, result: rest.sendResponseIn }],
  ["SendStreamingMessage", { method: "POST", path: () => "/v1/message:stream", body: rest.sendRequestOut, result: rest.streamResponseIn }],
  [
    "GetTask",
    {
      method: "GET",
      path: (r) => (r["historyLength"] === undefined ? task(r) : `${task(r)}?historyLength=${seg(r["historyLength"])}`),
      result: (v) => rest.taskIn(v),
    },
  ],
  [
    "CancelTask",
    {
      method: "POST",
      path: (r) => `${task(r)}:cancel`,
      body: (r) => ({ name: `tasks/${String(r["id"] ?? "")}` }),
      result: (v) => rest.taskIn(v),
    },
  ],
  ["SubscribeToTask", { method: "GET", path: (r) => `${task(r)}:subscribe`, result: rest.streamResponseIn }],
  [
    "CreateTaskPushNotificationConfig",
    {
      method: "POST",
      path: configs,
      body: (r) => {
        const config = rest.pushConfigOut(r);
        return { parent: `tasks/${String(r["taskId"] ?? "")}`, configId: String(r["id"] ?? ""), config };
      },
      result: rest.pushConfigIn03,
    },
  ],
  ["GetTaskPushNotificationConfig", { method: "GET", path: (r) => `${configs(r)}/${seg(r["id"])}`, result: rest.pushConfigIn03 }],
  ["ListTaskPushNotificationConfigs", { method: "GET", path: configs, result: rest.pushConfigListIn }],
  ["DeleteTaskPushNotificationConfig", { method: "DELETE", path: (r) => `${configs(r)}/${seg(r["id"])}`, result: () => ({}) }],
  ["GetExtendedAgentCard", { method: "GET", path: () => "/v1/card", result: cardFromV03 }],
]);

/**
 * An error answer of a v0.3 REST server: `{code, message, data}` with a
 * JSON-RPC code (what v0.3's reference server and ours send), else a
 * google.rpc.Status, else the HTTP status alone.
 */
function restError(json: unknown, text: string, status: number): RpcError {
  const o = json as { code?: unknown } | undefined;
  if (typeof o === "object" && o !== null && typeof o.code === "number" && o.code < 0) {
    const err = fromJsonRpcError(o, status);
    return new RpcError(err.code, err.message, err.details, { httpStatus: status });
  }
  return (
    rpcErrorFromStatusJson(json, status) ??
    new RpcError(Code.UNKNOWN, `HTTP ${status}${text === "" ? "" : `: ${text.replace(/\s+/g, " ").slice(0, 200)}`}`, [], {
      httpStatus: status,
    })
  );
}

/** The answer's JSON read by `read`, a wrong shape being the server's fault (INTERNAL), not the caller's. */
function readAnswer(rpc: string, read: (v: unknown) => JsonValue, v: unknown, status: number, what: string): JsonValue {
  try {
    return read(v);
  } catch (cause) {
    throw new RpcError(Code.INTERNAL, `${rpc}: ${what} is not v0.3's: ${cause instanceof Error ? cause.message : String(cause)}`, [], {
      httpStatus: status,
      cause,
    });
  }
}

/** v0.3's HTTP+JSON binding below `options.baseUrl`, the interface URL (a v0.3 client adds `/v1/...`). */
export function a2aV03RestWire(options: ClientOptions): ClientWire {
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const maxResponseSize = options.maxResponseSize;
  return {
    contentType: JSON_MEDIA_TYPE,
    acceptUnary: JSON_MEDIA_TYPE,
    acceptStream: SSE_MEDIA_TYPE,
    rpc(bindings) {
      const binding = bindings[0]!;
      const rpc = binding.descriptor.name;
      const call = restCalls.get(rpc);
      const wire: RpcWire<undefined> = {
        request(json) {
          if (call === undefined) throw notInV03(rpc);
          const body = call.body?.(json);
          return {
            binding,
            method: call.method,
            url: baseUrl + call.path(json),
            body: body === undefined ? undefined : JSON.stringify(body),
            key: undefined,
          };
        },
        async answerError(res) {
          const text = await readBounded(res, maxResponseSize ?? 1 << 20, `the HTTP ${res.status} error body`).catch(() => "");
          return restError(jsonOrUndefined(text), text, res.status);
        },
        answer(text, status) {
          // DeleteTaskPushNotificationConfig may answer 204 or an empty 200.
          if (/^\s*$/.test(text)) return {};
          return readAnswer(rpc, call!.result, answerJson(rpc, text, status, "the response"), status, "the response");
        },
        event(e: EventSourceMessage, status) {
          if (e.data === "") return undefined;
          const json = e.event === "error" ? jsonOrUndefined(e.data) : answerJson(rpc, e.data, status, "a stream event");
          if (e.event === "error" || (isJsonObject(json) && "code" in json && "message" in json && !("task" in json))) {
            throw restError(json, e.data, status);
          }
          return readAnswer(rpc, call!.result, json, status, "a stream event");
        },
        async notAStream(res) {
          const text = await readBounded(res, maxResponseSize ?? 1 << 20, `${rpc}: the response`);
          throw restError(jsonOrUndefined(text), text, res.status);
        },
      };
      return wire as RpcWire<unknown>;
    },
  };
}

/** Whether a client with these options speaks v0.3 (`a2aVersion` 0.3, Major.Minor). */
export function clientSpeaksV03(options: ClientOptions): boolean {
  return options.a2aVersion !== undefined && /^\s*v?0\.3(\.|\s*$)/.test(options.a2aVersion);
}

/**
 * A v0.3 agent's card (untrusted) as v1.0's AgentCard ProtoJSON, for a
 * client that speaks v0.3 to it behind the v1.0 API: its interfaces (`url`
 * with `preferredTransport`, then `additionalInterfaces`) become
 * `supportedInterfaces` of version 0.3, `supportsAuthenticatedExtendedCard`
 * becomes `capabilities.extendedAgentCard`; the fields of the same name and
 * shape are kept. v0.3's security schemes (OpenAPI-shaped, unlike v1.0's) are
 * left out. A card that has `supportedInterfaces` is taken as v1.0's already.
 */
export function cardFromV03(v: unknown): JsonValue {
  if (!isJsonObject(v)) return {};
  const c = v as JsonObject;
  if (Array.isArray(c["supportedInterfaces"])) return c;
  const out = copyPresent(c, {}, [
    "name",
    "description",
    "version",
    "documentationUrl",
    "iconUrl",
    "provider",
    "defaultInputModes",
    "defaultOutputModes",
    "signatures",
  ]);
  const interfaces: JsonObject[] = [];
  const add = (url: JsonValue | undefined, transport: JsonValue | undefined) => {
    if (typeof url !== "string" || url === "") return;
    const binding = typeof transport === "string" ? transport : "JSONRPC";
    if (!interfaces.some((i) => i["url"] === url && i["protocolBinding"] === binding)) {
      interfaces.push({ url, protocolBinding: binding, protocolVersion: A2A_V03 });
    }
  };
  add(c["url"], c["preferredTransport"]);
  if (Array.isArray(c["additionalInterfaces"])) {
    for (const i of c["additionalInterfaces"]) if (isJsonObject(i)) add(i["url"], i["transport"]);
  }
  out["supportedInterfaces"] = interfaces;
  const caps = isJsonObject(c["capabilities"]) ? c["capabilities"] : {};
  const capabilities = copyPresent(caps, {}, ["streaming", "pushNotifications", "extensions"]);
  if (c["supportsAuthenticatedExtendedCard"] === true) capabilities["extendedAgentCard"] = true;
  out["capabilities"] = capabilities;
  if (Array.isArray(c["skills"])) {
    out["skills"] = c["skills"].map((s) => {
      const o = isJsonObject(s) ? s : {};
      return copyPresent(o, {}, ["id", "name", "description", "tags", "examples", "inputModes", "outputModes"]);
    });
  }
  return out;
}
