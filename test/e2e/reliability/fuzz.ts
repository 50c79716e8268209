// Random whole requests (fast-check) sent as raw bytes to the three adapters
// of one service at once, and the properties every answer must have.
import { toJson, type DescMessage, type JsonValue } from "@bufbuild/protobuf";
import fc from "fast-check";
import type { HandlerContext, RouteBinding } from "a2a-http";
import { frameworks, start, type Framework, type Running } from "../../runtime/server/harness.js";
import { rawRequest, type RawResponse } from "../../runtime/server/raw.js";

export interface FuzzRequest {
  readonly method: string;
  /** The request target below the mount point, as sent. */
  readonly target: string;
  readonly headers: readonly (readonly [string, string])[];
  /** The body bytes (a string is sent as UTF-8). */
  readonly body: string | Uint8Array;
}

// ---------------------------------------------------------------- arbitraries

const hex = "0123456789abcdefABCDEF";
/** Path segment text: plain, escaped, unicode, colons, dots, junk escapes, long. */
const segment: fc.Arbitrary<string> = fc.oneof(
  { weight: 5, arbitrary: fc.stringMatching(/^[a-zA-Z0-9_-]{1,12}$/) },
  { weight: 3, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 10 }).map(encodeURIComponent) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      ".",
      "..",
      "%2e",
      "%2E%2e",
      ".%2e",
      "...",
      ".a",
      "a.",
      "%2F",
      "a%2Fb",
      "%252F",
      "a:b",
      ":x",
      "x:",
      "a:cancel",
      ":",
      "%3A",
      "~",
      "+",
      "a+b",
      "%20",
      "*",
      "**",
      "tasks",
      "v1",
      "shelves",
      "books",
      "files",
      "message:send",
    ),
  },
  {
    weight: 2,
    arbitrary: fc
      .tuple(
        fc.stringMatching(/^[a-z]{0,3}$/),
        fc.constantFrom("%", "%z", "%zz", "%f", "%ff", "%c3", "%c3%28", "%e2%82", "%00", "%ed%a0%80", "%f4%90%80%80"),
        fc.stringMatching(/^[a-z]{0,3}$/),
      )
      .map(([a, b, c]) => a + b + c),
  },
  { weight: 1, arbitrary: fc.constantFrom(...hex.split("")).chain((c) => fc.integer({ min: 200, max: 12_000 }).map((n) => c.repeat(n))) },
  { weight: 1, arbitrary: fc.constantFrom("!", "$", "&", "'", "(", ")", ",", ";", "=", "@", "[", "]", "{x}", "|", "^", "`") },
);

/** A path built along one of the service's templates (most of the time) or from random segments. */
const varSegment = fc.oneof({ weight: 4, arbitrary: fc.stringMatching(/^[a-z0-9]{1,8}$/) }, { weight: 3, arbitrary: segment });
const multiSegment = fc.array(segment, { minLength: 0, maxLength: 4 }).map((a) => a.join("/"));

function pathFor(routes: readonly RouteBinding[]): fc.Arbitrary<string> {
  // Built once per route: building arbitraries per sample (fc.chain) is slow.
  const perRoute = routes.map((r) => {
    const segs = r.path.segments.map((s): fc.Arbitrary<string> => {
      if (s.kind === "literal") return fc.oneof({ weight: 8, arbitrary: fc.constant(s.value) }, { weight: 1, arbitrary: segment });
      if (s.kind === "*") return varSegment;
      return multiSegment;
    });
    const verb =
      r.path.verb === ""
        ? fc.constant("")
        : fc.oneof({ weight: 6, arbitrary: fc.constant(":" + r.path.verb) }, { weight: 1, arbitrary: segment.map((s) => ":" + s) });
    return fc.tuple(fc.tuple(...segs), verb, fc.constantFrom("", "", "", "/", "//")).map(([parts, v, tail]) => {
      const p = "/" + parts.filter((x) => x !== "").join("/") + v;
      return p + tail;
    });
  });
  const templated = fc.oneof(...perRoute);
  const random = fc.array(segment, { minLength: 0, maxLength: 6 }).map((a) => "/" + a.join("/"));
  return fc.oneof({ weight: 6, arbitrary: templated }, { weight: 1, arbitrary: random });
}

/** Query parameter names the input messages have (JSON and proto names, dotted into messages). */
function paramNames(message: DescMessage, prefix = "", depth = 0, out = new Set<string>()): Set<string> {
  for (const f of message.fields) {
    for (const n of new Set([f.jsonName, f.name])) {
      out.add(prefix + n);
      if (f.fieldKind === "message" && depth < 2 && !f.message.typeName.startsWith("google.protobuf.")) {
        paramNames(f.message, prefix + n + ".", depth + 1, out);
      }
    }
  }
  return out;
}

const queryValue: fc.Arbitrary<string> = fc.oneof(
  fc.integer().map(String),
  fc.constantFrom(
    "true",
    "false",
    "1",
    "0",
    "-0",
    "1e400",
    "NaN",
    "Infinity",
    "-1",
    "18446744073709551616",
    "9223372036854775808",
    "0x10",
    "1.5",
    "",
    "TASK_STATE_WORKING",
    "2",
    "2024-01-01T00:00:00Z",
    "2024-13-01T00:00:00Z",
    "3.5s",
    "1,2,3",
    "a,b",
    "AAEC",
    "AAEC-_",
    "%%%",
    "null",
  ),
  fc.string({ unit: "grapheme", maxLength: 12 }).map(encodeURIComponent),
  fc.stringMatching(/^[!$&'()*+,;=:@/?a-zA-Z0-9._~-]{0,8}$/),
);

function queryFor(routes: readonly RouteBinding[]): fc.Arbitrary<string> {
  const names = [...new Set(routes.flatMap((r) => [...paramNames(r.input)]))].sort();
  const param = fc
    .tuple(
      fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...names, "A2A-Version", "a2a-version") },
        { weight: 1, arbitrary: fc.stringMatching(/^[a-zA-Z0-9._%-]{0,6}$/) },
      ),
      queryValue,
    )
    .map(([k, v]) => `${k}=${v}`);
  return fc.oneof(
    { weight: 4, arbitrary: fc.constant("") },
    { weight: 4, arbitrary: fc.array(param, { minLength: 1, maxLength: 6 }).map((a) => "?" + a.join("&")) },
    { weight: 1, arbitrary: fc.constantFrom("?", "?&&", "?=", "?a", "?%", "?%zz=1", "?a=%ff", "?#frag", "?a=1#b") },
  );
}

/** JSON text for a body: valid, near-valid and hostile. */
const jsonBody: fc.Arbitrary<string | Uint8Array> = fc.oneof<fc.MaybeWeightedArbitrary<string | Uint8Array>[]>(
  { weight: 3, arbitrary: fc.json({ maxDepth: 4 }) },
  {
    weight: 3,
    arbitrary: fc
      .dictionary(
        fc.constantFrom(
          "message",
          "id",
          "tenant",
          "configuration",
          "metadata",
          "book",
          "title",
          "destinationShelf",
          "pageSize",
          "name",
          "parent",
          "shelf",
          "taskId",
        ),
        fc.jsonValue({ maxDepth: 3 }),
      )
      .map((o) => JSON.stringify(o)),
  },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      "",
      " ",
      "null",
      "{}",
      "[]",
      '"x"',
      "1",
      "{",
      '{"message":',
      '{"a":1,"a":2}',
      '{"message":{},"message":{}}',
      '{"pageSize":1e400}',
      '{"pageSize":123456789012345678901234567890}',
      '{"__proto__":{"x":1}}',
      '{"constructor":{"prototype":{}}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}]}}',
      '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"hi"}],"metadata":{"k":[1,{"a":null}]}}}',
      "\uFEFF{}",
      "{}garbage",
      '{"title":"\\ud800"}',
    ),
  },
  {
    weight: 1,
    arbitrary: fc
      .integer({ min: 1_000, max: 100_000 })
      .map(
        (n) =>
          '{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"text":"x"}],"metadata":{"a":' + "[".repeat(n) + "]".repeat(n) + "}}}",
      ),
  },
  {
    weight: 1,
    arbitrary: fc.integer({ min: 1_000, max: 100_000 }).map((n) => '{"metadata":' + '{"a":'.repeat(n) + "1" + "}".repeat(n) + "}"),
  },
  // Invalid UTF-8 inside a string value.
  {
    weight: 1,
    arbitrary: fc
      .uint8Array({ minLength: 1, maxLength: 20 })
      .map((b) => Buffer.concat([Buffer.from('{"title":"'), Buffer.from(b.map((x) => x | 0x80)), Buffer.from('"}')])),
  },
);

const contentType: fc.Arbitrary<string | undefined> = fc.constantFrom(
  undefined,
  "application/json",
  "application/json; charset=utf-8",
  "APPLICATION/JSON",
  "application/a2a+json",
  "application/a2a+json;charset=UTF-8",
  "application/merge-patch+json",
  "text/plain",
  "",
  "application/json;;",
  ";",
  "multipart/form-data; boundary=x",
  "application/x-www-form-urlencoded",
  "application/jsonx",
  "*/*",
  "application/json, text/plain",
);

const a2aVersion: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant("1.0") },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      undefined,
      "1",
      "1.0.3",
      "v1.0",
      "0.3",
      "2.0",
      "",
      " 1.0 ",
      "1.0-rc1",
      "abc",
      "1.0, 1.0",
      "99999999999999999999.0",
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[ -~]{0,12}$/) },
);

const methodFor = (routes: readonly RouteBinding[]) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constantFrom(...new Set(routes.map((r) => (r.method === "*" ? "POST" : r.method)))) },
    {
      weight: 2,
      arbitrary: fc.constantFrom("GET", "POST", "PUT", "PATCH", "DELETE", "HEAD", "OPTIONS", "PROPFIND", "CHECKOUT", "TRACE", "PURGE"),
    },
  );

/** Whole requests for a service's route table. */
export function requestArbitrary(routes: readonly RouteBinding[]): fc.Arbitrary<FuzzRequest> {
  return fc
    .record({
      method: methodFor(routes),
      path: pathFor(routes),
      query: queryFor(routes),
      body: fc.option(jsonBody, { freq: 3, nil: undefined }),
      contentType,
      version: a2aVersion,
      extensions: fc.option(fc.constantFrom("urn:a, urn:b , urn:a", ",,,", "x".repeat(500)), { nil: undefined }),
    })
    .map(({ method, path, query, body, contentType, version, extensions }) => {
      const headers: [string, string][] = [];
      if (version !== undefined) headers.push(["A2A-Version", version]);
      if (extensions !== undefined) headers.push(["A2A-Extensions", extensions]);
      if (body !== undefined && contentType !== undefined) headers.push(["Content-Type", contentType]);
      // GET, HEAD and the like carry a body only now and then.
      const sendBody = body !== undefined && (method !== "GET" && method !== "HEAD" ? true : body.length % 7 === 0) ? body : "";
      return { method, target: path + query, headers, body: sendBody };
    });
}

// ---------------------------------------------------------------- servers and checks

/** One handler call, as the handler saw it. */
interface Seen {
  readonly rpc: string;
  readonly request: JsonValue;
}

export interface Fleet {
  readonly servers: Record<Framework, Running>;
  /** Handler calls of the request in flight, per framework. */
  readonly seen: Record<Framework, Seen[]>;
  close(): Promise<void>;
}

/** Starts the service on all three frameworks, with handlers that record their input and answer at once. */
export async function startFleet(kind: "a2a" | "library-none", routes: readonly RouteBinding[]): Promise<Fleet> {
  const seen = { express: [], fastify: [], hono: [] } as Record<Framework, Seen[]>;
  const servers = {} as Record<Framework, Running>;
  for (const fw of frameworks) {
    const handlers: Record<string, (req: never, ctx: HandlerContext) => unknown> = {};
    for (const r of routes) {
      const record = (req: never) => seen[fw].push({ rpc: r.rpc, request: toJson(r.input, req) });
      handlers[r.rpc] =
        r.streaming === "server"
          ? (req) => {
              record(req);
              return (async function* () {
                yield {};
              })();
            }
          : (req) => (record(req), {});
    }
    servers[fw] = await start(fw, { kind, handlers } as never, { onError: () => {}, bodyLimit: 256 * 1024 });
  }
  return {
    servers,
    seen,
    async close() {
      for (const fw of frameworks) await servers[fw].close();
    },
  };
}

export interface CaseResult {
  readonly statuses: Record<Framework, number>;
  /** Whether the adapters served it, or something in front of them answered. */
  readonly kind: "served" | "refused by node's HTTP parser" | "outside the mount";
  /** No answer within 1 s on the first try, one on the second. */
  readonly retried: boolean;
  /** What broke, empty when the case holds. */
  readonly failures: string[];
}

/** Sends one request to the three servers and checks every property on the answers. */
export async function checkCase(fleet: Fleet, req: FuzzRequest, prefix = "/api"): Promise<CaseResult> {
  const failures: string[] = [];
  const sendAll = async () => {
    const answers = {} as Record<Framework, RawResponse | Error>;
    await Promise.all(
      frameworks.map(async (fw) => {
        fleet.seen[fw].length = 0;
        const head = [`${req.method} ${prefix}${req.target} HTTP/1.1`, ...req.headers.map(([k, v]) => `${k}: ${v}`)];
        const bytes = typeof req.body === "string" ? Buffer.from(req.body) : req.body;
        if (bytes.length > 0) head.push(`Content-Length: ${bytes.length}`);
        try {
          // No hang: every answer within 1 s.
          answers[fw] = await rawRequest(fleet.servers[fw].origin, head.join("\r\n"), bytes, 1_000);
        } catch (e) {
          answers[fw] = e as Error;
        }
      }),
    );
    return answers;
  };
  let answers = await sendAll();
  // A request that hangs hangs again; one that met a stalled machine (a
  // shared CI box, say) is answered on a second try, which is counted.
  const retried = frameworks.some((fw) => answers[fw] instanceof Error);
  if (retried) answers = await sendAll();
  const statuses = {} as Record<Framework, number>;
  // A target whose dot segments climb out of the mount point never reaches
  // the adapter on Express and Fastify (their router sees the raw path) and
  // reaches Hono resolved: the frameworks' own routing, not ours.
  const outside = escapesMount(prefix + req.target, prefix);
  let parser = 0;
  for (const fw of frameworks) {
    const a = answers[fw];
    if (a instanceof Error) {
      failures.push(`${fw}: ${a.message}`);
      statuses[fw] = 0;
      continue;
    }
    statuses[fw] = a.status;
    if (a.status >= 500) failures.push(`${fw}: ${a.status} ${a.body.slice(0, 200)}`);
    const called = fleet.seen[fw].length > 0;
    // The handler runs exactly for the requests that succeed (it always answers).
    if (called !== (a.status === 200)) failures.push(`${fw}: handler ${called ? "called" : "not called"} but status ${a.status}`);
    if (nodeParserAnswer(fw, a, req)) parser++;
    else if (a.status >= 400 && req.method !== "HEAD" && !outside) {
      const problem = statusBodyProblem(a);
      if (problem) failures.push(`${fw}: ${a.status} ${problem}: ${a.body.slice(0, 200)}`);
    }
  }
  if (outside) return { statuses, failures, kind: "outside the mount", retried };
  const [first, ...rest] = frameworks;
  for (const fw of rest) {
    if (statuses[fw] !== statuses[first]) failures.push(`status differs: ${JSON.stringify(statuses)}`);
    const a = JSON.stringify(fleet.seen[fw]);
    const b = JSON.stringify(fleet.seen[first]);
    if (a !== b) failures.push(`handler input differs: ${first} ${b.slice(0, 200)} vs ${fw} ${a.slice(0, 200)}`);
  }
  return {
    statuses,
    failures: [...new Set(failures)],
    kind: parser === frameworks.length ? "refused by node's HTTP parser" : "served",
    retried,
  };
}

/** True when resolving the dot segments of `target` leaves `prefix`. */
function escapesMount(target: string, prefix: string): boolean {
  let path: string;
  try {
    path = new URL(target.split("?")[0]!, "http://h").pathname;
  } catch {
    return false;
  }
  return !(path === prefix || path.startsWith(prefix + "/"));
}

/**
 * Answers no adapter wrote: node's HTTP parser refuses a request line or
 * headers it cannot parse (400, 414, 431, a bare body; Fastify's clientError
 * handler words it in its own JSON), and @hono/node-server refuses a
 * backslash in the target with a bare 400 before Hono runs.
 */
function nodeParserAnswer(fw: Framework, a: RawResponse, req: FuzzRequest): boolean {
  if (a.status !== 400 && a.status !== 414 && a.status !== 431) return false;
  if (fw === "fastify") return /^\{"error":"[^"]*","message":"[^"]*","statusCode":\d+\}$/.test(a.body);
  void req;
  return a.body === "" && a.headers["content-type"] === undefined;
}

function statusBodyProblem(a: RawResponse): string | undefined {
  if (!/json/.test(a.headers["content-type"] ?? "")) return `content-type ${a.headers["content-type"]}`;
  let body: { error?: { code?: unknown; status?: unknown; message?: unknown; details?: unknown } };
  try {
    body = JSON.parse(a.body) as typeof body;
  } catch {
    return "body is not JSON";
  }
  const e = body.error;
  if (!e || e.code !== a.status || typeof e.status !== "string" || typeof e.message !== "string" || !Array.isArray(e.details)) {
    return "body is not a google.rpc.Status";
  }
  return undefined;
}

/** Runs `cases` random requests (seeded) against a fleet; returns counts and the failures found. */
export async function fuzzFleet(
  fleet: Fleet,
  routes: readonly RouteBinding[],
  options: { cases: number; seed: number; timeLimitMs?: number },
): Promise<{
  cases: number;
  failures: { request: FuzzRequest; failures: string[] }[];
  byStatus: Record<number, number>;
  byKind: Record<string, number>;
}> {
  const samples = fc.sample(requestArbitrary(routes), { numRuns: options.cases, seed: options.seed });
  const failures: { request: FuzzRequest; failures: string[] }[] = [];
  const byStatus: Record<number, number> = {};
  const byKind: Record<string, number> = {};
  const deadline = options.timeLimitMs === undefined ? Infinity : Date.now() + options.timeLimitMs;
  let cases = 0;
  for (const req of samples) {
    if (Date.now() > deadline) break;
    const r = await checkCase(fleet, req);
    cases++;
    byStatus[r.statuses.express] = (byStatus[r.statuses.express] ?? 0) + 1;
    byKind[r.kind] = (byKind[r.kind] ?? 0) + 1;
    if (r.retried) byKind["answered on a second try"] = (byKind["answered on a second try"] ?? 0) + 1;
    if (r.failures.length > 0) failures.push({ request: req, failures: r.failures });
  }
  return { cases, failures, byStatus, byKind };
}
