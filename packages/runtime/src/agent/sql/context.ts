/** What every part of one SQL store shares (store.ts makes it). */
import type { StoreSchemas } from "../store.js";
import type { SqlClient } from "./client.js";

export interface SqlStoreContext {
  readonly db: SqlClient;
  /** This instance's name in leases, outbox claims and notifications. */
  readonly instance: string;
  /** How long a task's lease lasts unless its instance renews it. */
  readonly leaseMs: number;
  /** Where a row that cannot be read is reported. */
  readonly onError: (error: unknown) => void;
  /** The agent's messages; throws until the engine bound the store. */
  readonly schemas: () => StoreSchemas;
}
