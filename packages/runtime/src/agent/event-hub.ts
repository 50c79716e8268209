/**
 * Fan-out of a task's events to its subscribers in this process. Publishing
 * never waits for a reader: each subscriber has its own queue, and one that
 * falls more than `limit` events behind is cut off with an error instead of
 * holding memory without bound.
 */
import { Code, RpcError } from "../errors.js";
import type { StoredEvent } from "./store.js";

export class Subscriber {
  private readonly queue: StoredEvent[] = [];
  private wake: (() => void) | undefined;
  private error: RpcError | undefined;
  private closed = false;
  private signal: AbortSignal | undefined;
  /** The signal's listener, made when a signal is first watched (a writer that closes the stream itself gives none). */
  private onAbort: (() => void) | undefined;

  constructor(
    private readonly limit: number,
    private readonly detach: (s: Subscriber) => void,
  ) {}

  /** Called by the hub. */
  push(event: StoredEvent): void {
    if (this.closed) return;
    if (this.queue.length >= this.limit) {
      this.error = new RpcError(Code.RESOURCE_EXHAUSTED, `the subscriber fell more than ${this.limit} events behind and was cut off`);
      this.close();
      return;
    }
    this.queue.push(event);
    this.wake?.();
  }

  /** The next event if one is queued, without waiting: a reader that keeps up pays no promise per event (else see listen()). */
  take(): StoredEvent | undefined {
    return this.queue.shift();
  }

  /**
   * Has `wake` called when an event is queued or the subscription is closed
   * or `signal`, if given, fires, until `listen(undefined, undefined)`: the
   * reader then asks readyNow(). No promise per wait: a stream waits here
   * most of its life, with the same callback every time, and what a wait
   * allocated would be kept (and promoted by the GC) until the next event.
   */
  listen(signal: AbortSignal | undefined, wake: (() => void) | undefined): void {
    // One abort listener per subscription, not one per event waited for.
    if (signal !== undefined && this.signal !== signal) {
      const onAbort = (this.onAbort ??= () => this.wake?.());
      this.signal?.removeEventListener("abort", onAbort);
      this.signal = signal;
      signal.addEventListener("abort", onAbort, { once: true });
    }
    this.wake = wake;
  }

  /**
   * Whether an event is queued (true: take() has it), the subscription is
   * over (false: closed, or `signal` fired) or neither yet (undefined). Throws
   * the error that cut a slow subscriber off, once the events queued before
   * it have been taken.
   */
  readyNow(signal: AbortSignal | undefined): boolean | undefined {
    if (this.queue.length > 0) return true;
    if (this.error) throw this.error;
    if (this.closed || signal?.aborted) return false;
    return undefined;
  }

  /** Stops the subscription; what is queued is dropped. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    if (this.onAbort !== undefined) this.signal?.removeEventListener("abort", this.onAbort);
    if (!this.error) this.queue.length = 0;
    this.detach(this);
    this.wake?.();
  }
}

export class EventHub {
  private readonly topics = new Map<string, Set<Subscriber>>();

  /** `onEmpty` hears that a topic's last subscriber left (to drop what is kept per topic). */
  constructor(
    private readonly limit: number,
    private readonly onEmpty: (topic: string) => void = () => {},
  ) {}

  /** Whether the topic has subscribers. */
  has(topic: string): boolean {
    return this.topics.has(topic);
  }

  /** How many subscribers the topic has. */
  count(topic: string): number {
    return this.topics.get(topic)?.size ?? 0;
  }

  /** The topics that have subscribers. */
  topicsWithSubscribers(): IterableIterator<string> {
    return this.topics.keys();
  }

  subscribe(topic: string): Subscriber {
    let set = this.topics.get(topic);
    if (!set) this.topics.set(topic, (set = new Set()));
    const subscriber = new Subscriber(this.limit, (s) => {
      set.delete(s);
      if (set.size === 0 && this.topics.get(topic) === set) {
        this.topics.delete(topic);
        this.onEmpty(topic);
      }
    });
    set.add(subscriber);
    return subscriber;
  }

  publish(topic: string, event: StoredEvent): void {
    const set = this.topics.get(topic);
    if (!set) return;
    for (const s of set) s.push(event);
  }

  /** Ends every subscription (shutdown). */
  closeAll(): void {
    for (const set of [...this.topics.values()]) for (const s of [...set]) s.close();
  }
}
