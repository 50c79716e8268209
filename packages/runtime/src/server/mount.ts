/** Segments before the wildcard, by route pattern: computed once, used on every request. */
const mountDepth = new Map<string, number>();

/**
 * Drops the mount point from a raw URL, given the framework's route pattern
 * that matched (`/a2a/*`, `/:org/api/*`, `/*`): as many leading path segments
 * as the pattern has before its final wildcard. Works on the raw text, so
 * escapes are left for the router.
 */
export function stripMountSegments(rawUrl: string, routePattern: string): string {
  let count = mountDepth.get(routePattern);
  if (count === undefined) {
    const prefix = routePattern.endsWith("*") ? routePattern.slice(0, -1) : routePattern;
    count = prefix.split("/").filter((s) => s !== "").length;
    // An app has a handful of mount patterns; the bound only guards against misuse.
    if (mountDepth.size < 256) mountDepth.set(routePattern, count);
  }
  if (count === 0) return rawUrl;
  let i = 0;
  for (let seen = 0; seen < count; seen++) {
    if (rawUrl.charCodeAt(i) !== 47 /* "/" */) return rawUrl;
    let j = i + 1;
    while (j < rawUrl.length && rawUrl[j] !== "/" && rawUrl[j] !== "?" && rawUrl[j] !== "#") j++;
    i = j;
  }
  const rest = rawUrl.slice(i);
  return rest === "" || rest[0] === "?" ? "/" + rest : rest;
}

/**
 * Why a raw request path cannot be routed, or undefined. A `.` or `..`
 * segment (also as `%2e`) is refused: RFC 3986 resolution removes them, so a
 * conforming client never sends one, and the hops in front of a server
 * disagree on what they mean (some resolve them, some pass them on), so no
 * answer but an error is the same everywhere. The client refuses them too.
 * A backslash is not a URI character, and some servers read it as `/`.
 * A malformed percent-escape (or one that is not UTF-8) is refused too.
 */
export function badPath(rawPath: string): string | undefined {
  if (rawPath.indexOf("\\") >= 0) return "the request path contains a backslash";
  // Checked before routing, so that an unrouted path with a bad escape is a
  // 400 as on a routed one (Fastify decodes every path before it routes).
  if (rawPath.indexOf("%") >= 0 && !decodes(rawPath)) return `malformed percent-escape in path ${JSON.stringify(rawPath)}`;
  if (rawPath.indexOf(".") < 0 && rawPath.indexOf("%2") < 0) return undefined;
  for (const seg of rawPath.split("/")) {
    if (seg.length > 6 || seg === "") continue;
    const s = seg.replace(/%2e/gi, ".");
    if (s === "." || s === "..") return `the request path has a "${seg}" segment; dot segments are not routed`;
  }
  return undefined;
}

/**
 * The origin-form of a request target: an absolute-form target
 * (`http://host/tasks/t1`, RFC 9112 §3.2.2, which a server must accept) loses
 * its scheme and authority.
 */
export function originPath(target: string): string {
  if (target.charCodeAt(0) === 47 /* "/" */) return target;
  const m = /^[a-zA-Z][a-zA-Z0-9+.-]*:\/\/[^/?#]*/.exec(target);
  if (m === null) return target;
  const rest = target.slice(m[0].length);
  return rest === "" || rest[0] !== "/" ? "/" + rest : rest;
}

function decodes(text: string): boolean {
  try {
    decodeURIComponent(text);
    return true;
  } catch {
    return false;
  }
}
