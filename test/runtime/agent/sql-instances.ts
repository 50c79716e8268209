/**
 * Engines as instances of one agent on one SQL database (scale-out.test.ts,
 * otel-shared.test.ts): each its own client (on PostgreSQL its own pool), as
 * separate processes would have, with push deliveries allowed to loopback
 * webhooks; `agents` lists every one started, for the suite's afterAll.
 */
import type { AgentStore } from "a2a-http/agent";
import { createSqlStore } from "../../../packages/runtime/src/agent/sql/store.js";
import { startAgent, type StartOptions, type TestAgent } from "./engine-harness.js";
import type { TestDatabase } from "./sql-databases.js";

/** Push to the test's loopback webhooks, retried quickly. */
export const LOCAL_PUSH = {
  allow: { http: true, addresses: ["127.0.0.1/32"] },
  baseDelayMs: 20,
  maxDelayMs: 100,
  timeoutMs: 2_000,
} as const;

export function sqlInstances(database: () => TestDatabase) {
  const agents: TestAgent[] = [];
  async function storeOn(instance: string, leaseMs?: number): Promise<AgentStore> {
    return createSqlStore(await database().connect(), { migrate: true, instance, ...(leaseMs ? { leaseMs } : {}) });
  }
  async function agentOn(instance: string, options: StartOptions & { leaseMs?: number } = {}): Promise<TestAgent> {
    const agent = await startAgent({ push: LOCAL_PUSH, ...options, store: options.store ?? (await storeOn(instance, options.leaseMs)) });
    agents.push(agent);
    return agent;
  }
  return { agents, storeOn, agentOn };
}
