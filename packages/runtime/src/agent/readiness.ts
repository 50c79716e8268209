/**
 * An agent's readiness, what its `ready()` answers and `/readyz` serves
 * (server/health.ts): ready while its store answers a ping within a short
 * bound, and never again once its `close()` has begun, so that a load
 * balancer drains it while it finishes. Probes that arrive while a ping is
 * on its way share it: a probe every second from many balancers makes one
 * query at a time.
 */
import type { AgentStore } from "./store.js";

/** Options of {@link storeReadiness}. */
export interface ReadinessOptions {
  /** How long a store's ping may take before the agent counts as not ready. Default 1 000 ms. */
  readonly timeoutMs?: number;
}

/** The default bound on a store's ping. */
export const DEFAULT_PING_TIMEOUT_MS = 1_000;

/**
 * The readiness of an agent on `store`, closed once `closing()` says so:
 * resolves true when the store's ping (none: always) resolved within the
 * bound, false when it rejected, took longer, or the agent is closing.
 * Never rejects.
 *
 *     ready: storeReadiness(store, () => closed)
 */
export function storeReadiness(store: AgentStore, closing: () => boolean, options: ReadinessOptions = {}): () => Promise<boolean> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_PING_TIMEOUT_MS;
  let pending: Promise<boolean> | undefined;
  const probe = async (): Promise<boolean> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const late = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), timeoutMs);
      });
      const answered = store.ping!().then(() => true);
      return (await Promise.race([answered, late])) && !closing();
    } catch {
      return false;
    } finally {
      clearTimeout(timer);
    }
  };
  return () => {
    if (closing()) return Promise.resolve(false);
    if (store.ping === undefined) return Promise.resolve(true);
    pending ??= probe().finally(() => (pending = undefined));
    return pending;
  };
}
