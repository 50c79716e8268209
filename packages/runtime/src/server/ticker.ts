// One interval for many things checked at the same period (the SSE streams'
// keep-alives, the connections' stall guards): with ten thousand open
// streams, one timer rather than ten thousand re-armed, and their memory.

/** Whether this is Cloudflare Workers, which names itself in `navigator.userAgent` (no binding can change it). */
export const ON_WORKERS = (globalThis as { navigator?: { userAgent?: string } }).navigator?.userAgent === "Cloudflare-Workers";

/** What a ticker calls every period. */
export interface Ticked {
  tick(): void;
}

/** The things checked every `everyMs`, and the one interval that ticks them while there are some (unref'd: it keeps no process alive). */
export class Ticker {
  private readonly ticked = new Set<Ticked>();
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(private readonly everyMs: number) {}

  add(t: Ticked): void {
    this.ticked.add(t);
    if (this.timer !== undefined) return;
    this.timer = setInterval(this.tick, Math.max(1, this.everyMs));
    (this.timer as { unref?: () => void }).unref?.();
  }

  delete(t: Ticked): void {
    if (!this.ticked.delete(t) || this.ticked.size > 0 || this.timer === undefined) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private readonly tick = () => {
    for (const t of this.ticked) t.tick();
  };
}

const tickers = new Map<number, Ticker>();

/**
 * The ticker of a period: shared by the whole process, except on Workers,
 * where a timer started by one request must not write to another request's
 * stream (and ends with its request): there each caller gets its own.
 */
export function sharedTicker(everyMs: number): Ticker {
  if (ON_WORKERS) return new Ticker(everyMs);
  let ticker = tickers.get(everyMs);
  if (ticker === undefined) tickers.set(everyMs, (ticker = new Ticker(everyMs)));
  return ticker;
}
