// The Host header check (the `allowedHosts` server option), against DNS
// rebinding: a web page whose name the attacker re-points at 127.0.0.1 can
// reach a local agent from the victim's browser with the page's own origin,
// so the same-origin policy lets it read the answers. Such a request still
// carries the attacker's name in Host, which a check of Host refuses.
import { withA2AErrorInfo } from "../a2a.js";
import { Code, RpcError } from "../errors.js";

/**
 * Which Host header values a server answers:
 * - `"auto"` (default): when the server listens on a loopback address (and
 *   the adapter can tell, as on Node), only `localhost`, `127.0.0.1`, `[::1]`
 *   and the listening address itself, with the listening port; otherwise any;
 * - `"any"`: no check;
 * - a list: exactly these. An entry is `name` (any port), `name:port`, or
 *   `.domain` (the domain and its subdomains, any port); IPv6 in brackets.
 */
export type AllowedHosts = "auto" | "any" | readonly string[];

/** Where the server listens, when the adapter knows it. */
export interface Listener {
  readonly address: string;
  readonly port: number;
}

interface Entry {
  readonly name: string;
  /** undefined: any port. */
  readonly port: number | undefined;
  readonly subdomains: boolean;
}

/**
 * Builds the check for one server's option: gives the error to answer with,
 * or undefined when the request's Host is served. Throws on a malformed
 * entry in the list, so that a typo fails at startup.
 */
export function createHostCheck(
  option: AllowedHosts | undefined,
  a2a: boolean,
): ((host: string | undefined, listener: () => Listener | undefined) => RpcError | undefined) | undefined {
  if (option === "any") return undefined;
  if (option === undefined || option === "auto") {
    // One check per listening address and port (a server has one or two),
    // found by the connection's listener object after its first request.
    type Check = ((host: string | undefined) => RpcError | undefined) | null;
    const byAddress = new Map<string, Check>();
    const byListener = new WeakMap<Listener, Check>();
    return (host, listener) => {
      const l = listener();
      if (l === undefined) return undefined;
      let check = byListener.get(l);
      if (check === undefined) {
        const key = `${l.address} ${l.port}`;
        check = byAddress.get(key);
        if (check === undefined) {
          check = isLoopback(l.address) ? hostCheckOf(loopbackEntries(l), a2a) : null;
          if (byAddress.size < 16) byAddress.set(key, check);
        }
        byListener.set(l, check);
      }
      return check === null ? undefined : check(host);
    };
  }
  if (!Array.isArray(option))
    throw new TypeError(`allowedHosts must be "auto", "any" or a list of host names, not ${JSON.stringify(option)}`);
  const check = hostCheckOf(option.map(parseEntry), a2a);
  return (host) => check(host);
}

/** The check of Host values against `entries`; the values it served are remembered (a server sees a few). */
function hostCheckOf(entries: readonly Entry[], a2a: boolean): (host: string | undefined) => RpcError | undefined {
  const served = new Set<string>();
  return (host) => {
    if (host !== undefined && served.has(host)) return undefined;
    const err = verdict(host, entries, a2a);
    if (err === undefined && served.size < 64) served.add(host!);
    return err;
  };
}

function verdict(host: string | undefined, entries: readonly Entry[], a2a: boolean): RpcError | undefined {
  const parsed = host === undefined ? undefined : parseHost(host);
  if (parsed !== undefined && entries.some((e) => matches(e, parsed))) return undefined;
  const allowed = entries.map((e) => (e.subdomains ? "." : "") + e.name + (e.port === undefined ? "" : `:${e.port}`)).join(", ");
  const err = new RpcError(
    Code.INVALID_ARGUMENT,
    host === undefined
      ? `the request has no Host header; this server answers only ${allowed} (server option allowedHosts)`
      : `the Host ${JSON.stringify(host)} is not served here; this server answers only ${allowed} (server option allowedHosts)`,
    [],
    // 421 Misdirected Request (RFC 9110 §15.5.20): not a host this server speaks for.
    { httpStatus: 421 },
  );
  return a2a ? withA2AErrorInfo(err, "INVALID_REQUEST") : err;
}

function matches(e: Entry, h: { name: string; port: number }): boolean {
  if (e.port !== undefined && e.port !== h.port) return false;
  if (h.name === e.name) return true;
  return e.subdomains && h.name.endsWith("." + e.name);
}

function loopbackEntries(l: Listener): Entry[] {
  const own = l.address.includes(":") ? `[${l.address.toLowerCase()}]` : l.address;
  const names = new Set(["localhost", "127.0.0.1", "[::1]", own]);
  return [...names].map((name) => ({ name, port: l.port, subdomains: false }));
}

/** 127.0.0.0/8, ::1, and IPv4-mapped 127.x. */
function isLoopback(address: string): boolean {
  const a = address.toLowerCase();
  return a === "::1" || a === "localhost" || a.startsWith("127.") || a.startsWith("::ffff:127.");
}

/** A Host value as name (lower case, IPv6 in brackets) and port (80 when absent); undefined when malformed. */
function parseHost(host: string): { name: string; port: number } | undefined {
  const h = host.trim().toLowerCase();
  let name: string;
  let rest: string;
  if (h.startsWith("[")) {
    const end = h.indexOf("]");
    if (end < 0) return undefined;
    name = h.slice(0, end + 1);
    rest = h.slice(end + 1);
  } else {
    const colon = h.indexOf(":");
    name = colon < 0 ? h : h.slice(0, colon);
    rest = colon < 0 ? "" : h.slice(colon);
  }
  if (name === "" || name === "[]" || /[\s/\\@?#,]/.test(name)) return undefined;
  if (name.endsWith(".")) name = name.slice(0, -1); // "localhost." is "localhost"
  if (rest === "") return { name, port: 80 };
  if (!/^:\d{1,5}$/.test(rest)) return undefined;
  const port = Number(rest.slice(1));
  return port <= 65535 ? { name, port } : undefined;
}

function parseEntry(entry: unknown): Entry {
  if (typeof entry !== "string" || entry.trim() === "") {
    throw new TypeError(`allowedHosts: ${JSON.stringify(entry)} is not a host name`);
  }
  const text = entry.trim().toLowerCase();
  const subdomains = text.startsWith(".");
  const body = subdomains ? text.slice(1) : text;
  const parsed = parseHost(body);
  if (parsed === undefined) throw new TypeError(`allowedHosts: ${JSON.stringify(entry)} is not a host name, host:port or .domain`);
  const hasPort = body.startsWith("[") ? body.slice(body.indexOf("]") + 1) !== "" : body.includes(":");
  return { name: parsed.name, port: hasPort ? parsed.port : undefined, subdomains };
}

/**
 * The address the server of a connection listens on. Node sets `server` on
 * the sockets an http.Server accepts; the listening address (not the
 * connection's local one) tells a loopback-only agent from one on every
 * interface reached through 127.0.0.1.
 */
export function listenerOf(socket: unknown): Listener | undefined {
  if (socket === null || typeof socket !== "object") return undefined;
  // Asked of the OS (getsockname, about 1 µs): once per connection, which
  // came in while the server listened where it listens.
  let l = listeners.get(socket);
  if (l === undefined) {
    const server = (socket as { server?: { address?: () => unknown } }).server;
    const a = typeof server?.address === "function" ? server.address() : undefined;
    if (a === null || typeof a !== "object") return undefined;
    const { address, port } = a as { address?: unknown; port?: unknown };
    if (typeof address !== "string" || typeof port !== "number") return undefined;
    listeners.set(socket, (l = { address, port }));
  }
  return l;
}

const listeners = new WeakMap<object, Listener>();

/**
 * The `allowedHosts` check for what the service adapters do not serve: the
 * agent card, an application's own routes, the gRPC port. Give it the
 * request's Host (HTTP/2: `:authority`) and, on Node, its socket (for
 * `"auto"`, which checks only a server listening on loopback); it answers
 * the 421 error to send, or undefined when the Host is served. The same rule
 * and message as the adapters' option, so one value can go to all of them.
 * Throws at once on a malformed option, so that a typo fails at start-up.
 *
 *     const wrongHost = allowedHostsCheck(allowedHosts);
 *     const err = wrongHost(req.headers.host, req.socket);
 *     if (err) return res.writeHead(421, ...).end(JSON.stringify(err.toStatusBody()));
 */
export function allowedHostsCheck(
  option?: AllowedHosts,
  options: { readonly profile?: "none" | "a2a" } = {},
): (host: string | undefined, socket?: unknown) => RpcError | undefined {
  const check = createHostCheck(option, options.profile !== "none");
  if (check === undefined) return () => undefined;
  return (host, socket) => check(host, () => (socket === undefined ? undefined : listenerOf(socket)));
}
