// What both v0.3 dialects (JSON-RPC's JSON and the REST binding's ProtoJSON)
// share when they are translated to and from v1.0's ProtoJSON: reading
// untrusted JSON with errors that name the field, the task states, and when
// a status update is `final`.
import type { JsonValue } from "@bufbuild/protobuf";
import { a2aError, TaskState, endsTurn } from "../a2a.js";
import { isJsonObject } from "../json-object.js";

/** A JSON object. */
export type JsonObject = { [key: string]: JsonValue };

/** The version a v0.3 peer speaks, as `A2A-Version` and the card's `protocolVersion` say it. */
export const A2A_V03 = "0.3";

/** The card's `protocolVersion` for v0.3 clients (they compare it as a full version). */
export const A2A_V03_CARD_VERSION = "0.3.0";

/** The INVALID_PARAMS error for a v0.3 value of the wrong shape, naming where it is. */
export function badV03(path: string, what: string): Error {
  // A2AErrors.invalidParams's error, made without A2AErrors: that object of every A2A error would
  // otherwise come whole into a browser bundle of the client, which reads v0.3 answers with this.
  return a2aError("INVALID_PARAMS", `${path}: ${what}`);
}

/** `v` as a JSON object, or an INVALID_PARAMS error naming `path`. */
export function objectAt(v: unknown, path: string): JsonObject {
  if (!isJsonObject(v)) throw badV03(path, "must be a JSON object");
  return v as JsonObject;
}

/** `v` as a JSON object, undefined when absent or null. */
export function optionalObjectAt(v: unknown, path: string): JsonObject | undefined {
  return v === undefined || v === null ? undefined : objectAt(v, path);
}

/** `v` as an array, [] when absent or null. */
export function arrayAt(v: unknown, path: string): readonly JsonValue[] {
  if (v === undefined || v === null) return [];
  if (!Array.isArray(v)) throw badV03(path, "must be a JSON array");
  return v as JsonValue[];
}

/** `v` as a string, undefined when absent or null. */
export function optionalStringAt(v: unknown, path: string): string | undefined {
  if (v === undefined || v === null) return undefined;
  if (typeof v !== "string") throw badV03(path, "must be a string");
  return v;
}

/**
 * Copies the listed keys of `from` that are present (not undefined or null) into `to`, values as they are;
 * `get` reads a key (ProtoJSON's takes the proto name too).
 */
export function copyPresent(
  from: JsonObject,
  to: JsonObject,
  keys: readonly string[],
  get: (o: JsonObject, key: string) => JsonValue | undefined = (o, k) => o[k],
): JsonObject {
  for (const k of keys) {
    const v = get(from, k);
    if (v !== undefined && v !== null) to[k] = v;
  }
  return to;
}

/** TaskState's names without the prefix, by number, from the engine's own table. */
const stateKeys = new Map<number, string>(Object.entries(TaskState).map(([k, v]) => [v, k]));

/** The v1.0 ProtoJSON name of a state: `TASK_STATE_WORKING`. */
function v1StateName(key: string): string {
  return `TASK_STATE_${key}`;
}

// Made on first use: a map built at load time would stay in a client's bundle, which reads no v1.0 state by name.
let v1StateNumbers: Map<string, number> | undefined;

/** The number of a v1.0 ProtoJSON state name (or number), 0 for anything else. */
export function v1StateNumber(state: JsonValue | undefined): number {
  if (typeof state === "number") return state;
  v1StateNumbers ??= new Map([...stateKeys].map(([n, k]) => [v1StateName(k), n]));
  return typeof state === "string" ? (v1StateNumbers.get(state) ?? 0) : 0;
}

/**
 * A state in v0.3's JSON-RPC spelling (`input-required`) from and to v1.0's
 * ProtoJSON name (`TASK_STATE_INPUT_REQUIRED`): the same states, lower case
 * with hyphens; v0.3's `unknown` is v1.0's UNSPECIFIED.
 */
export function stateToV03(v1: JsonValue | undefined): string {
  const key = stateKeys.get(v1StateNumber(v1));
  return key === undefined || key === "UNSPECIFIED" ? "unknown" : key.toLowerCase().replaceAll("_", "-");
}

const v03States = new Map<string, string>(
  [...stateKeys.values()].map((k) => [k === "UNSPECIFIED" ? "unknown" : k.toLowerCase().replaceAll("_", "-"), v1StateName(k)]),
);

/** The v1.0 ProtoJSON state of a v0.3 JSON-RPC state name, or an INVALID_PARAMS error. */
export function stateFromV03(v03: unknown, path: string): string {
  const name = typeof v03 === "string" ? v03States.get(v03) : undefined;
  if (name === undefined) throw badV03(path, `${JSON.stringify(v03)} is not a v0.3 task state`);
  return name;
}

/**
 * v0.3's `final` on a status update: the stream ends after it, which it does
 * when the task ended or waits for the client (the engine closes a stream on
 * exactly these states).
 */
export function isFinalV03(v1State: JsonValue | undefined): boolean {
  return endsTurn(v1StateNumber(v1State));
}

/**
 * Set to false on a handler object that must not serve v0.3 (the engine's
 * `a2aV03: false`), so that the adapters it is mounted on leave v0.3 off
 * without an option of their own.
 */
export const A2A_V03_HANDLERS = Symbol.for("a2a-http.a2aV03");

/** The A2A v1.0 service, whose rpcs the v0.3 methods and routes translate to. */
const A2A_V1_SERVICE = "lf.a2a.v1.A2AService";

/**
 * Whether a binding over `serviceTypeName`'s handlers serves v0.3 too: the
 * A2A profile on A2A v1.0's service, unless the option or the handlers say no.
 */
export function servesV03(
  a2aProfile: boolean,
  serviceTypeName: string | undefined,
  option: boolean | undefined,
  handlers: object,
): boolean {
  if (!a2aProfile || serviceTypeName !== A2A_V1_SERVICE) return false;
  return option ?? (handlers as { [A2A_V03_HANDLERS]?: boolean })[A2A_V03_HANDLERS] ?? true;
}
