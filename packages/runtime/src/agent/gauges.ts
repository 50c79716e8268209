/**
 * An engine's gauges (telemetry.ts's EngineGauges): its open subscribers,
 * and the depth of its shared store's outbox, counted by one store query per
 * metric collection and never two at once: while a count is still running
 * (a slow database), a collection reports nothing for it rather than queue
 * another query behind it.
 */
import type { EngineGauges } from "../telemetry.js";
import type { PushOutbox } from "./store.js";
import type { Subscribers } from "./subscribers.js";

export function engineGauges(subscribers: Subscribers, outbox: PushOutbox | undefined): EngineGauges {
  let counting = false;
  return {
    subscribers: () => subscribers.count(),
    outboxDepth() {
      if (outbox?.depth === undefined || counting) return undefined;
      counting = true;
      return outbox
        .depth()
        .catch(() => undefined) // The store away: the engine reports that itself; the metric misses one point.
        .finally(() => {
          counting = false;
        });
    },
  };
}
