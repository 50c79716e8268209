import { A2A_DEFAULT_VERSIONS, isA2AVersionSupported } from "../a2a.js";
import { Code } from "../errors.js";
import { clientError } from "./client-error.js";

/** An AgentInterface of an agent card, as protobuf-es holds it or as its JSON reads. */
export interface AgentInterfaceLike {
  readonly url: string;
  readonly protocolBinding: string;
  readonly tenant?: string | undefined;
  readonly protocolVersion?: string | undefined;
}

/** The bindings this client speaks, by the card's `protocolBinding` names. */
export type ClientBinding = "JSONRPC" | "HTTP+JSON";

/** What {@link pickTransport} found: spread it into the generated client's options. */
export interface PickedTransport {
  readonly transport: "jsonrpc" | "http+json";
  readonly baseUrl: string;
  readonly tenant: string;
  /** The interface that was picked. */
  readonly chosen: AgentInterfaceLike;
}

const transportOf: Record<ClientBinding, PickedTransport["transport"]> = { JSONRPC: "jsonrpc", "HTTP+JSON": "http+json" };

/**
 * Picks the interface to call from an agent card's `supportedInterfaces`:
 * the first binding in `prefer` (the client's order of preference) that the
 * card offers, taking the card's first interface of that binding; without
 * `prefer`, the card's first interface this client speaks (the agent's order).
 * Interfaces whose `protocolVersion` is set and is not one of `versions`
 * (Major.Minor, default {@link A2A_DEFAULT_VERSIONS}) are passed over. Throws RpcError
 * FAILED_PRECONDITION naming what the card offers when nothing fits.
 *
 *     const client = createA2AServiceClient({ ...pickTransport(card, ["JSONRPC", "HTTP+JSON"]), fetch });
 */
export function pickTransport(
  card: { readonly supportedInterfaces?: readonly AgentInterfaceLike[] | undefined },
  prefer?: readonly ClientBinding[],
  versions: readonly string[] = A2A_DEFAULT_VERSIONS,
): PickedTransport {
  const usable = (card.supportedInterfaces ?? []).filter(
    (i) => typeof i.url === "string" && i.url !== "" && (!i.protocolVersion || isA2AVersionSupported(i.protocolVersion, versions)),
  );
  const bindingOf = (i: AgentInterfaceLike): ClientBinding | undefined => {
    const b = String(i.protocolBinding ?? "").toUpperCase();
    return b === "JSONRPC" || b === "HTTP+JSON" ? b : undefined;
  };
  let chosen: AgentInterfaceLike | undefined;
  if (prefer === undefined) {
    chosen = usable.find((i) => bindingOf(i) !== undefined);
  } else {
    for (const want of prefer) {
      chosen = usable.find((i) => bindingOf(i) === want);
      if (chosen) break;
    }
  }
  if (chosen === undefined) {
    const offered = (card.supportedInterfaces ?? []).map((i) =>
      `${i.protocolBinding} ${i.protocolVersion ?? ""} at ${i.url}`.replace("  ", " "),
    );
    throw clientError(
      Code.FAILED_PRECONDITION,
      `no interface of the agent card fits: wanted ${(prefer ?? ["JSONRPC", "HTTP+JSON"]).join(" or ")} for A2A ${versions.join(", ")}; the card offers ${offered.length > 0 ? offered.join("; ") : "none"}`,
    );
  }
  return { transport: transportOf[bindingOf(chosen)!], baseUrl: chosen.url, tenant: chosen.tenant ?? "", chosen };
}
