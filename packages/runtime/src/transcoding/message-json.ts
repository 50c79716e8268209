// A message's ProtoJSON through its generated codec when there is one, with
// protobuf-es for the rest: what the codec leaves (`undefined`) is
// protobuf-es's to answer, errors included.
import { create, fromJson, toJson, type DescMessage, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import type { MessageJsonCodec } from "../codegen/index.js";
import type { RouteBinding } from "../route-binding.js";
import { fillRequiredDefaults } from "./required.js";

/**
 * How message JSON is read and written: `generated` (the default) uses the
 * codecs that protoc-gen-a2a-http writes into `<file>_http_json.ts` where the
 * route table has them, which give exactly what protobuf-es gives;
 * `protobuf-es` calls its reflective fromJson/toJson on every value. With a
 * registry (for google.protobuf.Any), protobuf-es is used either way.
 */
export type JsonCodec = "generated" | "protobuf-es";

const LENIENT = { ignoreUnknownFields: true } as const;

/** The route's codecs, unless the options turn them off. */
export function routeCodecs(
  route: RouteBinding,
  options: { readonly jsonCodec?: JsonCodec | undefined; readonly registry?: Registry | undefined } | undefined,
): { input?: MessageJsonCodec; output?: MessageJsonCodec } | undefined {
  return options?.jsonCodec === "protobuf-es" || options?.registry !== undefined ? undefined : route.json;
}

/** `fromJson(desc, json, { ignoreUnknownFields: true })`. */
export function readLenient(desc: DescMessage, codec: MessageJsonCodec | undefined, json: JsonValue): Message {
  return codec?.read(json) ?? fromJson(desc, json, LENIENT);
}

/**
 * `toJson(desc, message)`. Apart from {@link writeMessage} so that a client,
 * which never writes REQUIRED defaults, does not bundle their reflective
 * walk (transcoding/required.ts and field_behavior's descriptor).
 */
export function writePlain(desc: DescMessage, codec: MessageJsonCodec | undefined, message: Message, registry?: Registry): JsonValue {
  return codec?.write(message) ?? toJson(desc, message, registry ? { registry } : undefined);
}

/**
 * `toJson(desc, message)`; with `emitRequired`, REQUIRED fields at their
 * defaults too (the codec writes them itself, see MessageJsonCodec.write).
 */
export function writeMessage(
  desc: DescMessage,
  codec: MessageJsonCodec | undefined,
  message: Message,
  emitRequired = false,
  registry?: Registry,
): JsonValue {
  if (!emitRequired) return writePlain(desc, codec, message, registry);
  const written = codec?.write(message, true);
  if (written !== undefined) return written;
  const json = toJson(desc, message, registry ? { registry } : undefined);
  fillRequiredDefaults(desc, message, json);
  return json;
}

/**
 * `writeMessage` of `create(desc, value)`: what a handler returned, a
 * message or its init shape. The codec is tried on the value itself first,
 * which spares create() wherever the codec can write it (see messageOf in
 * a2a-http/json).
 *
 * With `onSkip`, an answer that cannot be written because of items of its
 * top-level lists (one Task of a ListTasksResponse holding a NaN, say) is
 * written without those items, each reported to `onSkip`; one bad record
 * must not make a whole list unreadable for good. Without it, or when the
 * fault is elsewhere, the error is thrown.
 */
export function writeResult(
  desc: DescMessage,
  codec: MessageJsonCodec | undefined,
  value: unknown,
  emitRequired = false,
  registry?: Registry,
  onSkip?: (error: Error) => void,
): JsonValue {
  try {
    return writeWhole(desc, codec, value, emitRequired, registry);
  } catch (e) {
    if (onSkip === undefined) throw e;
    const partial = writeSkipping(desc, codec, value, emitRequired, registry, onSkip);
    if (partial === undefined) throw e;
    return partial;
  }
}

function writeWhole(
  desc: DescMessage,
  codec: MessageJsonCodec | undefined,
  value: unknown,
  emitRequired: boolean,
  registry?: Registry,
): JsonValue {
  if (codec !== undefined) {
    const written = codec.write(value as Message, emitRequired);
    if (written !== undefined) return written;
    // Given up: a message goes to protobuf-es, an init shape to create() and then the codec once more.
    if ((value as Message | null)?.$typeName === desc.typeName) codec = undefined;
  }
  return writeMessage(desc, codec, create(desc, value as never), emitRequired, registry);
}

/** The answer without the items of its top-level message lists that cannot be written, or undefined when that does not help. */
function writeSkipping(
  desc: DescMessage,
  codec: MessageJsonCodec | undefined,
  value: unknown,
  emitRequired: boolean,
  registry: Registry | undefined,
  onSkip: (error: Error) => void,
): JsonValue | undefined {
  let message: Record<string, unknown>;
  try {
    message = create(desc, value as never) as unknown as Record<string, unknown>;
  } catch {
    return undefined;
  }
  const opts = registry ? { registry } : undefined;
  const copy: Record<string, unknown> = { ...message };
  let skipped = false;
  for (const f of desc.fields) {
    if (f.fieldKind !== "list" || f.listKind !== "message" || f.oneof) continue;
    const list = message[f.localName] as Message[];
    const kept: Message[] = [];
    for (let i = 0; i < list.length; i++) {
      try {
        toJson(f.message, list[i]!, opts);
        kept.push(list[i]!);
      } catch (e) {
        skipped = true;
        const why = e instanceof Error ? e.message : String(e);
        onSkip(
          new Error(`${desc.typeName}.${f.name}[${i}] cannot be written as JSON and was left out of the answer: ${why}`, { cause: e }),
        );
      }
    }
    copy[f.localName] = kept;
  }
  if (!skipped) return undefined;
  try {
    return writeMessage(desc, codec, copy as unknown as Message, emitRequired, registry);
  } catch {
    return undefined;
  }
}
