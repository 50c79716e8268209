/**
 * Sends the push deliveries of a shared store's outbox. The outbox rows are
 * written in the same transaction as their events, so a delivery survives a
 * restart of the instance that made it and is sent by whichever instance is
 * alive: at least once (a delivery is removed only after its webhook
 * answered, or after it was given up), in order per config (the store hands
 * out only the oldest delivery of each config, and not again while it is
 * claimed).
 */
import { givenUp, pushTargetOf, type PushSender } from "./push-sender.js";
import { StoreUnavailableError, type OutboxItem, type PushOutbox } from "./store.js";

/** A mark the database did not take is tried again after 100 ms, doubled up to 1.6 s (3.1 s in all, within a claim). */
const MARK_FIRST_WAIT_MS = 100;
const MARK_LAST_WAIT_MS = 1_600;

export interface OutboxWorkerOptions {
  /**
   * A delivery's body as JSON text (the engine's: the event, or the task for
   * a v0.3 config); undefined when there is nothing left to send (the task is gone).
   */
  readonly body: (item: OutboxItem) => string | undefined | Promise<string | undefined>;
  /** How often to look for due deliveries when nothing woke the worker (retries come due this way). Default 1 000 ms. */
  readonly pollMs?: number;
  /** Deliveries claimed at once. Default 32. */
  readonly batch?: number;
  /** Failures of the store itself (the database is away). */
  readonly onError: (error: unknown) => void;
}

export interface OutboxWorker {
  /** Looks for due deliveries soon (an event was committed). */
  kick(): void;
  /** Stops claiming; waits for the attempts in flight. */
  close(): Promise<void>;
}

export function startOutboxWorker(outbox: PushOutbox, sender: PushSender, options: OutboxWorkerOptions): OutboxWorker {
  const pollMs = options.pollMs ?? 1_000;
  const batch = options.batch ?? 32;
  let closed = false;
  let running: Promise<void> | undefined;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  /** A short timer is set already: later kicks join it instead of pushing it back. */
  let kicked = false;

  async function deliver(item: OutboxItem): Promise<void> {
    const target = pushTargetOf(item.config);
    const body = await options.body(item);
    if (body === undefined) return outbox.done(item.id);
    const outcome = await sender.attempt(target, body, item.trace);
    if (closed && !outcome.ok) return; // the claim lapses; another instance (or the next start) sends it
    const attempts = item.attempts + 1;
    if (outcome.ok) return marked(() => outbox.done(item.id));
    if (!outcome.retry || attempts >= sender.maxAttempts) {
      sender.report(givenUp(target, attempts, outcome.reason), target);
      return marked(() => outbox.done(item.id));
    }
    return marked(() => outbox.retry(item.id, attempts, Date.now() + sender.retryDelayMs(attempts, outcome)));
  }

  /**
   * Marks a delivery sent or due later, tried again for a few seconds while
   * the database is away for a moment: a mark lost leaves the delivery
   * claimed until its claim lapses, then sent again (a duplicate, and its
   * config's later deliveries held that long).
   */
  async function marked(mark: () => Promise<void>): Promise<void> {
    for (let wait = MARK_FIRST_WAIT_MS; ; wait *= 2) {
      try {
        return await mark();
      } catch (e) {
        if (!(e instanceof StoreUnavailableError) || wait > MARK_LAST_WAIT_MS || closed) throw e;
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /** Claims and sends until nothing is due. */
  async function drain(): Promise<void> {
    do {
      again = false;
      let items: OutboxItem[];
      try {
        // A claim outlasts the longest attempt, so no other instance sends the same delivery meanwhile.
        items = await outbox.claim(batch, sender.timeoutMs + 5_000);
      } catch (e) {
        options.onError(e);
        return;
      }
      // Each item is the head of its own config: they may all go at once.
      const results = await Promise.allSettled(items.map(deliver));
      for (const r of results) if (r.status === "rejected") options.onError(r.reason);
      // A delivery done makes its config's next one due now: claim again at
      // once rather than a poll later (else each event of a config waited
      // pollMs behind the one before). A round that claimed nothing ends it.
      if (items.length > 0) again = true;
    } while (again && !closed);
  }

  function run(): void {
    if (closed) return;
    if (running) {
      again = true;
      return;
    }
    clearTimeout(timer);
    kicked = false;
    running = drain().finally(() => {
      running = undefined;
      if (closed) return;
      if (again) run();
      else schedule(pollMs);
    });
  }

  function schedule(ms: number): void {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
    timer.unref?.();
  }

  schedule(0);
  return {
    kick() {
      // Many commits in a burst make one claim, not one each.
      if (running) again = true;
      else if (!kicked) {
        kicked = true;
        schedule(10);
      }
    },
    async close() {
      closed = true;
      clearTimeout(timer);
      await running;
    },
  };
}
