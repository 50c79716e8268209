// Redirects, followed by the client itself rather than by fetch: fetch's
// `redirect: "follow"` sends every header (X-API-Key, Authorization, whatever
// the client's auth adds) to wherever a Location points, and 307/308 send the
// message body along, to another host or to a metadata address alike. Here a
// redirect to another origin is refused unless the caller allows it, and
// credentials never leave the origin of the call.
import { A2A_EXTENSIONS_HEADER, A2A_VERSION_HEADER } from "../a2a.js";
import { Code, RpcError } from "../errors.js";

/**
 * Which redirects a client follows (ClientOptions `redirects`):
 * - `"same-origin"` (the default): those to the origin of the call (scheme,
 *   host and port alike); one to any other origin fails the call;
 * - `"none"`: none; any redirect fails the call;
 * - a function: same-origin ones, and those to another origin for which it
 *   returns true. Those go without the call's credentials: only the headers
 *   the protocol needs (Accept, Content-Type, A2A-Version, A2A-Extensions)
 *   cross; a 307/308 re-sends the body, which the function agrees to.
 */
export type RedirectPolicy = "same-origin" | "none" | ((target: URL, from: URL) => boolean);

/** At most this many redirects per call (fetch allows 20; an agent needs one or two). */
export const MAX_REDIRECTS = 5;

/** The headers that may go to another origin: the protocol's, never a credential. */
const CROSS_ORIGIN_HEADERS: ReadonlySet<string> = new Set(
  ["accept", "content-type", A2A_VERSION_HEADER, A2A_EXTENSIONS_HEADER].map((h) => h.toLowerCase()),
);

const REDIRECTS: ReadonlySet<number> = new Set([301, 302, 303, 307, 308]);

function refused(status: number, message: string): RpcError {
  return new RpcError(Code.FAILED_PRECONDITION, message, [], { httpStatus: status });
}

/**
 * `fetchFn(url, init)` with redirects followed by `policy` (see
 * {@link RedirectPolicy}). The answer to the last hop is returned as it is;
 * a redirect that the policy refuses throws RpcError FAILED_PRECONDITION
 * whose `httpStatus` is the redirect's status and whose message names both
 * origins.
 */
export async function fetchFollowing(
  fetchFn: typeof globalThis.fetch,
  url: string,
  init: RequestInit,
  policy: RedirectPolicy = "same-origin",
): Promise<Response> {
  const origin = new URL(url).origin;
  let current = url;
  let method = (init.method ?? "GET").toUpperCase();
  let body = init.body;
  let headers: HeadersInit | undefined = init.headers;
  let crossed = false;
  for (let hop = 0; ; hop++) {
    const res = await fetchFn(current, { ...init, method, headers, body, redirect: "manual" } as RequestInit);
    // A browser hides a redirect it did not follow: there is nothing to follow safely then.
    if (res.type === "opaqueredirect") {
      throw refused(
        0,
        `${current} answered with a redirect that this fetch hides (a browser's redirect: "manual"); call the URL it redirects to`,
      );
    }
    if (!REDIRECTS.has(res.status)) return res;
    const location = res.headers.get("location");
    if (location === null) return res; // not a redirect after all: an answer of its own
    await res.body?.cancel().catch(() => {});
    let target: URL;
    try {
      target = new URL(location, current);
    } catch {
      throw refused(res.status, `${current} redirected (${res.status}) to ${JSON.stringify(location)}, which is not a URL`);
    }
    const from = new URL(current);
    if (policy === "none") {
      throw refused(
        res.status,
        `${current} redirected (${res.status}) to ${target.href}; this client follows no redirects (option redirects: "none")`,
      );
    }
    if (hop >= MAX_REDIRECTS) throw refused(res.status, `more than ${MAX_REDIRECTS} redirects from ${url}`);
    if (target.protocol !== "http:" && target.protocol !== "https:") {
      throw refused(res.status, `${current} redirected (${res.status}) to ${target.href}; only http and https are followed`);
    }
    if (target.origin !== origin) {
      if (policy === "same-origin" || !policy(target, from)) {
        throw refused(
          res.status,
          `${current} redirected (${res.status}) to another origin, ${target.origin}; refused (the client follows redirects within ${origin} only: allow others with the option redirects)`,
        );
      }
      crossed = true;
    }
    // Once the call has left its origin, its credentials stay behind for good.
    if (crossed) headers = protocolHeaders(headers);
    // 303, and 301/302 of a POST, turn into a GET without a body (as fetch does); 307/308 keep both.
    if (res.status === 303 || ((res.status === 301 || res.status === 302) && method === "POST")) {
      if (method !== "HEAD") method = "GET";
      body = undefined;
      const h = new Headers(headers);
      h.delete("content-type");
      headers = h;
    }
    current = target.href;
  }
}

function protocolHeaders(headers: HeadersInit | undefined): Headers {
  const out = new Headers();
  new Headers(headers).forEach((value, name) => {
    if (CROSS_ORIGIN_HEADERS.has(name)) out.set(name, value);
  });
  return out;
}
