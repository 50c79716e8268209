/**
 * Health endpoints for probes and load balancers, framework-free (no
 * `node:` import; the glue is in node.ts, fastify.ts and fetch.ts):
 *
 * - `GET /healthz`, liveness: 200 whenever the process answers HTTP at all;
 * - `GET /readyz`, readiness: 200 when the readiness function says so (an
 *   agent's `ready()`: its store answers, and its `close()` has not begun),
 *   else 503, so that a load balancer stops sending requests here.
 *
 * Both answer HEAD too, with `Cache-Control: no-store` and a small JSON body
 * (`{"status":"ok"}`, `{"status":"unavailable"}`). They are not A2A routes:
 * no `A2A-Version` is needed, no tenant is read, and the Host is not checked
 * (`allowedHosts` guards what a page could read through DNS rebinding; these
 * bodies say nothing, and a probe's Host is the pod's address, which a list
 * of public names would refuse). See docs/deployment.md, "Health".
 */

/** The paths served. */
export const HEALTH_PATHS = Object.freeze({ live: "/healthz", ready: "/readyz" });

/**
 * Whether the server should get requests now. May be async; a throw or a
 * rejection counts as not ready.
 */
export type Readiness = () => boolean | Promise<boolean>;

/** Options of the health handlers. */
export interface HealthOptions {
  /**
   * Readiness: usually the agent's `ready` (`{ ready: () => agent.ready() }`).
   * Default: ready whenever live.
   */
  readonly ready?: Readiness;
  /**
   * Past this many milliseconds without an answer from `ready`, /readyz
   * answers 503. Default 2 000 (a probe's own timeout is often 1 s: it gives
   * up first). 0: no bound.
   */
  readonly readyTimeoutMs?: number;
}

/** One answer of a health endpoint. */
export interface HealthAnswer {
  readonly status: 200 | 503;
  /** By lower-case name; shared between answers, so frozen. */
  readonly headers: Readonly<Record<string, string>>;
  /** "" for HEAD (its Content-Length is still the GET's). */
  readonly body: string;
}

/**
 * Answers one request, or undefined when its path is not a health path or
 * its method is neither GET nor HEAD (the caller routes it as usual).
 * `path` is the request's path, query and all (`/readyz?verbose` is /readyz).
 * Liveness answers at once; readiness when `ready` has.
 */
export type HealthResponder = (method: string, path: string) => HealthAnswer | Promise<HealthAnswer> | undefined;

/** The default bound on `ready`. */
export const DEFAULT_READY_TIMEOUT_MS = 2_000;

function answers(status: 200 | 503, text: string): { get: HealthAnswer; head: HealthAnswer } {
  const headers = Object.freeze({
    "content-type": "application/json",
    "cache-control": "no-store",
    "content-length": String(text.length),
  });
  return {
    get: Object.freeze({ status, headers, body: text }),
    head: Object.freeze({ status, headers, body: "" }),
  };
}

const OK = answers(200, '{"status":"ok"}');
const UNAVAILABLE = answers(503, '{"status":"unavailable"}');

/**
 * The framework-free core: answers GET and HEAD of /healthz and /readyz.
 * Throws a RangeError for a bad `readyTimeoutMs`.
 *
 *     const health = healthAnswer({ ready: () => agent.ready() });
 *     const a = health(request.method, url);  // undefined: not ours
 */
export function healthAnswer(options: HealthOptions = {}): HealthResponder {
  const ready = options.ready;
  const timeoutMs = options.readyTimeoutMs ?? DEFAULT_READY_TIMEOUT_MS;
  if (!Number.isSafeInteger(timeoutMs) || timeoutMs < 0) {
    throw new RangeError(`invalid readyTimeoutMs "${String(timeoutMs)}": please provide a whole number of milliseconds, 0 or more`);
  }
  return (method, path) => {
    const which = healthPath(path);
    if (which === undefined || (method !== "GET" && method !== "HEAD")) return undefined;
    const pick = (a: { get: HealthAnswer; head: HealthAnswer }) => (method === "HEAD" ? a.head : a.get);
    if (which === "live" || ready === undefined) return pick(OK);
    return isReady(ready, timeoutMs).then((yes) => pick(yes ? OK : UNAVAILABLE));
  };
}

/** Which health path `path` (with its query, if any) is, exactly: no trailing slash, no prefix. */
export function healthPath(path: string): "live" | "ready" | undefined {
  let end = path.indexOf("?");
  if (end < 0) end = path.length;
  // Only the two lengths are possible: most requests go without a comparison.
  if (end === 8 && path.startsWith(HEALTH_PATHS.live)) return "live";
  if (end === 7 && path.startsWith(HEALTH_PATHS.ready)) return "ready";
  return undefined;
}

async function isReady(ready: Readiness, timeoutMs: number): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  try {
    const answer = ready();
    if (typeof answer === "boolean") return answer;
    if (timeoutMs === 0) return (await answer) === true;
    const late = new Promise<false>((resolve) => {
      timer = setTimeout(() => resolve(false), timeoutMs);
    });
    return (await Promise.race([answer, late])) === true;
  } catch {
    return false;
  } finally {
    clearTimeout(timer);
  }
}
