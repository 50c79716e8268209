/**
 * Waiting before trying again, for the client's retries (client/retry.ts)
 * and push delivery (agent/push.ts): what an answer's `Retry-After` asks for,
 * and a wait that ends early when its signal aborts.
 */

/** `Retry-After` in ms (RFC 9110 §10.2.3: delay-seconds or an HTTP-date); undefined when absent or unreadable. */
export function retryAfterMs(header: string | null | undefined): number | undefined {
  if (!header) return undefined;
  const text = header.trim();
  if (/^\d+$/.test(text)) return Number(text) * 1000;
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - Date.now());
}

/** Waits `ms`, or less when `signal` aborts first (the caller then tells why it stopped). */
export function pause(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve();
    const done = () => {
      clearTimeout(timer);
      signal?.removeEventListener("abort", done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
