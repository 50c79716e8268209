/**
 * The streams that follow tasks in this process (SendStreamingMessage,
 * SubscribeToTask): subscribing, handing each a task's stored events, and how
 * a stream fills a gap from the store. On a shared store it also owns how far
 * each followed task's events have been handed here (`handed`): where the
 * catch-up from the store starts when another instance's event is heard of.
 */
import type { Message as ProtoMessage } from "@bufbuild/protobuf";
import { shareEncoding } from "../shared-encoding.js";
import { EventHub, type Subscriber } from "./event-hub.js";
import type { StoredEvent, TaskKey } from "./store.js";
import type { Follow } from "./task-stream.js";

export class Subscribers {
  private readonly hub: EventHub;
  /**
   * For each topic with subscribers: the highest sequence number handed to
   * them (local or from another instance), where catching up from the store
   * starts (kept on a shared store only: nothing else catches up).
   */
  private readonly handed = new Map<string, number>();

  /**
   * `limit`: events a subscriber may fall behind before it is cut off;
   * `shared`: whether other instances commit too (then `handed` is kept);
   * `events`: a task's stored events after a sequence number (gaps are filled from it).
   */
  constructor(
    limit: number,
    private readonly shared: boolean,
    private readonly events: (key: TaskKey, afterSeq: number) => Promise<readonly StoredEvent[]>,
  ) {
    this.hub = new EventHub(limit, (topic) => this.handed.delete(topic));
  }

  /** Whether the task has subscribers here. */
  has(topic: string): boolean {
    return this.hub.has(topic);
  }

  /** How many subscriptions are open here (read when metrics are collected, not on a hot path). */
  count(): number {
    let n = 0;
    for (const topic of this.hub.topicsWithSubscribers()) n += this.hub.count(topic);
    return n;
  }

  /** The topics that have subscribers. */
  topics(): IterableIterator<string> {
    return this.hub.topicsWithSubscribers();
  }

  subscribe(topic: string): Subscriber {
    return this.hub.subscribe(topic);
  }

  /** Hands a stored event to the task's subscribers (none: nothing to do). */
  publish(topic: string, seq: number, event: ProtoMessage): void {
    const followers = this.hub.count(topic);
    if (followers === 0) return;
    if (this.shared) this.handed.set(topic, Math.max(this.handed.get(topic) ?? 0, seq));
    // A stored event is never changed: several streams answering it may share its wire text.
    if (followers > 1) shareEncoding(event);
    this.hub.publish(topic, { seq, event });
  }

  /** The highest sequence number handed to the task's subscribers, when known (a shared store). */
  handedUpTo(topic: string): number | undefined {
    return this.handed.get(topic);
  }

  /**
   * How a stream follows a task after `afterSeq` until an event ends it: from
   * the subscriber, each event once and in order (see TaskStream), a gap
   * filled from the store.
   */
  follow(sub: Subscriber, key: TaskKey, topic: string, afterSeq: number): Follow {
    if (this.shared && !this.handed.has(topic)) this.handed.set(topic, afterSeq);
    return { sub, afterSeq, events: (after) => this.events(key, after) };
  }

  /** Ends every subscription (shutdown). */
  closeAll(): void {
    this.hub.closeAll();
  }
}
