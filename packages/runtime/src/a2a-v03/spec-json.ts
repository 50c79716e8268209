// A2A v0.3's own JSON (the spec's JSON-RPC shapes: `kind`-tagged parts,
// messages and events, lower-case roles and states, `final`, `blocking`) to
// and from v1.0's ProtoJSON. Requests are read as untrusted input: a value of
// the wrong shape is an INVALID_PARAMS error naming its field. Answers come
// from our own encoder, so they are read as v1.0 ProtoJSON as written.
import type { JsonValue } from "@bufbuild/protobuf";
import {
  arrayAt,
  badV03,
  copyPresent,
  isFinalV03,
  objectAt,
  optionalObjectAt,
  optionalStringAt,
  stateFromV03,
  stateToV03,
  type JsonObject,
} from "./common.js";
import { readArtifact, readMessage, readStatus, readTask, type V03Dialect } from "./read.js";
import { isJsonObject } from "../json-object.js";

const ROLES_IN: Readonly<Record<string, string>> = { user: "ROLE_USER", agent: "ROLE_AGENT" };
const ROLES_OUT: Readonly<Record<string, string>> = { ROLE_USER: "user", ROLE_AGENT: "agent" };

// ---- requests: v0.3 JSON in, v1.0 ProtoJSON out -------------------------

/** A v0.3 Part (`text`, `file` or `data`, by its `kind`, else by the field it has). */
export function partIn(v: unknown, path: string): JsonObject {
  const p = objectAt(v, path);
  const kind = p["kind"] ?? ("text" in p ? "text" : "file" in p ? "file" : "data" in p ? "data" : undefined);
  const out: JsonObject = {};
  switch (kind) {
    case "text": {
      if (typeof p["text"] !== "string") throw badV03(`${path}.text`, "must be a string");
      out["text"] = p["text"];
      break;
    }
    case "file": {
      const f = objectAt(p["file"], `${path}.file`);
      const bytes = optionalStringAt(f["bytes"], `${path}.file.bytes`);
      const uri = optionalStringAt(f["uri"], `${path}.file.uri`);
      if ((bytes === undefined) === (uri === undefined)) throw badV03(`${path}.file`, "must have one of bytes and uri");
      if (bytes !== undefined) out["raw"] = bytes;
      else out["url"] = uri!;
      const mimeType = optionalStringAt(f["mimeType"], `${path}.file.mimeType`);
      const name = optionalStringAt(f["name"], `${path}.file.name`);
      if (mimeType) out["mediaType"] = mimeType;
      if (name) out["filename"] = name;
      break;
    }
    case "data":
      out["data"] = objectAt(p["data"], `${path}.data`);
      break;
    default:
      throw badV03(`${path}.kind`, `${JSON.stringify(kind ?? null)} is not a v0.3 part kind (text, file, data)`);
  }
  return copyPresent(p, out, ["metadata"]);
}

/** v0.3's JSON-RPC JSON: fields by their JSON names, lower-case roles and states. */
const SPEC: V03Dialect = {
  get: (o, k) => o[k],
  parts: "parts",
  messageFields: ["messageId", "contextId", "taskId", "referenceTaskIds", "extensions", "metadata"],
  part: partIn,
  role(role, path) {
    const v1 = typeof role === "string" ? ROLES_IN[role] : undefined;
    if (v1 === undefined) throw badV03(path, `${JSON.stringify(role)} is not a v0.3 role (user, agent)`);
    return v1;
  },
  state: (state, path) => (state === undefined ? "TASK_STATE_UNSPECIFIED" : stateFromV03(state, path)),
  statusMessage: (s) => s["message"],
};

/** A v0.3 Message. */
export function messageIn(v: unknown, path: string): JsonObject {
  return readMessage(SPEC, v, path);
}

/** A v0.3 PushNotificationConfig of task `taskId` as v1.0's TaskPushNotificationConfig (one auth scheme: the first). */
export function pushConfigIn(v: unknown, taskId: JsonValue | undefined, path: string): JsonObject {
  const c = objectAt(v, path);
  const out: JsonObject = copyPresent(c, {}, ["id", "url", "token"]);
  if (taskId !== undefined && taskId !== null) out["taskId"] = taskId;
  const auth = optionalObjectAt(c["authentication"], `${path}.authentication`);
  if (auth !== undefined) {
    const schemes = arrayAt(auth["schemes"], `${path}.authentication.schemes`);
    const scheme = schemes[0];
    if (typeof scheme !== "string") throw badV03(`${path}.authentication.schemes`, "must name a scheme");
    out["authentication"] = copyPresent(auth, { scheme }, ["credentials"]);
  }
  return out;
}

/** `message/send` and `message/stream` params (MessageSendParams) as SendMessageRequest. */
export function sendParamsIn(v: unknown): JsonObject {
  const p = objectAt(v, "params");
  const out: JsonObject = { message: messageIn(p["message"], "params.message") };
  const c = optionalObjectAt(p["configuration"], "params.configuration");
  if (c !== undefined) {
    const config: JsonObject = copyPresent(c, {}, ["acceptedOutputModes", "historyLength"]);
    const push = optionalObjectAt(c["pushNotificationConfig"], "params.configuration.pushNotificationConfig");
    if (push !== undefined)
      config["taskPushNotificationConfig"] = pushConfigIn(push, undefined, "params.configuration.pushNotificationConfig");
    // v0.3 blocks unless told not to; v1.0 says it the other way round.
    if (c["blocking"] === false) config["returnImmediately"] = true;
    out["configuration"] = config;
  }
  return copyPresent(p, out, ["metadata"]);
}

/** `tasks/get` params (TaskQueryParams) as GetTaskRequest. */
export function taskQueryIn(v: unknown): JsonObject {
  return copyPresent(objectAt(v, "params"), {}, ["id", "historyLength"]);
}

/** `tasks/cancel` and `tasks/resubscribe` params (TaskIdParams), with the metadata where the request has a field for it. */
export function taskIdIn(withMetadata: boolean): (v: unknown) => JsonObject {
  return (v) => copyPresent(objectAt(v, "params"), {}, withMetadata ? ["id", "metadata"] : ["id"]);
}

/** `tasks/pushNotificationConfig/set` params (TaskPushNotificationConfig) as v1.0's. */
export function setPushConfigIn(v: unknown): JsonObject {
  const p = objectAt(v, "params");
  const taskId = p["taskId"];
  const config = pushConfigIn(p["pushNotificationConfig"], taskId, "params.pushNotificationConfig");
  // v0.3 names a config its task's id when the client names none (as its SDKs do), so that a get without an id finds it.
  if (config["id"] === undefined && typeof taskId === "string") config["id"] = taskId;
  return config;
}

/** `tasks/pushNotificationConfig/get` and `/delete` params: the config id defaults to the task's (see setPushConfigIn). */
export function pushConfigIdIn(v: unknown): JsonObject {
  const p = objectAt(v, "params");
  const taskId = p["id"];
  const id = p["pushNotificationConfigId"] ?? taskId;
  const out: JsonObject = {};
  if (taskId !== undefined && taskId !== null) out["taskId"] = taskId;
  if (id !== undefined && id !== null) out["id"] = id;
  return out;
}

/** `tasks/pushNotificationConfig/list` params (`{id}`). */
export function listPushConfigsIn(v: unknown): JsonObject {
  const p = objectAt(v, "params");
  return p["id"] === undefined ? {} : { taskId: p["id"] };
}

// ---- answers: v1.0 ProtoJSON in, v0.3 JSON out --------------------------

type Out = JsonObject;

function partOut(p: Out): Out {
  let out: Out;
  if (p["text"] !== undefined) {
    out = { kind: "text", text: p["text"] };
  } else if (p["raw"] !== undefined || p["url"] !== undefined) {
    const file: Out = p["raw"] !== undefined ? { bytes: p["raw"] } : { uri: p["url"] ?? "" };
    if (p["mediaType"]) file["mimeType"] = p["mediaType"];
    if (p["filename"]) file["name"] = p["filename"];
    out = { kind: "file", file };
  } else {
    // v0.3's data part holds an object; another JSON value goes under "value".
    const data = p["data"];
    out = { kind: "data", data: isJsonObject(data) ? data : { value: data ?? null } };
  }
  return copyPresent(p, out, ["metadata"]);
}

function partsOut(parts: JsonValue | undefined): JsonValue[] {
  return Array.isArray(parts) ? parts.map((p) => partOut(p as Out)) : [];
}

/** A v1.0 Message as v0.3's. */
export function messageOut(m: Out): Out {
  const out: Out = {
    kind: "message",
    messageId: m["messageId"] ?? "",
    role: ROLES_OUT[m["role"] as string] ?? "agent",
    parts: partsOut(m["parts"]),
  };
  return copyPresent(m, out, ["contextId", "taskId", "referenceTaskIds", "extensions", "metadata"]);
}

function statusOut(s: Out | undefined): Out {
  const out: Out = { state: stateToV03(s?.["state"]) };
  if (s?.["message"]) out["message"] = messageOut(s["message"] as Out);
  if (s?.["timestamp"]) out["timestamp"] = s["timestamp"];
  return out;
}

function artifactOut(a: Out): Out {
  const out: Out = copyPresent(a, { artifactId: a["artifactId"] ?? "" }, ["name", "description"]);
  out["parts"] = partsOut(a["parts"]);
  return copyPresent(a, out, ["metadata", "extensions"]);
}

/** A v1.0 Task as v0.3's. */
export function taskOut(t: Out): Out {
  const out: Out = { kind: "task", id: t["id"] ?? "", contextId: t["contextId"] ?? "", status: statusOut(t["status"] as Out | undefined) };
  if (Array.isArray(t["artifacts"]) && t["artifacts"].length > 0) out["artifacts"] = t["artifacts"].map((a) => artifactOut(a as Out));
  if (Array.isArray(t["history"])) out["history"] = t["history"].map((m) => messageOut(m as Out));
  return copyPresent(t, out, ["metadata"]);
}

/** A SendMessageResponse (task or message) as `message/send`'s result. */
export function sendResultOut(r: JsonValue): Out {
  const o = r as Out;
  return o["task"] !== undefined ? taskOut(o["task"] as Out) : messageOut((o["message"] ?? {}) as Out);
}

/** A StreamResponse as one `message/stream` / `tasks/resubscribe` result. */
export function streamEventOut(r: JsonValue): Out {
  const o = r as Out;
  if (o["task"] !== undefined) return taskOut(o["task"] as Out);
  if (o["message"] !== undefined) return messageOut(o["message"] as Out);
  if (o["statusUpdate"] !== undefined) {
    const u = o["statusUpdate"] as Out;
    const status = u["status"] as Out | undefined;
    const out: Out = {
      kind: "status-update",
      taskId: u["taskId"] ?? "",
      contextId: u["contextId"] ?? "",
      status: statusOut(status),
      final: isFinalV03(status?.["state"]),
    };
    return copyPresent(u, out, ["metadata"]);
  }
  const u = (o["artifactUpdate"] ?? {}) as Out;
  const out: Out = {
    kind: "artifact-update",
    taskId: u["taskId"] ?? "",
    contextId: u["contextId"] ?? "",
    artifact: artifactOut((u["artifact"] ?? {}) as Out),
  };
  return copyPresent(u, out, ["append", "lastChunk", "metadata"]);
}

/** A v1.0 TaskPushNotificationConfig as v0.3's (`{taskId, pushNotificationConfig}`). */
export function pushConfigOut(c: JsonValue): Out {
  const o = c as Out;
  const config: Out = copyPresent(o, {}, ["id", "url", "token"]);
  const auth = o["authentication"] as Out | undefined;
  if (auth) config["authentication"] = copyPresent(auth, { schemes: [auth["scheme"] ?? ""] }, ["credentials"]);
  return { taskId: o["taskId"] ?? "", pushNotificationConfig: config };
}

/** A ListTaskPushNotificationConfigsResponse as `tasks/pushNotificationConfig/list`'s result: the configs. */
export function pushConfigListOut(r: JsonValue): JsonValue[] {
  const configs = (r as Out)["configs"];
  return Array.isArray(configs) ? configs.map(pushConfigOut) : [];
}

// ---- the client's side: v1.0 requests out as v0.3 params, v0.3 results in -

/** SendMessageRequest's ProtoJSON as `message/send` params (MessageSendParams). */
export function sendParamsOut(r: Out): Out {
  const out: Out = { message: messageOut((r["message"] ?? {}) as Out) };
  const c = r["configuration"] as Out | undefined;
  if (c) {
    const config: Out = copyPresent(c, {}, ["acceptedOutputModes", "historyLength"]);
    const push = c["taskPushNotificationConfig"] as Out | undefined;
    if (push) config["pushNotificationConfig"] = pushConfigOut(push)["pushNotificationConfig"]!;
    config["blocking"] = c["returnImmediately"] !== true;
    out["configuration"] = config;
  }
  return copyPresent(r, out, ["metadata"]);
}

/** `{taskId, id}` of v1.0's get/delete config requests as v0.3's `{id, pushNotificationConfigId}`. */
export function pushConfigIdOut(r: Out): Out {
  const out: Out = { id: r["taskId"] ?? "" };
  if (r["id"]) out["pushNotificationConfigId"] = r["id"];
  return out;
}

/** A v0.3 Task (untrusted: another agent's answer) as v1.0's ProtoJSON. */
export function taskIn(v: unknown, path = "result"): JsonObject {
  return readTask(SPEC, v, path);
}

/** `message/send`'s result (a Task or a Message, by `kind`) as SendMessageResponse. */
export function sendResultIn(v: unknown): JsonObject {
  const r = objectAt(v, "result");
  return r["kind"] === "message" ? { message: messageIn(r, "result") } : { task: taskIn(r) };
}

/** One `message/stream` / `tasks/resubscribe` result as a StreamResponse (`final` is what the state says already). */
export function streamEventIn(v: unknown): JsonObject {
  const r = objectAt(v, "result");
  switch (r["kind"]) {
    case "message":
      return { message: messageIn(r, "result") };
    case "status-update":
      return {
        statusUpdate: copyPresent(r, { status: readStatus(SPEC, r["status"], "result.status") }, ["taskId", "contextId", "metadata"]),
      };
    case "artifact-update":
      return {
        artifactUpdate: copyPresent(r, { artifact: readArtifact(SPEC, r["artifact"], "result.artifact") }, [
          "taskId",
          "contextId",
          "append",
          "lastChunk",
          "metadata",
        ]),
      };
    default:
      return { task: taskIn(r) };
  }
}

/** A v0.3 TaskPushNotificationConfig result as v1.0's. */
export function pushConfigResultIn(v: unknown): JsonObject {
  const r = objectAt(v, "result");
  return pushConfigIn(r["pushNotificationConfig"] ?? {}, r["taskId"], "result.pushNotificationConfig");
}

/** `tasks/pushNotificationConfig/list`'s result (an array) as ListTaskPushNotificationConfigsResponse. */
export function pushConfigListIn(v: unknown): JsonObject {
  return { configs: arrayAt(v, "result").map(pushConfigResultIn) };
}
