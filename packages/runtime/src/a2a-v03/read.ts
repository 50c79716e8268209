// A v0.3 task, status, artifact and message (untrusted JSON: a request's
// message, another agent's answer) read into v1.0's ProtoJSON once for both
// v0.3 dialects: JSON-RPC's JSON (spec-json.ts) and the REST binding's
// ProtoJSON (proto-json.ts) nest them alike and differ only in what a
// `V03Dialect` says (field names, parts, roles, states).
import type { JsonValue } from "@bufbuild/protobuf";
import { arrayAt, copyPresent, objectAt, type JsonObject } from "./common.js";

/** What one v0.3 dialect spells its own way. */
export interface V03Dialect {
  /** A field by its JSON name (ProtoJSON takes the proto name too). */
  readonly get: (o: JsonObject, jsonName: string) => JsonValue | undefined;
  /** The name of a message's parts ("content" in the REST binding's proto, which takes "parts" too). */
  readonly parts: string;
  /** The fields of a message copied as they are. */
  readonly messageFields: readonly string[];
  readonly part: (v: unknown, path: string) => JsonObject;
  /** A message's role (present, not null) as v1.0's, or an INVALID_PARAMS error. */
  readonly role: (v: JsonValue, path: string) => JsonValue;
  /** A status's state (as the field holds it, maybe absent) as v1.0's. */
  readonly state: (v: JsonValue | undefined, path: string) => JsonValue;
  /** A status's message (REST: the proto name `update` too). */
  readonly statusMessage: (s: JsonObject) => JsonValue | undefined;
}

/** A v0.3 Message as v1.0's. */
export function readMessage(d: V03Dialect, v: unknown, path: string): JsonObject {
  const m = objectAt(v, path);
  const out = copyPresent(m, {}, d.messageFields, d.get);
  const role = d.get(m, "role");
  if (role !== undefined && role !== null) out["role"] = d.role(role, `${path}.role`);
  out["parts"] = arrayAt(m[d.parts] ?? m["parts"], `${path}.${d.parts}`).map((p, i) => d.part(p, `${path}.${d.parts}[${i}]`));
  return out;
}

/** A v0.3 TaskStatus (absent or null: an empty one) as v1.0's. */
export function readStatus(d: V03Dialect, v: unknown, path: string): JsonObject {
  const s = objectAt(v ?? {}, path);
  const out: JsonObject = { state: d.state(d.get(s, "state"), `${path}.state`) };
  const message = d.statusMessage(s);
  if (message !== undefined && message !== null) out["message"] = readMessage(d, message, `${path}.message`);
  return copyPresent(s, out, ["timestamp"], d.get);
}

/** A v0.3 Artifact as v1.0's. */
export function readArtifact(d: V03Dialect, v: unknown, path: string): JsonObject {
  const a = objectAt(v, path);
  const out = copyPresent(a, {}, ["artifactId", "name", "description", "metadata", "extensions"], d.get);
  out["parts"] = arrayAt(d.get(a, "parts"), `${path}.parts`).map((p, i) => d.part(p, `${path}.parts[${i}]`));
  return out;
}

/** A v0.3 Task as v1.0's. */
export function readTask(d: V03Dialect, v: unknown, path: string): JsonObject {
  const t = objectAt(v, path);
  const out = copyPresent(t, {}, ["id", "contextId", "metadata"], d.get);
  out["status"] = readStatus(d, d.get(t, "status"), `${path}.status`);
  const artifacts = arrayAt(d.get(t, "artifacts"), `${path}.artifacts`);
  if (artifacts.length > 0) out["artifacts"] = artifacts.map((a, i) => readArtifact(d, a, `${path}.artifacts[${i}]`));
  const history = arrayAt(d.get(t, "history"), `${path}.history`);
  if (history.length > 0) out["history"] = history.map((m, i) => readMessage(d, m, `${path}.history[${i}]`));
  return out;
}
