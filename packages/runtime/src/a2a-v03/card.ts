// One agent card that v1.0 and v0.3 clients both read: the v1.0 card's
// ProtoJSON plus the top-level fields a v0.3 client looks for, derived from
// the v1.0 interfaces (docs/a2a.md, "v0.3 clients", lists which field comes
// from which version).
import type { JsonValue } from "@bufbuild/protobuf";
import { isA2AVersionSupported } from "../a2a.js";
import { A2A_V03, A2A_V03_CARD_VERSION, type JsonObject } from "./common.js";

/** The bindings a v0.3 client can reach on an agent that serves v0.3: JSON-RPC and HTTP+JSON (`/v1/...`). */
const V03_BINDINGS: readonly string[] = ["JSONRPC", "HTTP+JSON"];

/** v0.3's gRPC binding (`a2a.v1.A2AService`), listed only when the server says it serves it. */
const V03_GRPC = "GRPC";

/** Options of {@link withV03CardFields}. */
export interface V03CardOptions {
  /**
   * The v1.0 gRPC interfaces also serve v0.3's `a2a.v1.A2AService` (the
   * `a2aV03Grpc` option of the card handlers): list them for v0.3 clients
   * too. Default false.
   */
  readonly grpc?: boolean;
}

/**
 * A gRPC interface's URL as v0.3 clients read it: `http(s)://host:port`
 * (they parse it as a URL; the v1.0 card may hold a bare `host:port`, taken
 * as plaintext), or undefined for a URL of another scheme.
 */
function v03GrpcUrl(url: string): string | undefined {
  if (/^https?:\/\//i.test(url)) return url;
  const scheme = /^grpc(s?):\/\//i.exec(url);
  if (scheme) return `http${scheme[1]!.toLowerCase()}://${url.slice(scheme[0].length)}`;
  return url !== "" && !url.includes("://") && !url.includes("/") ? `http://${url}` : undefined;
}

/**
 * The card with v0.3's fields added, unless it has a `protocolVersion`
 * already (then it is taken as written for both): `protocolVersion`
 * `0.3.0`; `url` and `preferredTransport`, the JSON-RPC interface when there
 * is one (v0.3's JSON-RPC-only clients take `url` as their endpoint), else
 * the first HTTP+JSON one (never gRPC); `additionalInterfaces`, every one;
 * and an entry with `protocolVersion` `0.3` for each in
 * `supportedInterfaces`, after the v1.0 ones. Only v1.0 interfaces of the
 * bindings v0.3 is served on and without a tenant count (v0.3 has no
 * tenants): JSON-RPC and HTTP+JSON, and gRPC with `options.grpc` (its URL as
 * `http(s)://host:port`). A card with no JSON-RPC or HTTP+JSON interface
 * among them is returned as it is. Lists v0.3 requires are filled in (a
 * skill's `tags`, the default modes), and `supportsAuthenticatedExtendedCard`
 * is `capabilities.extendedAgentCard` when the card declares a security
 * scheme to authenticate with (a v0.3 client has no other way to).
 */
export function withV03CardFields(card: JsonValue, options: V03CardOptions = {}): JsonValue {
  if (typeof card !== "object" || card === null || Array.isArray(card) || "protocolVersion" in card) return card;
  const interfaces = Array.isArray(card["supportedInterfaces"]) ? (card["supportedInterfaces"] as JsonObject[]) : [];
  const served: { url: string; binding: string }[] = [];
  for (const i of interfaces) {
    if (typeof i !== "object" || i === null || typeof i["url"] !== "string" || i["tenant"]) continue;
    if (i["protocolVersion"] !== undefined && !isA2AVersionSupported(String(i["protocolVersion"]), ["1.0"])) continue;
    const binding = i["protocolBinding"] as string;
    const url = V03_BINDINGS.includes(binding)
      ? /^https?:\/\//i.test(i["url"])
        ? i["url"]
        : undefined
      : options.grpc === true && binding === V03_GRPC
        ? v03GrpcUrl(i["url"])
        : undefined;
    if (url !== undefined) served.push({ url, binding });
  }
  const preferred = served.find((i) => i.binding === "JSONRPC") ?? served.find((i) => i.binding !== V03_GRPC);
  if (preferred === undefined) return card;
  const out: JsonObject = { ...card };
  out["protocolVersion"] = A2A_V03_CARD_VERSION;
  out["url"] = preferred.url;
  out["preferredTransport"] = preferred.binding;
  out["additionalInterfaces"] = served.map((i) => ({ url: i.url, transport: i.binding }));
  out["supportedInterfaces"] = [
    ...interfaces,
    ...served.map((i) => ({ url: i.url, protocolBinding: i.binding, protocolVersion: A2A_V03 })),
  ];
  out["defaultInputModes"] ??= [];
  out["defaultOutputModes"] ??= [];
  out["skills"] = Array.isArray(card["skills"]) ? card["skills"].map((s) => ({ tags: [], ...(s as JsonObject) })) : [];
  const capabilities = (card["capabilities"] ?? {}) as JsonObject;
  out["capabilities"] = capabilities;
  // v0.3's client authenticates for the extended card by a scheme the card declares: without one, it cannot.
  const schemes = card["securitySchemes"];
  const declaresScheme = typeof schemes === "object" && schemes !== null && Object.keys(schemes).length > 0;
  out["supportsAuthenticatedExtendedCard"] = capabilities["extendedAgentCard"] === true && declaresScheme;
  return out;
}
