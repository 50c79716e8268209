// The headers of a JSON-RPC POST's answer, from the several steps that set
// them: the context factory's first call under the answer's own, and the
// headers of a batch's requests combined.
import type { ResponseHeaders, UniversalServerResponse } from "../server/request.js";

/**
 * `res` with `early` (the headers the factory's first call set) under its
 * own: a header the answer has wins; Set-Cookie values of both are kept.
 */
export function underneath(res: UniversalServerResponse, early: Headers | undefined): UniversalServerResponse {
  if (early === undefined) return res;
  const headers: ResponseHeaders = { ...res.headers };
  early.forEach((value, name) => {
    // The adapters frame the body (see withHandlerHeaders).
    if (name === "set-cookie" || name === "content-length" || name === "transfer-encoding" || name in headers) return;
    headers[name] = value;
  });
  const cookies = early.getSetCookie();
  if (cookies.length > 0) {
    const own = headers["set-cookie"];
    headers["set-cookie"] = [...cookies, ...(own === undefined ? [] : Array.isArray(own) ? own : [own])];
  }
  return { ...res, headers };
}

/** `b` over `a` (either may be missing); Set-Cookie values of both are kept. */
export function combine(a: Headers | undefined, b: Headers | undefined): Headers | undefined {
  if (a === undefined || b === undefined) return a ?? b;
  const out = new Headers(a);
  b.forEach((value, name) => {
    if (name !== "set-cookie") out.set(name, value);
  });
  for (const cookie of b.getSetCookie()) out.append("set-cookie", cookie);
  return out;
}
