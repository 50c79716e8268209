// One agent card that v1.0 and v0.3 clients both read: the v1.0 card's
// ProtoJSON plus the top-level fields a v0.3 client looks for, derived from
// the v1.0 interfaces (docs/a2a.md, "v0.3 clients", lists which field comes
// from which version).
import type { JsonValue } from "@bufbuild/protobuf";
import { isA2AVersionSupported } from "../a2a.js";
import { A2A_V03, A2A_V03_CARD_VERSION, type JsonObject } from "./common.js";

/** The bindings a v0.3 client can reach on an agent that serves v0.3: JSON-RPC and HTTP+JSON (`/v1/...`). */
const V03_BINDINGS: readonly string[] = ["JSONRPC", "HTTP+JSON"];

/**
 * The card with v0.3's fields added, unless it has a `protocolVersion`
 * already (then it is taken as written for both): `protocolVersion`
 * `0.3.0`; `url` and `preferredTransport`, the JSON-RPC interface when there
 * is one (v0.3's JSON-RPC-only clients take `url` as their endpoint), else
 * the first; `additionalInterfaces`, every one; and an entry with
 * `protocolVersion` `0.3` for each in `supportedInterfaces`, after the v1.0
 * ones. Only v1.0 interfaces of the bindings v0.3 is served on and without
 * a tenant count (v0.3 has no tenants). A card with none of them is returned
 * as it is. Lists v0.3 requires are filled in (a skill's `tags`, the default
 * modes), and `supportsAuthenticatedExtendedCard` is
 * `capabilities.extendedAgentCard` when the card declares a security scheme
 * to authenticate with (a v0.3 client has no other way to).
 */
export function withV03CardFields(card: JsonValue): JsonValue {
  if (typeof card !== "object" || card === null || Array.isArray(card) || "protocolVersion" in card) return card;
  const interfaces = Array.isArray(card["supportedInterfaces"]) ? (card["supportedInterfaces"] as JsonObject[]) : [];
  const served = interfaces.filter(
    (i) =>
      typeof i === "object" &&
      i !== null &&
      V03_BINDINGS.includes(i["protocolBinding"] as string) &&
      typeof i["url"] === "string" &&
      /^https?:\/\//i.test(i["url"]) &&
      !i["tenant"] &&
      (i["protocolVersion"] === undefined || isA2AVersionSupported(String(i["protocolVersion"]), ["1.0"])),
  );
  if (served.length === 0) return card;
  const preferred = served.find((i) => i["protocolBinding"] === "JSONRPC") ?? served[0]!;
  const out: JsonObject = { ...card };
  out["protocolVersion"] = A2A_V03_CARD_VERSION;
  out["url"] = preferred["url"]!;
  out["preferredTransport"] = preferred["protocolBinding"]!;
  out["additionalInterfaces"] = served.map((i) => ({ url: i["url"]!, transport: i["protocolBinding"]! }));
  out["supportedInterfaces"] = [
    ...interfaces,
    ...served.map((i) => ({ url: i["url"]!, protocolBinding: i["protocolBinding"]!, protocolVersion: A2A_V03 })),
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
