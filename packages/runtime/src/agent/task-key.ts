/**
 * A task's key as one string, its topic: what the per-task lock, the runs,
 * the subscriber fan-out and the catch-up of other instances' events are
 * keyed by. A topic gives its key back whatever characters the owner has.
 */
import type { TaskKey } from "./store.js";

/**
 * Tenant, owner and id joined by NULs when the first two have none (the
 * usual case, and cheap), else JSON (which has no raw NUL, so the two forms
 * never meet).
 */
export function topicOf(k: TaskKey): string {
  return k.tenant.includes("\0") || k.owner.includes("\0")
    ? JSON.stringify([k.tenant, k.owner, k.id])
    : k.tenant + "\0" + k.owner + "\0" + k.id;
}

/** The key a topic was made of. */
export function keyOfTopic(topic: string): TaskKey {
  const a = topic.indexOf("\0");
  if (a < 0) {
    const [tenant, owner, id] = JSON.parse(topic) as [string, string, string];
    return { tenant, owner, id };
  }
  const b = topic.indexOf("\0", a + 1);
  return { tenant: topic.slice(0, a), owner: topic.slice(a + 1, b), id: topic.slice(b + 1) };
}
