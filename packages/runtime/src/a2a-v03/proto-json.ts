// A2A v0.3's HTTP+JSON bodies (the ProtoJSON of a2a-v0_3.proto, package
// a2a.v1: `content` for a message's parts, `file.fileWithUri`, `data.data`,
// TASK_STATE_CANCELLED, `final` on status updates) to and from v1.0's
// ProtoJSON. Requests are untrusted: a wrong shape is INVALID_PARAMS naming
// its field; answers come from our own encoder.
import type { JsonValue } from "@bufbuild/protobuf";
import { withV03CardFields } from "./card.js";
import { arrayAt, badV03, copyPresent, isFinalV03, objectAt, optionalObjectAt, optionalStringAt, type JsonObject } from "./common.js";
import { protoNameOf } from "../proto-name.js";
import { readMessage, readTask, readStatus, readArtifact, type V03Dialect } from "./read.js";
import { isJsonObject } from "../json-object.js";

/** A field of a ProtoJSON object by its JSON name or its proto name, which a parser must both take (ProtoJSON spec). */
function field(o: JsonObject, jsonName: string): JsonValue | undefined {
  const v = o[jsonName];
  return v !== undefined ? v : o[protoNameOf(jsonName)];
}

/** copyPresent for ProtoJSON input: each field by either name, written by its JSON name. */
function copyFields(from: JsonObject, to: JsonObject, jsonNames: readonly string[]): JsonObject {
  return copyPresent(from, to, jsonNames, field);
}

/** The one state whose name differs: v0.3's proto spells it with two Ls. */
const V03_CANCELLED = "TASK_STATE_CANCELLED";
const V1_CANCELED = "TASK_STATE_CANCELED";

// ---- requests: v0.3 ProtoJSON in, v1.0 ProtoJSON out --------------------

function partIn(v: unknown, path: string): JsonObject {
  const p = objectAt(v, path);
  if (typeof p["text"] === "string") return { text: p["text"] };
  if (p["file"] !== undefined && p["file"] !== null) {
    const f = objectAt(p["file"], `${path}.file`);
    const uri = optionalStringAt(field(f, "fileWithUri"), `${path}.file.fileWithUri`);
    const bytes = optionalStringAt(field(f, "fileWithBytes"), `${path}.file.fileWithBytes`);
    if ((uri === undefined) === (bytes === undefined)) throw badV03(`${path}.file`, "must have one of fileWithUri and fileWithBytes");
    const out: JsonObject = uri !== undefined ? { url: uri } : { raw: bytes! };
    const mimeType = optionalStringAt(field(f, "mimeType"), `${path}.file.mimeType`);
    if (mimeType) out["mediaType"] = mimeType;
    return out;
  }
  if (p["data"] !== undefined && p["data"] !== null) {
    return { data: objectAt(objectAt(p["data"], `${path}.data`)["data"] ?? {}, `${path}.data.data`) };
  }
  throw badV03(path, "must have one of text, file and data");
}

/** The roles of v0.3's proto, by ProtoJSON name and number. */
const ROLES: readonly JsonValue[] = ["ROLE_UNSPECIFIED", "ROLE_USER", "ROLE_AGENT", 0, 1, 2];

/** v0.3's ProtoJSON (a2a-v0_3.proto): either name of a field, `content` for parts, the proto's roles, TASK_STATE_CANCELLED. */
const PROTO: V03Dialect = {
  get: field,
  parts: "content",
  messageFields: ["messageId", "contextId", "taskId", "metadata", "extensions"],
  part: partIn,
  role(v, path) {
    if (!ROLES.includes(v)) throw badV03(path, `${JSON.stringify(v)} is not a role (ROLE_USER, ROLE_AGENT)`);
    return v;
  },
  state: (state) => (state === V03_CANCELLED ? V1_CANCELED : (state ?? "TASK_STATE_UNSPECIFIED")),
  // TaskStatus's `update` (JSON name `message`).
  statusMessage: (s) => field(s, "message") ?? field(s, "update"),
};

const messageIn = (v: unknown, path: string): JsonObject => readMessage(PROTO, v, path);

/** v0.3's PushNotificationConfig of task `taskId` as v1.0's TaskPushNotificationConfig; the id defaults to the task's (as on JSON-RPC). */
function pushConfigIn(v: unknown, taskId: string | undefined, path: string): JsonObject {
  const c = objectAt(v, path);
  const out: JsonObject = copyFields(c, {}, ["id", "url", "token"]);
  if (taskId !== undefined) {
    out["taskId"] = taskId;
    if (!out["id"]) out["id"] = taskId;
  }
  const auth = optionalObjectAt(c["authentication"], `${path}.authentication`);
  const schemes = arrayAt(auth?.["schemes"], `${path}.authentication.schemes`);
  // An empty authentication (no scheme, no credentials) is none.
  if (auth !== undefined && (schemes.length > 0 || field(auth, "credentials"))) {
    const scheme = schemes[0];
    if (typeof scheme !== "string") throw badV03(`${path}.authentication.schemes`, "must name a scheme");
    out["authentication"] = copyFields(auth, { scheme }, ["credentials"]);
  }
  return out;
}

/** `POST /v1/message:send` and `:stream`: SendMessageRequest. */
export function sendRequestIn(body: unknown): JsonObject {
  const b = objectAt(body ?? {}, "body");
  const out: JsonObject = { message: messageIn(b["message"] ?? b["request"], "body.message") };
  const c = optionalObjectAt(b["configuration"], "body.configuration");
  if (c !== undefined) {
    const config: JsonObject = copyFields(c, {}, ["acceptedOutputModes", "historyLength"]);
    const push = field(c, "pushNotification");
    if (push !== undefined && push !== null)
      config["taskPushNotificationConfig"] = pushConfigIn(push, undefined, "body.configuration.pushNotification");
    // ProtoJSON leaves a false `blocking` out, so a configuration without it
    // asks not to block (as v0.3's reference server reads it); a request
    // without a configuration blocks, as on JSON-RPC.
    if (c["blocking"] !== true) config["returnImmediately"] = true;
    out["configuration"] = config;
  }
  return copyPresent(b, out, ["metadata"]);
}

/**
 * `POST /v1/tasks/{id}/pushNotificationConfigs`: the body is the config
 * (`{name, pushNotificationConfig}`, as the HttpRule's `body: "config"`
 * says and v0.3 clients send), or the whole request (`{parent, configId,
 * config}`), which some servers read.
 */
export function createPushConfigIn(taskId: string, body: unknown): JsonObject {
  const b = objectAt(body ?? {}, "body");
  const wrapped = optionalObjectAt(b["config"], "body.config");
  const config = wrapped ?? b;
  const out = pushConfigIn(field(config, "pushNotificationConfig") ?? {}, taskId, "body.pushNotificationConfig");
  if (!out["id"] || out["id"] === taskId) {
    const configId = field(b, "configId");
    if (typeof configId === "string" && configId !== "") out["id"] = configId;
  }
  return out;
}

// ---- answers: v1.0 ProtoJSON in, v0.3 ProtoJSON out ---------------------

type Out = JsonObject;

function partOut(p: Out): Out {
  if (p["text"] !== undefined) return { text: p["text"] };
  if (p["raw"] !== undefined || p["url"] !== undefined) {
    const file: Out = p["raw"] !== undefined ? { fileWithBytes: p["raw"] } : { fileWithUri: p["url"] ?? "" };
    if (p["mediaType"]) file["mimeType"] = p["mediaType"];
    return { file };
  }
  // v0.3's DataPart holds a Struct; another JSON value goes under "value".
  const data = p["data"];
  return { data: { data: isJsonObject(data) ? data : { value: data ?? null } } };
}

function messageOut(m: Out): Out {
  const out: Out = copyPresent(m, {}, ["messageId", "contextId", "taskId", "role"]);
  out["content"] = Array.isArray(m["parts"]) ? m["parts"].map((p) => partOut(p as Out)) : [];
  return copyPresent(m, out, ["metadata", "extensions"]);
}

function statusOut(s: Out | undefined): Out {
  const state = s?.["state"];
  const out: Out = { state: state === V1_CANCELED ? V03_CANCELLED : (state ?? "TASK_STATE_UNSPECIFIED") };
  if (s?.["message"]) out["message"] = messageOut(s["message"] as Out);
  if (s?.["timestamp"]) out["timestamp"] = s["timestamp"];
  return out;
}

function artifactOut(a: Out): Out {
  const out: Out = copyPresent(a, {}, ["artifactId", "name", "description"]);
  out["parts"] = Array.isArray(a["parts"]) ? a["parts"].map((p) => partOut(p as Out)) : [];
  return copyPresent(a, out, ["metadata", "extensions"]);
}

/** A v1.0 Task as v0.3's. */
export function taskOut(r: JsonValue): Out {
  const t = r as Out;
  const out: Out = copyPresent(t, {}, ["id", "contextId"]);
  out["status"] = statusOut(t["status"] as Out | undefined);
  if (Array.isArray(t["artifacts"])) out["artifacts"] = t["artifacts"].map((a) => artifactOut(a as Out));
  if (Array.isArray(t["history"])) out["history"] = t["history"].map((m) => messageOut(m as Out));
  return copyPresent(t, out, ["metadata"]);
}

/** SendMessageResponse. */
export function sendResponseOut(r: JsonValue): Out {
  const o = r as Out;
  return o["task"] !== undefined ? { task: taskOut(o["task"]) } : { message: messageOut((o["message"] ?? {}) as Out) };
}

/** StreamResponse: the same wrappers, a status update with v0.3's `final`. */
export function streamResponseOut(r: JsonValue): Out {
  const o = r as Out;
  if (o["task"] !== undefined) return { task: taskOut(o["task"]) };
  if (o["message"] !== undefined) return { message: messageOut(o["message"] as Out) };
  if (o["statusUpdate"] !== undefined) {
    const u = o["statusUpdate"] as Out;
    const status = u["status"] as Out | undefined;
    const out: Out = copyPresent(u, {}, ["taskId", "contextId"]);
    out["status"] = statusOut(status);
    out["final"] = isFinalV03(status?.["state"]);
    return { statusUpdate: copyPresent(u, out, ["metadata"]) };
  }
  const u = (o["artifactUpdate"] ?? {}) as Out;
  const out: Out = copyPresent(u, {}, ["taskId", "contextId"]);
  out["artifact"] = artifactOut((u["artifact"] ?? {}) as Out);
  return { artifactUpdate: copyPresent(u, out, ["append", "lastChunk", "metadata"]) };
}

/** TaskPushNotificationConfig: `{name: "tasks/{task}/pushNotificationConfigs/{id}", pushNotificationConfig}`. */
export function pushConfigOut(r: JsonValue): Out {
  const c = r as Out;
  const config: Out = copyPresent(c, {}, ["id", "url", "token"]);
  const auth = c["authentication"] as Out | undefined;
  if (auth) config["authentication"] = copyPresent(auth, { schemes: [auth["scheme"] ?? ""] }, ["credentials"]);
  return { name: `tasks/${String(c["taskId"] ?? "")}/pushNotificationConfigs/${String(c["id"] ?? "")}`, pushNotificationConfig: config };
}

/** ListTaskPushNotificationConfigResponse. */
export function pushConfigListOut(r: JsonValue): Out {
  const o = r as Out;
  const out: Out = { configs: Array.isArray(o["configs"]) ? o["configs"].map(pushConfigOut) : [] };
  if (o["nextPageToken"]) out["nextPageToken"] = o["nextPageToken"];
  return out;
}

/** google.protobuf.Empty. */
export function emptyOut(): Out {
  return {};
}

/** AgentCard: the same card as at the well-known path. */
export const cardOut: (r: JsonValue) => JsonValue = withV03CardFields;

// ---- the client's side: v1.0 requests out as v0.3 bodies, v0.3 answers in -

/** SendMessageRequest's ProtoJSON as v0.3's (`blocking` said either way: ProtoJSON would drop a false one). */
export function sendRequestOut(r: JsonValue): Out {
  const o = r as Out;
  const out: Out = { message: messageOut((o["message"] ?? {}) as Out) };
  const c = (o["configuration"] ?? {}) as Out;
  const config: Out = copyPresent(c, {}, ["acceptedOutputModes", "historyLength"]);
  const push = c["taskPushNotificationConfig"] as Out | undefined;
  if (push) config["pushNotification"] = pushConfigOut(push)["pushNotificationConfig"]!;
  config["blocking"] = c["returnImmediately"] !== true;
  out["configuration"] = config;
  return copyPresent(o, out, ["metadata"]);
}

/** A v0.3 Task (untrusted: another agent's answer) as v1.0's. */
export function taskIn(v: unknown, path = "body"): JsonObject {
  return readTask(PROTO, v, path);
}

/** SendMessageResponse. */
export function sendResponseIn(v: unknown): JsonObject {
  const r = objectAt(v, "body");
  const message = field(r, "message") ?? field(r, "msg");
  return message !== undefined && message !== null
    ? { message: messageIn(message, "body.message") }
    : { task: taskIn(field(r, "task") ?? {}, "body.task") };
}

/** StreamResponse; a bare Task (some v0.3 servers send the object without its wrapper) is taken as one. */
export function streamResponseIn(v: unknown): JsonObject {
  const r = objectAt(v, "event");
  const message = field(r, "message") ?? field(r, "msg");
  if (message !== undefined && message !== null) return { message: messageIn(message, "event.message") };
  const status = field(r, "statusUpdate");
  if (status !== undefined && status !== null) {
    const u = objectAt(status, "event.statusUpdate");
    return {
      statusUpdate: copyFields(u, { status: readStatus(PROTO, field(u, "status"), "event.statusUpdate.status") }, [
        "taskId",
        "contextId",
        "metadata",
      ]),
    };
  }
  const artifact = field(r, "artifactUpdate");
  if (artifact !== undefined && artifact !== null) {
    const u = objectAt(artifact, "event.artifactUpdate");
    return {
      artifactUpdate: copyFields(u, { artifact: readArtifact(PROTO, field(u, "artifact") ?? {}, "event.artifactUpdate.artifact") }, [
        "taskId",
        "contextId",
        "append",
        "lastChunk",
        "metadata",
      ]),
    };
  }
  return { task: taskIn(field(r, "task") ?? r, "event.task") };
}

/** A v0.3 TaskPushNotificationConfig (`{name: "tasks/{task}/pushNotificationConfigs/{id}", pushNotificationConfig}`) as v1.0's. */
export function pushConfigIn03(v: unknown): JsonObject {
  const c = objectAt(v, "body");
  const name = field(c, "name");
  const taskId = typeof name === "string" ? /^tasks\/([^/]+)\//.exec(name)?.[1] : undefined;
  return pushConfigIn(field(c, "pushNotificationConfig") ?? {}, taskId, "body.pushNotificationConfig");
}

/** ListTaskPushNotificationConfigResponse. */
export function pushConfigListIn(v: unknown): JsonObject {
  const r = objectAt(v, "body");
  const out: JsonObject = { configs: arrayAt(field(r, "configs"), "body.configs").map(pushConfigIn03) };
  return copyFields(r, out, ["nextPageToken"]);
}
