// When quiet SSE streams get their keep-alive comments: one interval per
// period for all the streams of the process, rather than a timer each (with
// ten thousand open streams, ten thousand timers re-armed, and their memory).

/** Whether this is Cloudflare Workers, which names itself in `navigator.userAgent` (no binding can change it). */
export const ON_WORKERS = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === "Cloudflare-Workers";

/**
 * Ticks of the clock per period. A stream that has been waiting for its
 * handler for this many ticks gets a comment: between 3/4 of the period and
 * the period after its last chunk, never later (the idle timeouts it is
 * under), and every period while it stays quiet.
 */
export const TICKS_PER_PERIOD = 4;

/** A stream the clock ticks. */
export interface Ticked {
  tick(): void;
}

/** The streams that keep alive at one period, and the one interval that ticks them while there are some. */
export class KeepAliveClock {
  private readonly streams = new Set<Ticked>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly periodMs: number) {}

  add(stream: Ticked): void {
    this.streams.add(stream);
    this.timer ??= setInterval(this.tick, Math.max(1, this.periodMs / TICKS_PER_PERIOD));
  }

  delete(stream: Ticked): void {
    if (!this.streams.delete(stream) || this.streams.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly tick = () => {
    for (const s of this.streams) s.tick();
  };
}

const clocks = new Map<number, KeepAliveClock>();

/**
 * The clock of a period: shared by the whole process, except on Workers,
 * where a timer started by one request must not write to another request's
 * stream (and ends with its request): there each stream gets its own.
 */
export function keepAliveClock(periodMs: number): KeepAliveClock {
  if (ON_WORKERS) return new KeepAliveClock(periodMs);
  let clock = clocks.get(periodMs);
  if (clock === undefined) clocks.set(periodMs, (clock = new KeepAliveClock(periodMs)));
  return clock;
}
