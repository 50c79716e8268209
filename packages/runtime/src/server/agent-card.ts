/**
 * Serving an A2A agent card with HTTP caching (A2A §8.6.1): `Cache-Control`,
 * a strong `ETag` from the card's content, `Last-Modified`, and 304 Not
 * Modified on `If-None-Match` or, without one, `If-Modified-Since` (RFC 9110
 * §13.1). The core is framework-free and imports nothing from node, so the
 * package root still bundles for browsers and Workers; the framework glue
 * below uses structural types only.
 */
import type { JsonValue } from "@bufbuild/protobuf";
import type { RpcError } from "../errors.js";
import { a2aVersionMatcher, requestedA2AVersion } from "../a2a.js";
import { withV03CardFields, type V03CardOptions } from "../a2a-v03/card.js";
import { A2A_V03 } from "../a2a-v03/common.js";
import { allowedHostsCheck, type AllowedHosts } from "./hosts.js";

/**
 * An agent card: a JSON-shaped object (e.g. protobuf-es
 * `toJson(AgentCardSchema, card)`), its JSON text (a string is always taken
 * as JSON text), or a function returning either. An object is serialized
 * once, when the handler is made (later changes to it are not seen); a
 * function is called on every request (a card may name URLs known only once
 * the server listens), and its answer is hashed again only when its JSON
 * text differs from the last one.
 */
export type AgentCardSource = object | string | (() => JsonValue | object);

/** Options of {@link agentCardAnswer} and the framework handlers. */
export interface AgentCardOptions {
  /** The `max-age` of `Cache-Control: public, max-age=<n>`, in seconds. Default 300. */
  readonly maxAge?: number;
  /**
   * The card of a request that speaks A2A v0.3 (no `A2A-Version`, as v0.3
   * clients send it, or `0.3`) gets the fields v0.3 clients read beside the
   * v1.0 ones (`protocolVersion`, `url`, `preferredTransport`,
   * `additionalInterfaces`, v0.3 entries in `supportedInterfaces`), derived
   * from its JSON-RPC and HTTP+JSON interfaces; a request with
   * `A2A-Version: 1.0` gets the v1.0 card alone (a strict v1.0 reader
   * refuses fields it does not know). Answers carry `Vary: A2A-Version`.
   * docs/a2a.md, "v0.3 clients". A card that has a `protocolVersion` is
   * served as it is. Default true; false when the agent is made with
   * `a2aV03: false`.
   */
  readonly a2aV03?: boolean;
  /**
   * The agent's gRPC interfaces serve v0.3's `a2a.v1.A2AService` too
   * (`a2aV03GrpcHandlers` of `a2a-http/connect`): the v0.3 card lists them
   * beside JSON-RPC and HTTP+JSON, each as `http://host:port` (a bare
   * `host:port` of the v1.0 card taken as plaintext), never as
   * `preferredTransport`. Default false: gRPC is then offered to v1.0
   * clients only.
   */
  readonly a2aV03Grpc?: boolean;
  /**
   * The framework handlers only: the Host values the card is served for,
   * against DNS rebinding, as the service adapters' option of that name;
   * another Host gets a 421 google.rpc.Status. Default `"auto"`: on Node, a
   * server listening on loopback answers only localhost, 127.0.0.1, [::1]
   * and its own address, with its port; elsewhere (and in `agentCardFetch`
   * when not given the node socket) any. A malformed value throws when the
   * handler is made.
   */
  readonly allowedHosts?: AllowedHosts;
}

/** One answer for the card: the JSON, or 304 Not Modified without a body. */
export interface AgentCardAnswer {
  readonly status: 200 | 304;
  /** By lower-case name; shared between answers, so frozen. */
  readonly headers: Readonly<Record<string, string>>;
  /** The card's JSON; "" for HEAD (whose Content-Length is still the GET's) and for 304. */
  readonly body: string;
}

/** Reads one request header by lower-case name; a fetch `Headers` is one. */
export interface HeaderReader {
  get(name: string): string | null | undefined;
}

/** Answers one GET or HEAD of the card. Another method gets the GET's answer, conditionals left out. */
export type AgentCardResponder = (method: string, headers: HeaderReader) => AgentCardAnswer;

/** The default `max-age`: 5 minutes. */
export const DEFAULT_AGENT_CARD_MAX_AGE = 300;

/** One serialization of the card and its validators. */
interface Version {
  readonly text: string;
  readonly ok: AgentCardAnswer;
  readonly head: AgentCardAnswer;
  readonly notModified: AgentCardAnswer;
  readonly etag: string;
  /** Last-Modified in whole seconds since the epoch. */
  readonly modified: number;
  /**
   * False when this version's Last-Modified second does not tell it from an
   * earlier version (it changed within the second it was served in, or the
   * clock went back): If-Modified-Since is then ignored, only the ETag can
   * give a 304 (RFC 9110 §8.8.2.2).
   */
  readonly datable: boolean;
}

/**
 * The framework-free core: a function answering each GET or HEAD of the
 * card. Throws a RangeError for a bad `maxAge`.
 *
 *     const answer = agentCardAnswer(() => toJson(AgentCardSchema, card()));
 *     const { status, headers, body } = answer(request.method, request.headers);
 */
export function agentCardAnswer(card: AgentCardSource, options: AgentCardOptions = {}): AgentCardResponder {
  const maxAge = options.maxAge ?? DEFAULT_AGENT_CARD_MAX_AGE;
  if (!Number.isSafeInteger(maxAge) || maxAge < 0) {
    throw new RangeError(`invalid maxAge "${String(maxAge)}": please provide a whole number of seconds, 0 or more`);
  }
  const cacheControl = `public, max-age=${maxAge}`;
  const source = typeof card === "function" ? (card as () => JsonValue | object) : undefined;
  const v03 = options.a2aV03 !== false;
  const speaksV03 = a2aVersionMatcher([A2A_V03]);
  const v03Card: V03CardOptions = { grpc: options.a2aV03Grpc === true };
  const fixed = source === undefined ? cardText(card, undefined) : undefined;
  const fixedV03 = source === undefined && v03 ? cardText(card, v03Card) : undefined;
  const vary = v03 ? "A2A-Version" : undefined;
  // Each variant's current version; the latest Last-Modified second handed
  // out (of either), so that a new version never looks older than one before it.
  const current: [Version | undefined, Version | undefined] = [undefined, undefined];
  let latest = -Infinity;
  return (method, headers) => {
    const forV03 = v03 && speaksV03(requestedA2AVersion(headers.get("a2a-version"), ""));
    const text = (forV03 ? fixedV03 : fixed) ?? cardText(source!(), forV03 ? v03Card : undefined);
    const slot = forV03 ? 1 : 0;
    let v = current[slot];
    if (v === undefined || v.text !== text) {
      const now = Math.floor(Date.now() / 1000);
      v = current[slot] = makeVersion(text, cacheControl, now, now > latest, vary);
      if (now > latest) latest = now;
    }
    if (method === "GET" || method === "HEAD") {
      if (notModified(v, headers)) return v.notModified;
      return method === "HEAD" ? v.head : v.ok;
    }
    return v.ok;
  };
}

/** The card's JSON text; with `v03`, v0.3's fields added as those options say. */
function cardText(card: JsonValue | object, v03: V03CardOptions | undefined): string {
  if (typeof card === "string") {
    if (v03 === undefined) return card;
    let parsed: JsonValue;
    try {
      parsed = JSON.parse(card) as JsonValue;
    } catch {
      return card;
    }
    const withV03 = withV03CardFields(parsed, v03);
    return withV03 === parsed ? card : JSON.stringify(withV03);
  }
  const text = JSON.stringify(v03 ? withV03CardFields(card as JsonValue, v03) : card) as string | undefined;
  if (text === undefined) throw new TypeError("the agent card is not JSON: JSON.stringify gave nothing");
  return text;
}

function makeVersion(text: string, cacheControl: string, modified: number, datable: boolean, vary: string | undefined): Version {
  const bytes = new TextEncoder().encode(text);
  const etag = `"${bytes.length.toString(36)}-${fnv1a64(bytes)}"`;
  const lastModified = new Date(modified * 1000).toUTCString();
  // RFC 9110 §12.5.5: a cache keeps the variants apart by the header the card varies by.
  const validators: Record<string, string> = { "cache-control": cacheControl, etag, "last-modified": lastModified };
  if (vary !== undefined) validators["vary"] = vary;
  const full = Object.freeze({ ...validators, "content-type": "application/json", "content-length": String(bytes.length) });
  return {
    text,
    ok: Object.freeze({ status: 200, headers: full, body: text }),
    head: Object.freeze({ status: 200, headers: full, body: "" }),
    // RFC 9110 §15.4.5: a 304 carries the validators and Cache-Control a 200 would, no content headers.
    notModified: Object.freeze({ status: 304, headers: Object.freeze(validators), body: "" }),
    etag,
    modified,
    datable,
  };
}

/** RFC 9110 §13.2.2: If-None-Match first; If-Modified-Since only when there is none. */
function notModified(v: Version, headers: HeaderReader): boolean {
  const inm = headers.get("if-none-match");
  if (inm !== null && inm !== undefined) return ifNoneMatchHits(inm, v.etag);
  if (!v.datable) return false;
  const ims = headers.get("if-modified-since");
  if (ims === null || ims === undefined) return false;
  const since = parseHttpDate(ims);
  return since !== undefined && v.modified <= since;
}

/**
 * Whether an If-None-Match field value names `etag` (a strong `"…"`), by
 * the weak comparison RFC 9110 §13.1.2 asks for: `W/"x"` matches `"x"`. A
 * `*` matches (the card always exists). The field is a comma list of
 * entity-tags whose quoted part may itself hold commas, so it is scanned,
 * not split; a member that is not an entity-tag is skipped.
 */
export function ifNoneMatchHits(field: string, etag: string): boolean {
  const n = field.length;
  let i = 0;
  while (i < n) {
    const c = field.charCodeAt(i);
    if (c === 0x20 || c === 0x09 || c === 0x2c) {
      i++;
      continue;
    }
    if (c === 0x2a) {
      const next = skipSpace(field, i + 1);
      if (next === n || field.charCodeAt(next) === 0x2c) return true;
    }
    if (field.startsWith("W/", i)) i += 2;
    if (field.charCodeAt(i) === 0x22) {
      const end = field.indexOf('"', i + 1);
      if (end < 0) return false;
      if (end + 1 - i === etag.length && field.startsWith(etag, i)) return true;
      i = end + 1;
    } else {
      const comma = field.indexOf(",", i);
      i = comma < 0 ? n : comma + 1;
    }
  }
  return false;
}

function skipSpace(s: string, i: number): number {
  while (i < s.length && (s.charCodeAt(i) === 0x20 || s.charCodeAt(i) === 0x09)) i++;
  return i;
}

const months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];
const time = String.raw`(?<h>\d\d):(?<m>\d\d):(?<s>\d\d)`;
const httpDates = [
  // IMF-fixdate: Sun, 06 Nov 1994 08:49:37 GMT
  new RegExp(String.raw`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun), (?<d>\d\d) (?<mon>[A-Z][a-z]{2}) (?<y>\d{4}) ${time} GMT$`),
  // RFC 850: Sunday, 06-Nov-94 08:49:37 GMT
  new RegExp(String.raw`^(?:Mon|Tues|Wednes|Thurs|Fri|Satur|Sun)day, (?<d>\d\d)-(?<mon>[A-Z][a-z]{2})-(?<y>\d\d) ${time} GMT$`),
  // asctime: Sun Nov  6 08:49:37 1994
  new RegExp(String.raw`^(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) (?<mon>[A-Z][a-z]{2}) (?<d>[ \d]\d) ${time} (?<y>\d{4})$`),
];

/**
 * An HTTP-date (RFC 9110 §5.6.7: IMF-fixdate, or the obsolete RFC 850 and
 * asctime forms) in whole seconds since the epoch; undefined when the value
 * is none of them (such an If-Modified-Since is ignored, §13.1.3). Stricter
 * than Date.parse, which takes many other forms and reads asctime as local time.
 */
export function parseHttpDate(value: string): number | undefined {
  value = value.trim();
  let g: Record<string, string> | undefined;
  for (const form of httpDates) if ((g = form.exec(value)?.groups)) break;
  if (g === undefined) return undefined;
  const mon = months.indexOf(g["mon"]!);
  const d = Number(g["d"]);
  const [h, m, s] = [Number(g["h"]), Number(g["m"]), Number(g["s"])];
  if (mon < 0 || d < 1 || d > 31 || h > 23 || m > 59 || s > 60) return undefined;
  let year = Number(g["y"]);
  if (g["y"]!.length === 2) {
    // RFC 850: a two-digit year more than 50 years ahead is the latest past year with those digits.
    const now = new Date().getUTCFullYear();
    year += Math.floor(now / 100) * 100;
    if (year > now + 50) year -= 100;
  }
  return Date.UTC(year, mon, d, h, m, s) / 1000;
}

/**
 * FNV-1a, 64 bits, of the bytes, as 16 hex digits. Why not SHA-256: the
 * answer is synchronous (adapters write it without a promise), Web Crypto's
 * digest is async only, and node:crypto would keep the package root from
 * bundling for browsers and Workers. An ETag only has to tell this card's
 * versions apart, not resist a forger, and the ETag adds the byte length.
 * Done in two 32-bit halves: the prime is 2^40 + 0x1b3.
 */
export function fnv1a64(bytes: Uint8Array): string {
  let hi = 0xcbf29ce4;
  let lo = 0x84222325;
  for (let i = 0; i < bytes.length; i++) {
    lo ^= bytes[i]!;
    lo >>>= 0;
    const t = lo * 0x1b3; // below 2^41: exact
    hi = (Math.imul(hi, 0x1b3) + Math.floor(t / 0x100000000) + (lo << 8)) >>> 0;
    lo = t >>> 0;
  }
  return hi.toString(16).padStart(8, "0") + lo.toString(16).padStart(8, "0");
}

// ---- Framework glue: structural types, so that no framework is imported. ----

/** The members of a node:http request (an Express or Fastify request is one) that the glue reads. */
interface NodeRequestLike {
  readonly method?: string | undefined;
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The connection: where the server listens, for `allowedHosts: "auto"`. */
  readonly socket?: unknown;
  /** Fastify: the node:http request. */
  readonly raw?: { readonly socket?: unknown };
}

/** A refused Host's answer: the 421 error as a google.rpc.Status (RFC 9110 §15.5.20: not a host this server speaks for). */
function misdirected(err: RpcError, method: string | undefined): { status: number; headers: Record<string, string>; body: string } {
  const body = JSON.stringify(err.toStatusBody());
  return {
    status: err.httpStatus,
    headers: { "content-type": "application/json", "content-length": String(new TextEncoder().encode(body).length) },
    body: method === "HEAD" ? "" : body,
  };
}

/** The Host of a node request: `:authority` on HTTP/2, else the Host header. */
function nodeHost(headers: NodeRequestLike["headers"]): string | undefined {
  const h = headers[":authority"] ?? headers["host"];
  return Array.isArray(h) ? h[0] : h;
}

/** The members of a node:http response (an Express response is one) that the glue writes. */
interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body: string): unknown;
}

/** The members of a Fastify reply that the glue calls. */
interface FastifyReplyLike {
  code(status: number): FastifyReplyLike;
  headers(values: Record<string, string>): FastifyReplyLike;
  serializer(fn: (payload: string) => string): FastifyReplyLike;
  send(payload?: string): FastifyReplyLike;
}

function nodeHeaders(headers: NodeRequestLike["headers"]): HeaderReader {
  return {
    get(name) {
      const v = headers[name];
      return Array.isArray(v) ? v.join(", ") : v;
    },
  };
}

/**
 * An Express 5 handler (a plain node:http `(req, res)` one, too) serving the
 * card: `app.get("/.well-known/agent-card.json", agentCardExpress(card))`.
 * Express routes HEAD to it as well. It writes the response itself, so
 * Express adds no ETag of its own.
 */
export function agentCardExpress(card: AgentCardSource, options?: AgentCardOptions): (req: NodeRequestLike, res: NodeResponseLike) => void {
  const answer = agentCardAnswer(card, options);
  const wrongHost = allowedHostsCheck(options?.allowedHosts);
  return (req, res) => {
    const refused = wrongHost(nodeHost(req.headers), req.socket);
    if (refused !== undefined) {
      const m = misdirected(refused, req.method);
      res.writeHead(m.status, m.headers);
      res.end(m.body);
      return;
    }
    const a = answer(req.method ?? "GET", nodeHeaders(req.headers));
    res.writeHead(a.status, a.headers);
    res.end(a.body);
  };
}

/**
 * A Fastify 5 route handler serving the card:
 * `app.get("/.well-known/agent-card.json", agentCardFastify(card))`. A HEAD
 * is answered like a GET: Fastify's own HEAD route (`exposeHeadRoute`, on by
 * default) drops the body and takes Content-Length from it, so the reply
 * goes through Fastify (its onSend hooks run).
 */
export function agentCardFastify(
  card: AgentCardSource,
  options?: AgentCardOptions,
): (request: NodeRequestLike, reply: FastifyReplyLike) => void {
  const answer = agentCardAnswer(card, options);
  const wrongHost = allowedHostsCheck(options?.allowedHosts);
  return (request, reply) => {
    const refused = wrongHost(nodeHost(request.headers), request.raw?.socket ?? request.socket);
    if (refused !== undefined) {
      const m = misdirected(refused, "GET");
      reply.code(m.status).headers(m.headers).serializer(asIs).send(m.body);
      return;
    }
    const a = answer(request.method === "HEAD" ? "GET" : (request.method ?? "GET"), nodeHeaders(request.headers));
    reply.code(a.status).headers(a.headers);
    // A 304 goes without a payload: given "", Fastify would add a text/plain
    // Content-Type, which a cache would copy onto the stored card (RFC 9111
    // §4.3.4). A named serializer keeps it from adding "; charset=utf-8" to
    // the card's type (see fastify.ts).
    if (a.status === 304) reply.send();
    else reply.serializer(asIs).send(a.body);
  };
}

const asIs = (payload: string): string => payload;

/**
 * A fetch handler serving the card, for Workers, Deno, Bun and the like
 * (route GET and HEAD of the card's path to it). On Node, pass the request's
 * socket as well, so that `allowedHosts: "auto"` knows where the server listens.
 */
export function agentCardFetch(card: AgentCardSource, options?: AgentCardOptions): (request: Request, socket?: unknown) => Response {
  const answer = agentCardAnswer(card, options);
  const wrongHost = allowedHostsCheck(options?.allowedHosts);
  return (request, socket) => {
    // A fetch runtime builds the URL from the Host it got; node servers keep the header.
    const refused = wrongHost(request.headers.get("host") ?? hostOf(request.url), socket);
    if (refused !== undefined) {
      const m = misdirected(refused, request.method);
      return new Response(m.body === "" ? null : m.body, { status: m.status, headers: m.headers });
    }
    const a = answer(request.method, request.headers);
    // A 304 may not have a body; a HEAD's Content-Length stays the GET's.
    return new Response(a.body === "" ? null : a.body, { status: a.status, headers: a.headers });
  };
}

/**
 * A Hono 4 handler serving the card:
 * `app.get("/.well-known/agent-card.json", agentCardHono(card))` (Hono
 * answers HEAD through it too).
 */
export function agentCardHono(
  card: AgentCardSource,
  options?: AgentCardOptions,
): (c: { readonly req: { readonly raw: Request }; readonly env?: unknown }) => Response {
  const serve = agentCardFetch(card, options);
  // On @hono/node-server, `c.env.incoming` is the node request: its socket tells where the server listens.
  return (c) => serve(c.req.raw, (c.env as { incoming?: { socket?: unknown } } | undefined)?.incoming?.socket);
}

function hostOf(url: string): string | undefined {
  try {
    return new URL(url).host;
  } catch {
    return undefined;
  }
}
