// Recognising @hono/node-server. Besides the Request, it hands the fetch
// handler node's own request and response as Hono's `c.env.incoming` and
// `c.env.outgoing`; the fetch adapter reads headers and the raw target from
// node's request (cheaper, and the target exactly as sent), watches its
// socket, and drains an unread body through it.
//
// Recognised by class, never by shape: on Workers `c.env` holds the Worker's
// bindings, and a binding named `incoming` (a JSON variable, an object with
// `headers`, `url` and `resume`) can look like anything, but it is never an
// instance of node:http's IncomingMessage. The classes come from the
// runtime's own node:http through `process.getBuiltinModule`, a call at run
// time rather than an import, so this module (and `a2a-http/server`) still
// bundles for browsers and Workers with no `node:` import. Where the lookup
// finds nothing (no node:http; Node before 20.16), nothing is recognised and
// the Request is read as on any fetch runtime: correct, only slower.

import type { IncomingLike as DrainableIncoming, OutgoingLike } from "./drain.js";

/** The members of node's IncomingMessage the fetch adapter reads. */
export interface NodeIncoming extends DrainableIncoming {
  /** The request target as sent. */
  readonly url?: string;
  /** The connection, where the server listens (for `allowedHosts`) and what a stalled answer closes. */
  readonly socket: unknown;
}

/** Node's request and response under a fetch Request, as @hono/node-server gives them. */
export interface NodePair {
  readonly incoming: NodeIncoming;
  readonly outgoing: OutgoingLike;
}

type Class = abstract new (...args: never[]) => unknown;

/** node:http's two classes; `null` once looked up and not there. Looked up on first need only. */
let nodeClasses: { readonly request: Class; readonly response: Class } | null | undefined;

function classes(): { readonly request: Class; readonly response: Class } | null {
  if (nodeClasses !== undefined) return nodeClasses;
  nodeClasses = null;
  try {
    const process = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process;
    const http = process?.getBuiltinModule?.("node:http") as { IncomingMessage?: unknown; ServerResponse?: unknown } | undefined;
    if (typeof http?.IncomingMessage === "function" && typeof http.ServerResponse === "function") {
      nodeClasses = { request: http.IncomingMessage as Class, response: http.ServerResponse as Class };
    }
  } catch {
    // A runtime whose getBuiltinModule refuses node:http has no node request to find.
  }
  return nodeClasses;
}

/**
 * Node's request and response when `native` is a Hono context served by
 * @hono/node-server: `c.env.incoming` an instance of node:http's
 * IncomingMessage and `c.env.outgoing` one of its ServerResponse. Otherwise
 * (Workers, Bun, Deno, an HTTP/2 server, anything not Hono) undefined.
 */
export function honoNodePair(native: unknown): NodePair | undefined {
  const env = (native as { env?: { incoming?: unknown; outgoing?: unknown } } | null | undefined)?.env;
  // Most hosts have no such binding: they never look node:http up.
  if (env === null || typeof env !== "object" || typeof env.incoming !== "object" || env.incoming === null) return undefined;
  const node = classes();
  if (node === null || !(env.incoming instanceof node.request) || !(env.outgoing instanceof node.response)) return undefined;
  return { incoming: env.incoming as NodeIncoming, outgoing: env.outgoing as OutgoingLike };
}
