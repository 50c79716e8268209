// The WWW-Authenticate header of a 401 (RFC 9110 §11.6.1 requires one),
// built from the security schemes an A2A agent card declares, so that a
// context factory refusing a request tells the client how to authenticate:
//
//   context: ({ headers, responseHeaders }) => {
//     if (!valid(headers.get("authorization"))) {
//       responseHeaders.set("www-authenticate", challenge);   // = wwwAuthenticate(card)
//       throw new RpcError(Code.UNAUTHENTICATED, "a bearer token is required");
//     }
//     ...
//   }
//
// Universal (no node:), and it takes the card as protobuf-es message or as
// its ProtoJSON, since agents hold one or the other.

/** Options of {@link wwwAuthenticate}. */
export interface WwwAuthenticateOptions {
  /** The protection space named in every challenge. Default "a2a". */
  readonly realm?: string;
}

/** One security scheme, as the card's JSON spells it or as protobuf-es's oneof holds it. */
type SchemeLike = Record<string, unknown>;

/**
 * The value of `WWW-Authenticate` for a card's `securitySchemes`: one
 * challenge per auth-scheme, in the card's order. HTTP schemes give their own
 * name (`Bearer`, `Basic`, ...); OAuth 2.0 and OpenID Connect give `Bearer`
 * (RFC 6750), merged with an HTTP bearer scheme; an API key gives the
 * informational `ApiKey realm=..., name="X-API-Key", in="header"`; mutual TLS
 * has no header to name. Undefined when nothing is left (no schemes).
 */
export function wwwAuthenticate(card: unknown, options: WwwAuthenticateOptions = {}): string | undefined {
  const realm = `realm=${quoted(options.realm ?? "a2a")}`;
  const schemes = (card as { securitySchemes?: unknown } | null)?.securitySchemes;
  if (schemes === null || typeof schemes !== "object") return undefined;
  const challenges = new Map<string, string>();
  for (const raw of Object.values(schemes as Record<string, unknown>)) {
    const [kind, value] = schemeOf(raw);
    switch (kind) {
      case "httpAuthSecurityScheme": {
        const name = canonical(String(value["scheme"] ?? ""));
        if (name !== undefined) add(challenges, name, `${name} ${realm}`);
        break;
      }
      case "oauth2SecurityScheme":
      case "openIdConnectSecurityScheme":
        add(challenges, "Bearer", `Bearer ${realm}`);
        break;
      case "apiKeySecurityScheme": {
        const name = String(value["name"] ?? "");
        const where = String(value["location"] ?? "");
        add(challenges, "ApiKey", `ApiKey ${realm}, name=${quoted(name)}, in=${quoted(where)}`);
        break;
      }
      default:
        // mTLS, or a scheme this runtime does not know: nothing a header can say.
        break;
    }
  }
  return challenges.size === 0 ? undefined : [...challenges.values()].join(", ");
}

/** The oneof member of a scheme: `{ httpAuthSecurityScheme: {...} }` (JSON) or `{ scheme: { case, value } }` (message). */
function schemeOf(raw: unknown): [string | undefined, SchemeLike] {
  if (raw === null || typeof raw !== "object") return [undefined, {}];
  const oneof = (raw as { scheme?: { case?: unknown; value?: unknown } }).scheme;
  if (oneof !== null && typeof oneof === "object" && typeof oneof.case === "string") {
    return [oneof.case, (oneof.value ?? {}) as SchemeLike];
  }
  for (const [k, v] of Object.entries(raw as Record<string, unknown>)) {
    if (k.endsWith("SecurityScheme") && v !== null && typeof v === "object") return [k, v as SchemeLike];
  }
  return [undefined, {}];
}

function add(challenges: Map<string, string>, scheme: string, challenge: string): void {
  const key = scheme.toLowerCase();
  if (!challenges.has(key)) challenges.set(key, challenge);
}

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const knownNames: Record<string, string> = { bearer: "Bearer", basic: "Basic", digest: "Digest" };

/** An auth-scheme name as a header token (the usual spelling for the known ones), or undefined when it is not one. */
function canonical(name: string): string | undefined {
  const n = name.trim();
  if (!TOKEN.test(n)) return undefined;
  return knownNames[n.toLowerCase()] ?? n;
}

/** A quoted-string (RFC 9110 §5.6.4); control characters, which it cannot hold, become spaces. */
function quoted(text: string): string {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: control characters are what it replaces
  return `"${text.replace(/[\u0000-\u001f\u007f]/g, " ").replace(/["\\]/g, (c) => "\\" + c)}"`;
}
