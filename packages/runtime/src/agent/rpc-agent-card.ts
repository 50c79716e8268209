/**
 * GetExtendedAgentCard: the extended card, for authenticated callers only,
 * when the public card declares one. (The public card itself is served by
 * server/agent-card.ts, not by the engine.)
 */
import { A2AErrors } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import type { HandlerContext } from "../route-binding.js";
import type { AgentCardLike, AgentOptions } from "./options.js";
import type { AgentTypes } from "./types.js";

// biome-ignore lint/suspicious/noExplicitAny: requests are the user's generated messages; the engine reads A2A's fields of them
type AnyRequest = any;

/** What GetExtendedAgentCard needs of the engine. */
export interface AgentCardRpcDeps<T extends AgentTypes, Card extends AgentCardLike> {
  readonly options: Pick<AgentOptions<T, Card>, "authenticated" | "extendedCard">;
  /** The public card as it is now (read per request). */
  readonly card: () => Card;
  /** Who the request acts for (the default of `authenticated`: not ""). */
  readonly ownerOf: (ctx: HandlerContext) => string;
}

export function agentCardRpcs<T extends AgentTypes, Card extends AgentCardLike>({ options, card, ownerOf }: AgentCardRpcDeps<T, Card>) {
  return {
    async getExtendedAgentCard(_req: AnyRequest, ctx: HandlerContext) {
      if (!card().capabilities?.extendedAgentCard) {
        throw A2AErrors.unsupportedOperation("this agent declares no extended agent card");
      }
      const authenticated = options.authenticated ? options.authenticated(ctx as T["context"]) : ownerOf(ctx) !== "";
      if (!authenticated) throw new RpcError(Code.UNAUTHENTICATED, "the extended agent card is for authenticated callers only");
      const extended = options.extendedCard;
      if (extended === undefined) throw A2AErrors.extendedAgentCardNotConfigured();
      return typeof extended === "function" ? extended(ctx as T["context"]) : extended;
    },
  };
}
