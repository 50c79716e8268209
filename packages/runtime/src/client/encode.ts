/**
 * Percent-encoding for path variables and query strings (design.md "HttpRule
 * semantics", client encoding): every byte except `[-_.~0-9a-zA-Z]` is
 * escaped, as UTF-8. `encodeURIComponent` leaves `!'()*`, so those are
 * escaped on top.
 */

const extra = /[!'()*]/g;
const escapeExtra = (c: string) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`;

/** Escapes one path segment or query component. Throws URIError on a lone surrogate. */
export function escapeComponent(value: string): string {
  const e = encodeURIComponent(value);
  return /[!'()*]/.test(e) ? e.replace(extra, escapeExtra) : e;
}

/** Escapes a multi-segment value: like {@link escapeComponent}, but keeps "/". */
export function escapeMultiSegment(value: string): string {
  return value.split("/").map(escapeComponent).join("/");
}
