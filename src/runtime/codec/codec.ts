// STUB: signatures are final; bodies are being filled in.
import { create, fromJson, toJson, type DescMessage, type Message, type Registry } from "@bufbuild/protobuf";
import type { RouteBinding } from "../route-binding.js";
import { Code, RpcError } from "../errors.js";

export interface DecodeRequestInput {
  /** Decoded path variable values by dotted field path (from the router). */
  readonly variables: Readonly<Record<string, string>>;
  /** The raw query string, without the leading "?" ("" when there is none). */
  readonly query: string;
  /** The parsed JSON body; `undefined` when there was none. */
  readonly body: unknown;
}

export interface DecodeOptions {
  /** Also split a repeated field's query value on "," (A2A profile). */
  readonly commaLists?: boolean;
  /** A registry for google.protobuf.Any in bodies. */
  readonly registry?: Registry;
}

export interface EncodeOptions {
  readonly registry?: Registry;
}

export function decodeRequest(route: RouteBinding, input: DecodeRequestInput, _options?: DecodeOptions): Message {
  const body = route.body === "*" && input.body != null ? input.body : {};
  return fromJson(route.input, body as never, { ignoreUnknownFields: true });
}

export function parseJsonBody(text: string): unknown {
  if (text === "") return undefined;
  try {
    return JSON.parse(text);
  } catch (e) {
    throw new RpcError(Code.INVALID_ARGUMENT, `invalid JSON body: ${(e as Error).message}`);
  }
}

export function checkRequired(_schema: DescMessage, _message: Message): void {}

export function encodeResponse(route: RouteBinding, message: Message, _options?: EncodeOptions): unknown {
  return toJson(route.output, message);
}

void create;
