/**
 * Page tokens: the opaque cursors ListTasks and ListTaskPushNotificationConfigs
 * answer and take back. Stores see page positions, never wire tokens; this
 * module alone turns one into the other (base64url of JSON with a version tag),
 * and refuses a token it did not make as InvalidParams.
 */
import { A2AErrors } from "../a2a.js";
import type { PagePosition } from "./store.js";

/** ListTasks's nextPageToken for the page that ended at `p`. */
export function encodePageToken(p: PagePosition): string {
  return base64url(JSON.stringify(["t1", p.updatedAt, p.id]));
}

/** Where the page before ListTasks's `pageToken` ended; InvalidParams for a token not ours. */
export function decodePageToken(token: string): PagePosition {
  try {
    const [tag, updatedAt, id] = JSON.parse(fromBase64url(token)) as unknown[];
    if (tag === "t1" && typeof updatedAt === "number" && Number.isFinite(updatedAt) && typeof id === "string") return { updatedAt, id };
  } catch {
    // Not ours: answered below.
  }
  throw A2AErrors.invalidParams(`invalid pageToken ${JSON.stringify(token.slice(0, 100))}`);
}

/** ListTaskPushNotificationConfigs's nextPageToken after the config `id`. */
export function encodeConfigToken(id: string): string {
  return base64url(JSON.stringify(["c1", id]));
}

/** The id of the last config before ListTaskPushNotificationConfigs's `pageToken`; InvalidParams for a token not ours. */
export function decodeConfigToken(token: string): string {
  try {
    const [tag, id] = JSON.parse(fromBase64url(token)) as unknown[];
    if (tag === "c1" && typeof id === "string") return id;
  } catch {
    // Not ours: answered below.
  }
  throw A2AErrors.invalidParams(`invalid pageToken ${JSON.stringify(token.slice(0, 100))}`);
}

function base64url(text: string): string {
  let binary = "";
  for (const b of new TextEncoder().encode(text)) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

function fromBase64url(token: string): string {
  const binary = atob(token.replace(/-/g, "+").replace(/_/g, "/"));
  return new TextDecoder("utf-8", { fatal: true }).decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}
