// A message's ProtoJSON through its generated codec when there is one, with
// protobuf-es for the rest: what the codec leaves (`undefined`) is
// protobuf-es's to answer, errors included.
import { create, fromJson, toJson, type DescMessage, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import type { MessageJsonCodec } from "../json/index.js";
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
  const written = codec?.write(message, emitRequired);
  if (written !== undefined) return written;
  const json = toJson(desc, message, registry ? { registry } : undefined);
  if (emitRequired) fillRequiredDefaults(desc, message, json);
  return json;
}

/**
 * `writeMessage` of `create(desc, value)`: what a handler returned, a
 * message or its init shape. The codec is tried on the value itself first,
 * which spares create() wherever the codec can write it (see messageOf in
 * a2a-http/json).
 */
export function writeResult(
  desc: DescMessage,
  codec: MessageJsonCodec | undefined,
  value: unknown,
  emitRequired = false,
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
