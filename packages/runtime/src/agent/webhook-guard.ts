/**
 * The SSRF guard for push-notification webhooks: which URLs and which
 * addresses an agent may POST to. A client chooses the webhook URL, so without
 * it a client could make the agent call its own admin ports, the LAN or the
 * cloud metadata service (169.254.169.254) on its behalf.
 */
import { isIP } from "node:net";
import { lookup as dnsLookup } from "node:dns/promises";
import ipaddr from "ipaddr.js";
import { shownUrl } from "./push-sender.js";

/** One address of a host, as `dns.lookup(host, { all: true })` gives it. */
export interface ResolvedAddress {
  readonly address: string;
  readonly family: number;
}

export interface GuardOptions {
  readonly allow?: { readonly http?: boolean; readonly addresses?: readonly string[] } | undefined;
  readonly lookup?: ((hostname: string) => Promise<readonly ResolvedAddress[]>) | undefined;
}

/** A webhook URL or address the guard refuses; delivery does not retry it. */
export class WebhookNotAllowedError extends Error {
  override name = "WebhookNotAllowedError";
}

// Names that reach a cloud metadata service without an IP literal in the URL.
// They resolve to link-local addresses, which are refused anyway; naming them
// also refuses them where DNS answers oddly.
const metadataNames = new Set(["metadata.google.internal", "metadata"]);

// The ranges of ipaddr.js that get their own words in an error message; every
// range but "unicast" is refused.
const rangeWords: Record<string, string> = {
  loopback: "loopback",
  private: "private",
  uniqueLocal: "unique-local",
  linkLocal: "link-local",
  carrierGradeNat: "carrier-grade NAT",
  unspecified: "unspecified",
  multicast: "multicast",
  broadcast: "broadcast",
  reserved: "reserved",
};

// IPv6 unicast is only allocated inside 2000::/3; the rest of the space
// (IPv4-compatible ::a.b.c.d, site-local fec0::/10, …) is not a public host.
const globalUnicast6 = ipaddr.parseCIDR("2000::/3");
// NAT64 (RFC 6052) carries an IPv4 address in its last 32 bits, like IPv4-mapped
// ::ffff:a.b.c.d: both are judged by that IPv4 address.
const nat64 = ipaddr.parseCIDR("64:ff9b::/96");

export interface WebhookGuard {
  /** Parses `url` and checks it, resolving its host; throws WebhookNotAllowedError. */
  checkUrl(url: string): Promise<URL>;
  /** The checks that need no DNS: scheme, userinfo, metadata names, a literal IP host. */
  checkStatic(url: URL): void;
  /**
   * Resolves `hostname` and checks every address, so a name with one private
   * address among public ones is refused. Throws WebhookNotAllowedError when
   * an address is refused, the lookup's own error when it fails.
   */
  resolve(hostname: string): Promise<readonly ResolvedAddress[]>;
}

export function createWebhookGuard(options: GuardOptions = {}): WebhookGuard {
  const allowHttp = options.allow?.http ?? false;
  const allowed = (options.allow?.addresses ?? []).map(parseRange);
  const lookup = options.lookup ?? ((host: string) => dnsLookup(host, { all: true }));

  const isAllowed = (ip: IP) => allowed.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits));

  /** Why `address` is refused ("is private"), or undefined when it may be called. */
  function refusal(address: string): string | undefined {
    let ip: IP;
    try {
      ip = ipaddr.parse(address);
    } catch {
      return "is not an IP address";
    }
    const v4 = ip instanceof ipaddr.IPv4 ? ip : embeddedIPv4(ip);
    // "127.0.0.1/32" also allows ::ffff:127.0.0.1, the same socket in IPv6 clothes.
    if (isAllowed(ip) || (v4 && isAllowed(v4))) return undefined;
    if (v4) return v4.range() === "unicast" ? undefined : describe(v4.range());
    const range = ip.range();
    return range === "unicast" && ip.match(globalUnicast6) ? undefined : describe(range);
  }

  function checkStatic(url: URL): void {
    const refuse = (why: string) => {
      throw new WebhookNotAllowedError(`webhook URL "${shownUrl(url.href)}" is not allowed: ${why}`);
    };
    if (url.protocol !== "https:" && !(url.protocol === "http:" && allowHttp)) {
      refuse(url.protocol === "http:" ? "it is not https" : `its scheme "${url.protocol}" is not https`);
    }
    // Credentials in a URL end up in logs, and the spec has AuthenticationInfo for them.
    if (url.username || url.password) refuse("it carries a user name or password");
    const host = hostOf(url);
    if (metadataNames.has(host.replace(/\.$/, ""))) refuse(`host "${host}" is a cloud metadata service`);
    if (isIP(host)) {
      const why = refusal(host);
      if (why) refuse(`address ${host} ${why}`);
    }
  }

  async function resolve(hostname: string): Promise<readonly ResolvedAddress[]> {
    const addresses = await lookup(hostname);
    if (addresses.length === 0) throw new WebhookNotAllowedError(`host "${hostname}" resolves to no address`);
    for (const { address } of addresses) {
      const why = refusal(address);
      if (why) throw new WebhookNotAllowedError(`host "${hostname}" resolves to ${address}, which ${why}`);
    }
    return addresses;
  }

  async function checkUrl(text: string): Promise<URL> {
    let url: URL;
    try {
      url = new URL(text);
    } catch {
      throw new WebhookNotAllowedError(`webhook URL "${text}" is not allowed: it is not an absolute URL`);
    }
    checkStatic(url);
    const host = hostOf(url);
    if (!isIP(host)) {
      try {
        await resolve(host);
      } catch (e) {
        // A name that does not resolve now (no DNS here, or not yet) proves
        // nothing either way; every delivery resolves it again through the
        // guard, and only a checked address is ever connected to.
        if (!(e instanceof WebhookNotAllowedError)) return url;
        throw new WebhookNotAllowedError(`webhook URL "${shownUrl(url.href)}" is not allowed: ${e.message}`);
      }
    }
    return url;
  }

  return { checkUrl, checkStatic, resolve };
}

/** The URL's host without the brackets of an IPv6 literal. */
function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, "$1");
}

type IP = ipaddr.IPv4 | ipaddr.IPv6;

function describe(range: string): string {
  return `is ${rangeWords[range] ?? `not a public unicast address (${range})`}`;
}

function embeddedIPv4(ip: ipaddr.IPv6): ipaddr.IPv4 | undefined {
  if (ip.isIPv4MappedAddress()) return ip.toIPv4Address();
  if (ip.match(nat64)) return new ipaddr.IPv4(ip.toByteArray().slice(12));
  return undefined;
}

/** "10.0.0.0/8", or a bare address meaning just itself. */
function parseRange(text: string): [IP, number] {
  try {
    if (text.includes("/")) return ipaddr.parseCIDR(text);
    const ip = ipaddr.parse(text);
    return [ip, ip.kind() === "ipv4" ? 32 : 128];
  } catch {
    throw new TypeError(`push allow.addresses: "${text}" is not an IP address or CIDR range`);
  }
}
