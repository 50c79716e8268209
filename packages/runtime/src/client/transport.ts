import { A2A_DEFAULT_VERSIONS, isA2AVersionSupported } from "../a2a.js";
import { A2A_V03 } from "../a2a-v03/common.js";
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
  /** Set when the interface speaks A2A v0.3 only: the client then speaks v0.3 (ClientOptions.a2aVersion). */
  readonly a2aVersion?: string;
}

/** The fields of an agent card the pick reads: v1.0's interfaces, and a v0.3 card's. */
export interface AgentCardInterfaces {
  readonly supportedInterfaces?: readonly AgentInterfaceLike[] | undefined;
  /** v0.3: the card's version, and its main interface and the others. */
  readonly protocolVersion?: string | undefined;
  readonly url?: string | undefined;
  readonly preferredTransport?: string | undefined;
  readonly additionalInterfaces?: readonly { readonly url: string; readonly transport: string }[] | undefined;
}

const transportOf: Record<ClientBinding, PickedTransport["transport"]> = { JSONRPC: "jsonrpc", "HTTP+JSON": "http+json" };

/** The default versions: this client's own, then v0.3 for agents that speak only that. */
const DEFAULT_PICK_VERSIONS: readonly string[] = [...A2A_DEFAULT_VERSIONS, A2A_V03];

/** A card's interfaces: `supportedInterfaces`, then a v0.3 card's `url` (with `preferredTransport`) and `additionalInterfaces`. */
function interfacesOf(card: AgentCardInterfaces): AgentInterfaceLike[] {
  const out = [...(card.supportedInterfaces ?? [])];
  const version = card.protocolVersion;
  if (typeof version !== "string" || !/^\s*v?0\./.test(version)) return out;
  if (typeof card.url === "string")
    out.push({ url: card.url, protocolBinding: card.preferredTransport ?? "JSONRPC", protocolVersion: version });
  for (const i of card.additionalInterfaces ?? []) {
    if (typeof i === "object" && i !== null) out.push({ url: i.url, protocolBinding: i.transport, protocolVersion: version });
  }
  return out;
}

/**
 * Picks the interface to call from an agent card: the first version of
 * `versions` (Major.Minor, default {@link A2A_DEFAULT_VERSIONS} then 0.3)
 * that the card offers an interface of, and of its interfaces the first
 * binding in `prefer` (the client's order of preference), taking the card's
 * first interface of that binding; without `prefer`, the card's first
 * interface this client speaks (the agent's order). An interface without
 * `protocolVersion` counts as the first version's. A v0.3 card's interfaces
 * (`url` + `preferredTransport`, `additionalInterfaces`) count too; when the
 * pick speaks v0.3, the answer says `a2aVersion: "0.3"`, which makes the
 * client speak v0.3. Throws RpcError FAILED_PRECONDITION naming what the
 * card offers when nothing fits.
 *
 *     const client = createA2AServiceClient({ ...pickTransport(card, ["JSONRPC", "HTTP+JSON"]), fetch });
 */
export function pickTransport(
  card: AgentCardInterfaces,
  prefer?: readonly ClientBinding[],
  versions: readonly string[] = DEFAULT_PICK_VERSIONS,
): PickedTransport {
  const all = interfacesOf(card).filter((i) => typeof i.url === "string" && i.url !== "");
  const bindingOf = (i: AgentInterfaceLike): ClientBinding | undefined => {
    const b = String(i.protocolBinding ?? "").toUpperCase();
    return b === "JSONRPC" || b === "HTTP+JSON" ? b : undefined;
  };
  let chosen: AgentInterfaceLike | undefined;
  let version = versions[0];
  for (const v of versions) {
    const usable = all.filter((i) => (i.protocolVersion ? isA2AVersionSupported(i.protocolVersion, [v]) : v === versions[0]));
    if (prefer === undefined) {
      chosen = usable.find((i) => bindingOf(i) !== undefined);
    } else {
      for (const want of prefer) {
        chosen = usable.find((i) => bindingOf(i) === want);
        if (chosen) break;
      }
    }
    version = v;
    if (chosen) break;
  }
  if (chosen === undefined) {
    const offered = interfacesOf(card).map((i) => `${i.protocolBinding} ${i.protocolVersion ?? ""} at ${i.url}`.replace("  ", " "));
    throw clientError(
      Code.FAILED_PRECONDITION,
      `no interface of the agent card fits: wanted ${(prefer ?? ["JSONRPC", "HTTP+JSON"]).join(" or ")} for A2A ${versions.join(", ")}; the card offers ${offered.length > 0 ? offered.join("; ") : "none"}`,
    );
  }
  const picked = { transport: transportOf[bindingOf(chosen)!], baseUrl: chosen.url, tenant: chosen.tenant ?? "", chosen };
  return version !== undefined && isA2AVersionSupported(version, [A2A_V03]) ? { ...picked, a2aVersion: A2A_V03 } : picked;
}
