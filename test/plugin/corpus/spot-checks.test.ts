// Spot checks against real googleapis rules: for each, the row of the
// generated route table, what the server routes a request to (and the request
// message the handler gets), and the URL the client builds.
//
// The server and the client run on route rows read from the same descriptors
// the plugin reads (the generated table holds the same data; its text is
// checked too), since the generated modules would need protoc-gen-es's output
// on disk to import.
import { create, createFileRegistry, toJson } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { beforeAll, describe, expect, test } from "vitest";
import { createFetchHandler, createRouteClient, type RouteBinding } from "a2a-http";
import { readServiceRoutes } from "../../../packages/plugin/src/httprule/service.js";
import { buildSet, generatePackage, SetIndex } from "./corpus.js";

const files = [
  "google/longrunning/operations.proto",
  "google/cloud/secretmanager/v1/service.proto",
  "google/api/serviceusage/v1/serviceusage.proto",
];

let index: SetIndex;
let registry: ReturnType<typeof createFileRegistry>;
beforeAll(() => {
  index = new SetIndex(buildSet(files));
  registry = createFileRegistry(create(FileDescriptorSetSchema, { file: index.closure(files) }));
}, 120_000);

/** The service's route rows, as the generated `<Service>Routes` table lists them. */
function rows(service: string): RouteBinding[] {
  const svc = registry.getService(service);
  if (!svc) throw new Error(`no service ${service}`);
  return readServiceRoutes(svc).bindings.map((b) => ({
    rpc: b.rpc.localName,
    descriptor: b.rpc,
    method: b.method,
    template: b.path.template,
    path: b.path,
    body: b.body,
    responseBody: b.responseBody,
    streaming: b.rpc.methodKind === "server_streaming" ? "server" : "unary",
    input: b.rpc.input,
    output: b.rpc.output,
    binding: b.additional ? "additional" : "primary",
  }));
}

/** The generated route table's text for a file. */
function routeFile(protoFile: string, pkg: string): string {
  const res = generatePackage(index, { name: pkg, files: [protoFile] });
  expect(res.error).toBeUndefined();
  return res.files.find((f) => f.name === protoFile.replace(/\.proto$/, "_http.ts"))!.content;
}

/** The row of the generated table for an rpc and template, as printed. */
function printedRow(content: string, rpc: string, template: string): string {
  const at = content.indexOf(`    rpc: ${JSON.stringify(rpc)},\n    descriptor: `);
  let from = at;
  while (from >= 0) {
    const end = content.indexOf("\n  },", from);
    const row = content.slice(from, end);
    if (row.includes(`    template: ${JSON.stringify(template)},`)) return row;
    from = content.indexOf(`    rpc: ${JSON.stringify(rpc)},\n    descriptor: `, end);
  }
  throw new Error(`no row for ${rpc} ${template}`);
}

/** Serves one request over the rows; returns the rpc the handler ran for and the request it got, as JSON. */
async function serve(service: string, method: string, url: string, body?: string) {
  let seen: { rpc: string; request: unknown } | undefined;
  const routes = rows(service);
  const handlers = Object.fromEntries(
    routes.map((r) => [
      r.rpc,
      (req: Parameters<typeof toJson>[1]) => {
        seen = { rpc: r.rpc, request: toJson(r.input, req) };
        return {};
      },
    ]),
  );
  const init: RequestInit = { method };
  if (body !== undefined) {
    init.body = body;
    init.headers = { "content-type": "application/json" };
  }
  const res = await createFetchHandler(routes, handlers)(new Request("http://127.0.0.1" + url, init));
  return { status: res.status, seen };
}

/** Calls one rpc with the client; returns the method, URL (after the base) and body it sent. */
async function call(service: string, rpc: string, request: Record<string, unknown>) {
  let sent: { method: string; url: string; body: string | undefined } | undefined;
  const client = createRouteClient<Record<string, (r: unknown) => Promise<unknown>>>(rows(service), {
    baseUrl: "http://api.test",
    fetch: async (url, init) => {
      sent = { method: init!.method!, url: String(url).slice("http://api.test".length), body: init!.body as string | undefined };
      return new Response("{}", { status: 200, headers: { "content-type": "application/json" } });
    },
  });
  await client[rpc]!(request);
  return sent!;
}

describe("google.longrunning.Operations: /v1/{name=operations/**}", () => {
  test("route table rows", () => {
    const content = routeFile("google/longrunning/operations.proto", "google.longrunning");
    const row = printedRow(content, "getOperation", "/v1/{name=operations/**}");
    expect(row).toContain('    method: "GET",');
    expect(row).toContain(
      '    path: { template: "/v1/{name=operations/**}", segments: [{ kind: "literal", value: "v1" }, { kind: "literal", value: "operations" }, { kind: "**" }], verb: "", variables: [{ fieldPath: ["name"], start: 1, end: 3, multiSegment: true }] },',
    );
    expect(printedRow(content, "cancelOperation", "/v1/{name=operations/**}:cancel")).toContain('    body: "*",');
  });

  test("server: ** takes the rest of the path, keeping its slashes; the bare collection is ListOperations", async () => {
    expect(await serve("google.longrunning.Operations", "GET", "/v1/operations/us/op-1")).toEqual({
      status: 200,
      seen: { rpc: "getOperation", request: { name: "operations/us/op-1" } },
    });
    expect(await serve("google.longrunning.Operations", "GET", "/v1/operations?filter=done%3Dtrue&pageSize=5")).toEqual({
      status: 200,
      seen: { rpc: "listOperations", request: { name: "operations", filter: "done=true", pageSize: 5 } },
    });
    expect(await serve("google.longrunning.Operations", "POST", "/v1/operations/a/b:cancel", "{}")).toEqual({
      status: 200,
      seen: { rpc: "cancelOperation", request: { name: "operations/a/b" } },
    });
    expect((await serve("google.longrunning.Operations", "DELETE", "/v1/operations/a%2Fb/c")).seen).toEqual({
      rpc: "deleteOperation",
      request: { name: "operations/a%2Fb/c" },
    });
    expect((await serve("google.longrunning.Operations", "PUT", "/v1/operations/a")).status).toBe(405);
  });

  test("client URLs", async () => {
    expect(await call("google.longrunning.Operations", "getOperation", { name: "operations/us/op 1" })).toEqual({
      method: "GET",
      url: "/v1/operations/us/op%201",
      body: undefined,
    });
    expect(await call("google.longrunning.Operations", "cancelOperation", { name: "operations/op-1" })).toEqual({
      method: "POST",
      url: "/v1/operations/op-1:cancel",
      body: "{}",
    });
    expect(await call("google.longrunning.Operations", "listOperations", { name: "operations", pageSize: 5 })).toEqual({
      method: "GET",
      url: "/v1/operations?pageSize=5",
      body: undefined,
    });
  });
});

describe('Secret Manager: a projects/*/locations/* resource in an additional binding, and an update with body: "secret"', () => {
  const svc = "google.cloud.secretmanager.v1.SecretManagerService";

  test("route table rows", () => {
    const content = routeFile("google/cloud/secretmanager/v1/service.proto", "google.cloud.secretmanager.v1");
    expect(printedRow(content, "getSecret", "/v1/{name=projects/*/secrets/*}")).toContain('    binding: "primary",');
    expect(printedRow(content, "getSecret", "/v1/{name=projects/*/locations/*/secrets/*}")).toContain('    binding: "additional",');
    const update = printedRow(content, "updateSecret", "/v1/{secret.name=projects/*/secrets/*}");
    expect(update).toContain('    method: "PATCH",');
    expect(update).toContain('    body: "secret",');
    expect(update).toContain('variables: [{ fieldPath: ["secret", "name"], start: 1, end: 5, multiSegment: true }]');
  });

  test("server: the primary and the additional binding reach GetSecret", async () => {
    expect((await serve(svc, "GET", "/v1/projects/p/secrets/s")).seen).toEqual({
      rpc: "getSecret",
      request: { name: "projects/p/secrets/s" },
    });
    expect((await serve(svc, "GET", "/v1/projects/p/locations/eu/secrets/s")).seen).toEqual({
      rpc: "getSecret",
      request: { name: "projects/p/locations/eu/secrets/s" },
    });
    expect((await serve(svc, "GET", "/v1/projects/p/regions/eu/secrets/s")).status).toBe(404);
  });

  test("server: the update takes the secret from the body, its name from the path, update_mask from the query", async () => {
    const res = await serve(svc, "PATCH", "/v1/projects/p/secrets/s?updateMask=labels,annotations", '{"labels":{"env":"prod"}}');
    expect(res).toEqual({
      status: 200,
      seen: {
        rpc: "updateSecret",
        request: { secret: { name: "projects/p/secrets/s", labels: { env: "prod" } }, updateMask: "labels,annotations" },
      },
    });
  });

  test("client: the binding whose pattern the name matches; the update's mask in the query", async () => {
    expect((await call(svc, "getSecret", { name: "projects/p/secrets/s" })).url).toBe("/v1/projects/p/secrets/s");
    expect((await call(svc, "getSecret", { name: "projects/p/locations/eu/secrets/s" })).url).toBe("/v1/projects/p/locations/eu/secrets/s");
    expect(
      await call(svc, "updateSecret", {
        secret: { name: "projects/p/locations/eu/secrets/s", labels: { env: "prod" } },
        updateMask: { paths: ["labels", "version_aliases"] },
      }),
    ).toEqual({
      method: "PATCH",
      url: "/v1/projects/p/locations/eu/secrets/s?updateMask=labels%2CversionAliases",
      body: '{"labels":{"env":"prod"}}',
    });
  });
});

describe("Service Usage: a :batchGet verb with a repeated query parameter", () => {
  const svc = "google.api.serviceusage.v1.ServiceUsage";

  test("route table row", () => {
    const content = routeFile("google/api/serviceusage/v1/serviceusage.proto", "google.api.serviceusage.v1");
    const row = printedRow(content, "batchGetServices", "/v1/{parent=*/*}/services:batchGet");
    expect(row).toContain('    method: "GET",');
    expect(row).toContain('verb: "batchGet"');
  });

  test("server: the verb picks BatchGetServices over GetService's {name=*/*/services/*}", async () => {
    expect(
      (await serve(svc, "GET", "/v1/projects/p/services:batchGet?names=projects/p/services/a&names=projects/p/services/b")).seen,
    ).toEqual({
      rpc: "batchGetServices",
      request: { parent: "projects/p", names: ["projects/p/services/a", "projects/p/services/b"] },
    });
    expect((await serve(svc, "GET", "/v1/projects/p/services/a")).seen).toEqual({
      rpc: "getService",
      request: { name: "projects/p/services/a" },
    });
  });

  test("client URL", async () => {
    expect(
      await call(svc, "batchGetServices", { parent: "projects/p", names: ["projects/p/services/a", "projects/p/services/b"] }),
    ).toEqual({
      method: "GET",
      url: "/v1/projects/p/services:batchGet?names=projects%2Fp%2Fservices%2Fa&names=projects%2Fp%2Fservices%2Fb",
      body: undefined,
    });
  });
});
