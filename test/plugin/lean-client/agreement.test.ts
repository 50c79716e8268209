// Property: the client generated with client=lean (gen/lean) does what the
// reflective client (gen/) does, for every rpc of a2a.proto, A2A v0.3 and the
// test protos (64-bit integers, floats, wrappers, Duration, FieldMask, maps,
// oneofs): the same HTTP request (method, URL with its query, JSON body) for a
// random request, given as a message or as an init shape with fields left out,
// over HTTP+JSON and JSON-RPC; and the same message, or an error of the same
// code, for a random answer, written by protobuf-es's toJson and then
// damaged at random (wrong types, nulls, proto names, numbers as strings,
// unknown enum names, bad timestamps, `__proto__` keys), unary and streamed.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { toJson, type DescMessage } from "@bufbuild/protobuf";
import { RpcError } from "../../../packages/runtime/src/errors.js";
import type { ClientOptions } from "../../../packages/runtime/src/client/index.js";
import type { RouteBinding } from "../../../packages/runtime/src/route-binding.js";
import { createA2AServiceClient as fullA2A } from "../../../gen/a2a_http_client.js";
import { createA2AServiceClient as leanA2A } from "../../../gen/lean/a2a_http_client.js";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { createA2AServiceClient as fullV03 } from "../../../gen/a2a-v0_3_http_client.js";
import { createA2AServiceClient as leanV03 } from "../../../gen/lean/a2a-v0_3_http_client.js";
import { A2AServiceRoutes as V03Routes } from "../../../gen/a2a-v0_3_http.js";
import { createLibraryServiceClient as fullLibrary } from "../../../gen/acme/library/v1/library_http_client.js";
import { createLibraryServiceClient as leanLibrary } from "../../../gen/lean/acme/library/v1/library_http_client.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { createHTTPEdgeServiceClient as fullEdge } from "../../../gen/acme/edge/v1/edge_http_client.js";
import { createHTTPEdgeServiceClient as leanEdge } from "../../../gen/lean/acme/edge/v1/edge_http_client.js";
import { HTTPEdgeServiceRoutes } from "../../../gen/acme/edge/v1/edge_http.js";
import { damage, initShape, message, outcome } from "../codec/arbitraries.js";

type Make = (options: ClientOptions) => unknown;
type Method = (request: unknown, options?: unknown) => Promise<unknown> | AsyncIterable<unknown>;

const services: { name: string; full: Make; lean: Make; routes: readonly RouteBinding[]; jsonrpc: boolean }[] = [
  { name: "lf.a2a.v1.A2AService", full: fullA2A, lean: leanA2A, routes: A2AServiceRoutes, jsonrpc: true },
  { name: "a2a.v1.A2AService (v0.3)", full: fullV03, lean: leanV03, routes: V03Routes, jsonrpc: true },
  { name: "acme.library.v1.LibraryService", full: fullLibrary, lean: leanLibrary, routes: LibraryServiceRoutes, jsonrpc: false },
  { name: "acme.edge.v1.HTTPEdgeService", full: fullEdge, lean: leanEdge, routes: HTTPEdgeServiceRoutes, jsonrpc: false },
];

const runs = Number(process.env.LEAN_CLIENT_RUNS ?? 30);

interface Sent {
  readonly method: string;
  readonly url: string;
  readonly body: unknown;
}

/** What a call did: the request it sent and its message, or the code of its error (the wording may differ). */
async function call(
  make: Make,
  rpc: string,
  streaming: boolean,
  request: unknown,
  answer: string,
  transport: "http+json" | "jsonrpc",
): Promise<{ sent: Sent[]; result: unknown }> {
  const sent: Sent[] = [];
  const fetch = async (input: RequestInfo | URL, init?: RequestInit) => {
    const body = typeof init?.body === "string" ? init.body : undefined;
    const parsed = body === undefined ? undefined : (JSON.parse(body) as Record<string, unknown>);
    // JSON-RPC ids count per client: the same for both clients' first call.
    sent.push({ method: init?.method ?? "GET", url: String(input), body: parsed });
    let text = answer;
    if (transport === "jsonrpc") text = `{"jsonrpc":"2.0","id":${JSON.stringify(parsed?.["id"] ?? null)},"result":${answer}}`;
    if (streaming) return new Response(`data: ${text}\n\n`, { headers: { "content-type": "text/event-stream" } });
    return new Response(text, { headers: { "content-type": "application/json" } });
  };
  const client = make({ baseUrl: "http://agent.test/a2a", fetch, transport, retry: false }) as Record<string, Method>;
  const result = await (async () => {
    try {
      if (!streaming) return { ok: await client[rpc]!(request) };
      const out: unknown[] = [];
      for await (const m of client[rpc]!(request) as AsyncIterable<unknown>) out.push(m);
      return { ok: out };
    } catch (e) {
      if (!(e instanceof RpcError)) throw e;
      return { code: e.code };
    }
  })();
  return { sent, result };
}

/** The rpcs of a route table: name, input and output, streaming. */
function rpcsOf(routes: readonly RouteBinding[]): { rpc: string; input: DescMessage; output: DescMessage; streaming: boolean }[] {
  const seen = new Map<string, { rpc: string; input: DescMessage; output: DescMessage; streaming: boolean }>();
  for (const b of routes)
    if (!seen.has(b.rpc)) seen.set(b.rpc, { rpc: b.rpc, input: b.input, output: b.output, streaming: b.streaming === "server" });
  return [...seen.values()];
}

/** A seeded generator for `damage` and `initShape`. */
function random(seed: number): () => number {
  let x = seed | 0 || 1;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 2 ** 32;
  };
}

for (const service of services) {
  describe(`client=lean agrees with the reflective client: ${service.name}`, () => {
    const transports = service.jsonrpc ? (["http+json", "jsonrpc"] as const) : (["http+json"] as const);
    for (const { rpc, input, output, streaming } of rpcsOf(service.routes)) {
      for (const transport of transports) {
        it(`${rpc} over ${transport}: the same request for any request message or init shape`, async () => {
          await fc.assert(
            fc.asyncProperty(message(input, 3), fc.integer(), fc.constantFrom(0, 0.2), async (msg, seed, partial) => {
              const request = partial === 0 ? msg : initShape(msg, random(seed), partial);
              const full = await call(service.full, rpc, streaming, request, "{}", transport);
              const lean = await call(service.lean, rpc, streaming, request, "{}", transport);
              expect(lean.sent).toEqual(full.sent);
              expect(lean.result).toEqual(full.result);
            }),
            { numRuns: runs },
          );
        });
        it(`${rpc} over ${transport}: the same message or error code for any answer, damaged or not`, async () => {
          // A request that fits the rpc's first binding, whatever its path variables.
          const request = requestFor(service.routes.find((b) => b.rpc === rpc)!);
          await fc.assert(
            fc.asyncProperty(message(output, 3), fc.integer(), fc.boolean(), async (msg, seed, damaged) => {
              const json = outcome(() => toJson(output, msg));
              if (!("ok" in json)) return;
              const answer = JSON.stringify(damaged ? damage(json.ok, random(seed), output) : json.ok);
              const full = await call(service.full, rpc, streaming, request, answer, transport);
              const lean = await call(service.lean, rpc, streaming, request, answer, transport);
              expect(lean.result).toEqual(full.result);
            }),
            { numRuns: runs },
          );
        });
      }
    }
  });
}

/** An init shape of the binding's input with each path variable set to a value its pattern takes. */
function requestFor(b: RouteBinding): Record<string, unknown> {
  const request: Record<string, unknown> = {};
  for (const v of b.path.variables) {
    const segments = b.path.segments.slice(v.start, v.end).map((s) => (s.kind === "literal" ? s.value : "x"));
    let at = request;
    v.fieldPath.forEach((name, i) => {
      const local = name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
      if (i === v.fieldPath.length - 1) at[local] = segments.join("/");
      else at = (at[local] ??= {}) as Record<string, unknown>;
    });
  }
  return request;
}

/**
 * Every valid ProtoJSON form the readers must take, one by one (the random
 * damage above reaches them only now and then), read by both clients from a
 * unary answer: nulls, proto names, numbers as strings and exponents, enum
 * numbers and unknown names (singular, repeated, in a oneof), 64-bit integers,
 * float specials, base64 of both alphabets, timestamps with offsets and
 * fractions, durations, field masks, wrappers, Struct and Value.
 */
describe("client=lean reads every valid ProtoJSON form as protobuf-es does", () => {
  const a2aTask = (json: unknown) => ({ service: services[0]!, rpc: "getTask", request: { id: "t" }, json });
  const book = (json: unknown) => ({
    service: services[2]!,
    rpc: "getBook",
    request: requestFor(LibraryServiceRoutes.find((b) => b.rpc === "getBook")!),
    json,
  });
  const cases: Record<string, { service: (typeof services)[number]; rpc: string; request: unknown; json: unknown }> = {
    "nulls everywhere": a2aTask({ id: null, contextId: "c", status: null, artifacts: null, history: null, metadata: null }),
    "proto names": a2aTask({
      context_id: "c",
      status: { state: "TASK_STATE_WORKING", message: { message_id: "m", reference_task_ids: ["a"] } },
    }),
    "the same field twice (JSON and proto name)": a2aTask({ contextId: "c", context_id: "d" }),
    "enum by number, and an unknown number": a2aTask({ status: { state: 3 } }),
    "enum: an unknown name (left unset)": a2aTask({ status: { state: "TASK_STATE_FROM_THE_FUTURE" } }),
    "enum: a float": a2aTask({ status: { state: 1.5 } }),
    "oneof: two members": a2aTask({ history: [{ parts: [{ text: "a", url: "b" }] }] }),
    "oneof: a null member and a set one": a2aTask({ history: [{ parts: [{ text: null, url: "b" }] }] }),
    "bytes: URL-safe base64 without padding": a2aTask({ history: [{ parts: [{ raw: "-_8" }] }] }),
    "bytes: standard base64 with padding": a2aTask({ history: [{ parts: [{ raw: "+/8=" }] }] }),
    "bytes: not base64": a2aTask({ history: [{ parts: [{ raw: "a*b" }] }] }),
    "Value: every kind": a2aTask({ history: [{ parts: [{ data: { a: [1, "x", true, null, { b: {} }] } }, { data: null }] }] }),
    "Struct with a __proto__ key": a2aTask({ metadata: JSON.parse('{"__proto__": {"x": 1}, "y": [null]}') }),
    "timestamp with an offset and a fraction": a2aTask({ status: { timestamp: "2026-12-07T10:00:00.123456+05:30" } }),
    "timestamp in year 1": a2aTask({ status: { timestamp: "0001-01-01T00:00:00Z" } }),
    "timestamp: February 30": a2aTask({ status: { timestamp: "2026-02-30T00:00:00Z" } }),
    "timestamp: lower-case t and z": a2aTask({ status: { timestamp: "2026-12-07t10:00:00z" } }),
    "int32 as a string and as an exponent": {
      service: services[0]!,
      rpc: "listTasks",
      request: {},
      json: { pageSize: "7", totalSize: 1e2 },
    },
    "int32 out of range": { service: services[0]!, rpc: "listTasks", request: {}, json: { pageSize: 2 ** 31 } },
    "int64 as number, string, exponent": book({ pages: 12, shelf: "s" }),
    "int64 as a string": book({ pages: "-9223372036854775808" }),
    "int64 out of range": book({ pages: "9223372036854775808" }),
    "int64 with a fraction": book({ pages: 1.5 }),
    "map with a __proto__ key": {
      service: services[0]!,
      rpc: "getExtendedAgentCard",
      request: {},
      json: { securitySchemes: JSON.parse('{"__proto__": {"apiKeySecurityScheme": {"name": "k"}}}') },
    },
    "map: a null value": { service: services[0]!, rpc: "getExtendedAgentCard", request: {}, json: { securitySchemes: { a: null } } },
    "a list with a null item": a2aTask({ artifacts: [null] }),
    "not an object": a2aTask([]),
  };
  for (const [name, c] of Object.entries(cases)) {
    it(name, async () => {
      const answer = JSON.stringify(c.json);
      const full = await call(c.service.full, c.rpc, false, c.request, answer, "http+json");
      const lean = await call(c.service.lean, c.rpc, false, c.request, answer, "http+json");
      expect(lean.result).toEqual(full.result);
    });
  }

  it("the library's numbers, wrappers, durations and field masks, as a request's query and as an answer", async () => {
    const listBooks = LibraryServiceRoutes.find((b) => b.rpc === "listBooks")!;
    const request = {
      ...requestFor(listBooks),
      maxPages: 18446744073709551615n,
      weight: Number.NaN,
      maxAge: { seconds: -3n, nanos: -500_000_000 },
      readMask: { paths: ["title", "author_name"] },
      minPages: 0,
      titlePrefix: "",
      hasCover: false,
      offset: -5n,
      ids: [1n, 2n],
    };
    const full = await call(services[2]!.full, "listBooks", false, request, "{}", "http+json");
    const lean = await call(services[2]!.lean, "listBooks", false, request, "{}", "http+json");
    expect(full.sent.length).toBe(1);
    expect(lean.sent).toEqual(full.sent);
  });
});
