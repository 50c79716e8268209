/**
 * `a2a-http/push`: push-notification delivery for agents on Node, the
 * engine's `pushSender` option (`pushSender: createPushSender()`). Apart from
 * `a2a-http/agent` because its SSRF guard needs node:http's DNS lookup to pin
 * the address it checked; the engine itself runs on any host.
 */
export { checkWebhookUrl, createPushSender } from "./agent/push.js";
export type { PushOptions, WebhookAllow, PushSender, PushTarget, PushAttempt, PushAuthentication } from "./agent/push.js";
