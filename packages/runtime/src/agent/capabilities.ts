/**
 * Capability checks: what the card lets a request do, asked per request
 * (the card may be a function, and change). Streaming, push notifications
 * (and the sender that delivers them), the extensions the card requires, and
 * the input modes it accepts. Each refuses with A2A's error for it.
 */
import type { HandlerContext } from "../route-binding.js";
import { A2AErrors, mediaTypeOf } from "../a2a.js";
import type { AgentCardLike } from "./options.js";
import type { PushSender } from "./push-sender.js";
import type { MessageLike } from "./types.js";

/** UnsupportedOperation unless the card says streaming: true. */
export function requireStreaming(card: AgentCardLike): void {
  if (!card.capabilities?.streaming) throw A2AErrors.unsupportedOperation("this agent does not stream (its card says streaming: false)");
}

/** The push sender, when the card offers push and there is one; else PushNotificationNotSupported. */
export function requirePush(card: AgentCardLike, pushSender: PushSender | undefined): PushSender {
  if (!card.capabilities?.pushNotifications) throw A2AErrors.pushNotificationNotSupported();
  // A card function that says true without a sender: the card is wrong, and no webhook is called.
  if (!pushSender) throw A2AErrors.pushNotificationNotSupported("push notifications are not available: this agent has no push sender");
  return pushSender;
}

/** ExtensionSupportRequired for the first extension the card requires that the request did not ask for. */
export function checkExtensions(ctx: HandlerContext, card: AgentCardLike): void {
  for (const ext of card.capabilities?.extensions ?? []) {
    if (ext.required && !ctx.extensions.includes(ext.uri)) throw A2AErrors.extensionSupportRequired(ext.uri);
  }
}

/** ContentTypeNotSupported for a part whose media type neither the card's default input modes nor a skill's accept. */
export function checkInputModes(message: MessageLike, card: AgentCardLike): void {
  // Per request (the card may have changed since), and only for a part that names its media type.
  let accepted: Set<string> | undefined;
  for (const p of message.parts) {
    if (p.mediaType === "") continue;
    if (accepted === undefined) {
      accepted = new Set(card.defaultInputModes.map(mediaTypeOf));
      for (const s of card.skills) for (const m of s.inputModes) accepted.add(mediaTypeOf(m));
    }
    if (accepted.size === 0 || accepted.has("*/*")) return;
    const t = mediaTypeOf(p.mediaType);
    if (!accepted.has(t) && !accepted.has(t.replace(/\/.*/, "/*"))) throw A2AErrors.contentTypeNotSupported(p.mediaType);
  }
}
