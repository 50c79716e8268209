/**
 * What a test needs to call an engine's handlers in this process, without a
 * server: a handler context as a binding makes one, and a plain card.
 */
import { create } from "@bufbuild/protobuf";
import { AgentCardSchema } from "../../../gen/a2a_pb.js";

/** The context a binding hands a handler: no tenant, no headers, a signal that never fires. */
export function handlerContext(rpc = "sendMessage") {
  return {
    rpc,
    tenant: "",
    headers: new Headers(),
    signal: new AbortController().signal,
    responseHeaders: new Headers(),
    extensions: [],
  };
}

/** A card with streaming and text input, nothing else. */
export const plainCard = create(AgentCardSchema, { name: "t", capabilities: { streaming: true }, defaultInputModes: ["text/plain"] });
