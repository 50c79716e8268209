// Push notifications to v0.3 clients in v0.3's shape: a config made by a v0.3
// request remembers it, and each notification to it is the task as v0.3 JSON
// (v0.3 §9.5: the Task object is the payload; the sender adds
// X-A2A-Notification-Token as for every config). The engine asks here which
// shape a config takes, and writes nothing of v0.3 itself.
import type { DescMessage, JsonValue, Message } from "@bufbuild/protobuf";
import { toJson } from "@bufbuild/protobuf";
import { A2A_V03 } from "./common.js";
import { taskOut } from "./spec-json.js";

/**
 * The field number a config's version is kept under: the largest a field may
 * have, which no A2A proto uses. It is an unknown field to protobuf-es, and
 * every store keeps a config's unknown fields (the memory store holds the
 * message, the SQL store its binary encoding, where protobuf-es writes and
 * reads them), so the mark needs no column or store change.
 */
const MARK_FIELD = 536_870_911;
/** Wire type 2 (length-delimited), for the version's UTF-8 bytes. */
const LEN = 2;

/** `config`, marked as made by a request of `version` (a dialect's, e.g. "0.3"); v1.0 configs are left alone. */
export function markPushConfigVersion<M extends Message>(config: M, version: string | undefined): M {
  if (version !== A2A_V03) return config;
  const bytes = new TextEncoder().encode(version);
  const data = new Uint8Array([...varint(bytes.length), ...bytes]);
  (config as { $unknown?: { no: number; wireType: number; data: Uint8Array }[] }).$unknown = [
    ...((config as { $unknown?: { no: number; wireType: number; data: Uint8Array }[] }).$unknown ?? []).filter((f) => f.no !== MARK_FIELD),
    { no: MARK_FIELD, wireType: LEN, data },
  ];
  return config;
}

/** The version a config was made in: "0.3" when marked so, else undefined (v1.0). */
export function pushConfigVersion(config: object): string | undefined {
  const unknown = (config as { $unknown?: { no: number; data: Uint8Array }[] }).$unknown;
  const mark = unknown?.find((f) => f.no === MARK_FIELD);
  if (mark === undefined) return undefined;
  // One length byte: the version is short.
  return new TextDecoder().decode(mark.data.subarray(1));
}

/** A config as answered to a client: without the mark (a gRPC client would get it as an unknown field). */
export function withoutPushConfigMark<M extends Message>(config: M): M {
  const unknown = (config as { $unknown?: { no: number }[] }).$unknown;
  if (!unknown?.some((f) => f.no === MARK_FIELD)) return config;
  const rest = unknown.filter((f) => f.no !== MARK_FIELD);
  return { ...config, $unknown: rest.length > 0 ? rest : undefined } as M;
}

/** A v0.3 notification's body: the task, as v0.3 JSON. */
export function v03PushBody(taskSchema: DescMessage, task: Message): string {
  return JSON.stringify(taskOut(toJson(taskSchema, task) as { [k: string]: JsonValue }));
}

function varint(n: number): number[] {
  const out: number[] = [];
  while (n > 0x7f) {
    out.push((n & 0x7f) | 0x80);
    n >>>= 7;
  }
  out.push(n);
  return out;
}
