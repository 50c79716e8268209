import { A2A_VERSION_HEADER } from "../a2a.js";
import type { ClientRoute } from "../route-binding.js";
import type { ClientOptions, ClientRequest } from "./options.js";

type HeaderEntries = [string, string][];

/** The headers an rpc's calls send unless the client's or the call's headers set them. */
export interface HeaderDefaults {
  /** The `A2A-Version` value in the A2A profile; undefined outside it. */
  readonly a2aVersion: string | undefined;
  readonly accept: string;
  /** Sent only with a body. */
  readonly contentType: string;
}

/**
 * A call's headers: the client's (a headers function is called on every
 * call), the defaults they leave unset, then the call's own over all of them.
 * Without a headers function or call headers, the result is worked out once
 * per rpc and kind of call and handed to fetch as entries.
 */
export type CallHeaders = (withBody: boolean, callHeaders: HeadersInit | undefined) => Headers | HeaderEntries | Promise<Headers>;

export function callHeaders(options: ClientOptions, defaults: HeaderDefaults): CallHeaders {
  const clientHeaders = options.headers;
  const withDefaults = (h: Headers, withBody: boolean): Headers => {
    if (defaults.a2aVersion !== undefined && !h.has(A2A_VERSION_HEADER)) h.set(A2A_VERSION_HEADER, defaults.a2aVersion);
    if (!h.has("Accept")) h.set("Accept", defaults.accept);
    if (withBody && !h.has("Content-Type")) h.set("Content-Type", defaults.contentType);
    return h;
  };
  const over = (h: Headers, more: HeadersInit | undefined): Headers => {
    if (more !== undefined) {
      new Headers(more).forEach((v, k) => {
        h.set(k, v);
      });
    }
    return h;
  };
  if (typeof clientHeaders === "function") {
    return async (withBody, perCall) => over(withDefaults(over(new Headers(), await clientHeaders()), withBody), perCall);
  }
  const entries = (withBody: boolean): HeaderEntries => {
    const list: HeaderEntries = [];
    withDefaults(new Headers(clientHeaders), withBody).forEach((v, k) => void list.push([k, v]));
    return list;
  };
  const withBody = entries(true);
  const withoutBody = entries(false);
  return (hasBody, perCall) => {
    const base = hasBody ? withBody : withoutBody;
    return perCall === undefined ? base : over(new Headers(base), perCall);
  };
}

/**
 * A {@link ClientRequest} whose `Headers` object is made only when someone
 * (an interceptor) looks at it; otherwise fetch gets the entries worked out
 * once per rpc, as a hand-written call would pass a plain object.
 */
export class OutgoingRequest implements ClientRequest {
  // Declared, set in the constructor in this order (own, enumerable, as parameter properties would make them): a
  // parameter property is written twice in a bundle, as a field and as its assignment.
  declare readonly rpc: string;
  declare readonly binding: ClientRoute;
  declare readonly streaming: boolean;
  declare method: string;
  declare url: string;
  declare private readonly init: Headers | HeaderEntries;
  declare body: string | undefined;
  declare signal: AbortSignal | undefined;
  declare private made: Headers | undefined;
  declare readonly headers: Headers;
  constructor(
    rpc: string,
    binding: ClientRoute,
    streaming: boolean,
    method: string,
    url: string,
    init: Headers | HeaderEntries,
    body: string | undefined,
  ) {
    Object.assign(this, {
      rpc,
      binding,
      streaming,
      method,
      url,
      init,
      body,
      signal: undefined,
      made: init instanceof Headers ? init : undefined,
    });
    // An own, enumerable accessor: `{ ...req }` in an interceptor copies the Headers.
    Object.defineProperty(this, "headers", { get: () => (this.made ??= new Headers(this.init)), enumerable: true });
  }
  /** What to hand to fetch: the Headers if made, else the shared entries. */
  headersInit(): HeadersInit {
    return this.made ?? this.init;
  }
}
