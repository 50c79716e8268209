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
  for (const b of routes) if (!seen.has(b.rpc)) seen.set(b.rpc, { rpc: b.rpc, input: b.input, output: b.output, streaming: b.streaming === "server" });
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
