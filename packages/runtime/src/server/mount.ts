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
