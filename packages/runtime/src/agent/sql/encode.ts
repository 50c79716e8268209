/**
 * Protobuf binary of the tasks and events the SQL store writes, reusing what
 * it encoded before. Every commit stores the whole task, and a task changes
 * by copy on write: the new task holds the same history messages, artifacts
 * and often the same status objects as the last one, and its event holds the
 * status (or, for a create, the task) just encoded. So the message-valued
 * fields of the top levels are encoded one by one, each object once, and
 * their bytes are kept by the object's identity; only what is new is encoded
 * again. This leans on the stores' contract (store.ts): an object handed to a
 * store is never changed afterwards.
 *
 * The bytes are protobuf binary that any reader takes (protobuf-es's
 * `fromBinary` included): the scalar fields first, then the message fields,
 * each as tag, length and the field's own encoding, as `toBinary` writes
 * them; only the order of the fields differs, which the wire format allows.
 */
import { toBinary, type DescMessage, type Message } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";

/** Encoded messages by identity; entries go with their objects. */
const encoded = new WeakMap<object, Uint8Array>();

/**
 * How many levels are taken apart: a Task (its status, history, artifacts), then
 * those (a status's message; an event's status update and its status).
 * Deeper, a message is one `toBinary`, which is cheaper than taking small ones apart.
 */
const DEPTH = 2;

type Fields = Record<string, unknown>;

/** `toBinary(schema, message)`, from kept bytes where it can. */
export function encodeReusing(schema: DescMessage, message: Message, depth = DEPTH): Uint8Array {
  const hit = encoded.get(message);
  if (hit) return hit;
  const bytes = depth > 0 ? split(schema, message as unknown as Fields, depth) : toBinary(schema, message as never);
  encoded.set(message, bytes);
  return bytes;
}

function split(schema: DescMessage, message: Fields, depth: number): Uint8Array {
  let rest: Fields | undefined;
  const parts: [number, Uint8Array][] = [];
  for (const f of schema.fields) {
    // Well-known types stay in place: protobuf-es holds a Struct as JSON and a wrapper as its value,
    // not as messages; so do groups (delimited, not length-prefixed).
    if (f.fieldKind === "message" && !f.delimitedEncoding && !f.message.typeName.startsWith("google.protobuf.")) {
      if (f.oneof) {
        const o = message[f.oneof.localName] as { case?: string; value?: Message } | undefined;
        if (o?.case !== f.localName || !o.value) continue;
        rest ??= { ...message };
        rest[f.oneof.localName] = { case: undefined };
        parts.push([f.number, encodeReusing(f.message, o.value, depth - 1)]);
      } else {
        const v = message[f.localName] as Message | undefined;
        if (v === undefined) continue;
        rest ??= { ...message };
        rest[f.localName] = undefined;
        parts.push([f.number, encodeReusing(f.message, v, depth - 1)]);
      }
    } else if (
      f.fieldKind === "list" &&
      f.listKind === "message" &&
      !f.delimitedEncoding &&
      !f.message.typeName.startsWith("google.protobuf.")
    ) {
      const list = message[f.localName] as Message[] | undefined;
      if (!list?.length) continue;
      rest ??= { ...message };
      rest[f.localName] = [];
      for (const v of list) parts.push([f.number, encodeReusing(f.message, v, depth - 1)]);
    }
  }
  if (!rest) return toBinary(schema, message as never);
  const w = new BinaryWriter();
  w.raw(toBinary(schema, rest as never));
  for (const [no, bytes] of parts) w.tag(no, WireType.LengthDelimited).bytes(bytes);
  return w.finish();
}
