/**
 * `a2a-http/agent`: the A2A task engine. Agents call the generated
 * `create<Service>Agent`, which binds {@link createAgentHandlers} to the
 * user's own a2a.proto; the rest is for custom stores and tests. Imports
 * nothing from `node:`, so it runs on Workers and in browsers too.
 */
export { createAgentHandlers } from "./engine.js";
export { defaultOwner } from "./options.js";
export type { AgentOptions, AgentControl, AgentCardLike } from "./options.js";
export { createMemoryStore } from "./memory-store.js";
export { storeReadiness, DEFAULT_PING_TIMEOUT_MS } from "./readiness.js";
export type { ReadinessOptions } from "./readiness.js";
export type { MemoryStoreOptions } from "./memory-store.js";
export { StaleVersionError, StoreFullError, StoreUnavailableError } from "./store.js";
export type {
  AgentStore,
  TaskStore,
  PushConfigStore,
  PushConfigLike,
  TaskKey,
  StoredTask,
  StoredEvent,
  TaskQuery,
  TaskPage,
  PagePosition,
} from "./store.js";
// Push delivery's interface only: the Node sender and its SSRF guard are a2a-http/push.
export type { PushSender, PushTarget, PushAttempt, PushAuthentication } from "./push-sender.js";
export { TaskState, isTerminal, isInterrupted } from "./types.js";
export type {
  AgentExecutor,
  AgentTypes,
  ExecutorInput,
  TaskUpdater,
  Content,
  MessageLike,
  TaskLike,
  PartLike,
  ArtifactLike,
  TaskStatusLike,
} from "./types.js";
