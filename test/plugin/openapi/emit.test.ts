// The OpenAPI emitter (openapi=true): snapshots of every document, a second
// run byte-identical, every document valid OpenAPI 3.1 (with its $refs
// resolved) by @seriousme/openapi-schema-validator, and the mapping rules
// checked one by one. Update snapshots on purpose with `npx vitest run test/openapi -u`.
import { join } from "node:path";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, test } from "vitest";
import { parse as parseYaml } from "yaml";
import { request, root, runPlugin, thrown } from "../core/helpers.js";
import { componentValidators, openApiCases, openApiDoc, openApiFilesOf, type Doc } from "./helpers.js";

const snapshots = join(root, "test", "plugin", "__snapshots__", "openapi");
const methods = ["get", "put", "post", "delete", "options", "head", "patch", "trace"];

function operations(doc: Doc): { method: string; path: string; op: Doc }[] {
  return Object.entries(doc["paths"] as Record<string, Doc>).flatMap(([path, item]) => [
    ...methods.filter((m) => item[m]).map((m) => ({ method: m, path, op: item[m] as Doc })),
    ...Object.entries((item["x-additionalOperations"] ?? {}) as Record<string, Doc>).map(([m, op]) => ({ method: m, path, op })),
  ]);
}

const op = (doc: Doc, id: string) => {
  const found = operations(doc).find((o) => o.op["operationId"] === id);
  if (!found) throw new Error(`no operation ${id}`);
  return found;
};

describe.each(openApiCases)("$name", ({ name, files, parameter }) => {
  const [file] = openApiFilesOf(files, parameter);
  const doc = JSON.parse(file!.content) as Doc;

  test("snapshot", async () => {
    expect(file!.name).toBe(files[0]!.replace(/\.proto$/, "_http.openapi.json"));
    await expect(file!.content).toMatchFileSnapshot(join(snapshots, name, file!.name));
  });

  test("deterministic: a second run is byte-identical", () => {
    expect(openApiFilesOf([...files].reverse(), parameter)).toEqual([file]);
  });

  test("valid OpenAPI 3.1, every $ref resolved", async () => {
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  test("every component compiles as JSON Schema 2020-12", () => {
    const validate = componentValidators(doc);
    for (const name of Object.keys(doc["components"].schemas)) {
      expect(() => validate(`#/components/schemas/${name}`, {})).not.toThrow();
    }
  });

  test("operation ids are unique", () => {
    const ids = operations(doc).map((o) => o.op["operationId"]);
    expect(new Set(ids).size).toBe(ids.length);
  });

  test("yaml on request: the same document", () => {
    const both = openApiFilesOf(files, parameter, "openapi=json,openapi=yaml");
    expect(both.map((f) => f.name)).toEqual([file!.name, file!.name.replace(/json$/, "yaml")]);
    expect(parseYaml(both[1]!.content)).toEqual(doc);
  });
});

describe("library.proto", () => {
  const doc = openApiDoc(["acme/library/v1/library.proto"], "target=ts");
  const schemas = doc["components"].schemas as Record<string, Doc>;

  test("every binding is an operation, additional bindings and custom methods included", () => {
    const listed = operations(doc).map((o) => `${o.method.toUpperCase()} ${o.path} ${o.op["operationId"]}`);
    expect(listed).toContain("GET /v1/files/{path} GetFile");
    expect(listed).toContain("GET /v1/shelves/{shelf}/files/{path}:raw GetFile_2");
    expect(listed).toContain("CHECKOUT /v1/{name} CheckoutBook");
    expect(listed).toContain("POST /v1/shelves/{shelf}:watch WatchShelf_2");
    // 13 bindings in the proto; the rpc without a rule is not listed.
    expect(listed).toHaveLength(13);
    expect(listed.join("\n")).not.toContain("Internal");
  });

  test("a multi-segment variable is one path parameter with its pattern", () => {
    const p = (op(doc, "GetBook").op["parameters"] as Doc[]).find((x) => x["in"] === "path")!;
    expect(p).toMatchObject({ name: "name", required: true, schema: { type: "string", pattern: "^shelves/[^/]+/books/[^/]+$" } });
    expect(new RegExp(p["schema"].pattern).test("shelves/1/books/2")).toBe(true);
    expect(new RegExp(p["schema"].pattern).test("shelves/1")).toBe(false);
    const file = (op(doc, "GetFile").op["parameters"] as Doc[]).find((x) => x["in"] === "path")!;
    expect(new RegExp(file["schema"].pattern).test("a/b/c.txt")).toBe(true);
  });

  test("a nested field path shares the key of the same shape and says which field it sets", () => {
    const update = op(doc, "UpdateBook");
    expect(update.path).toBe("/v1/{name}");
    expect((update.op["parameters"] as Doc[])[0]!["description"]).toMatch(/^Sets book\.name\./);
  });

  test('body: "field" is that field\'s schema; response_body answers that field', () => {
    expect(op(doc, "CreateBook").op["requestBody"].content["application/json"].schema).toEqual({
      $ref: "#/components/schemas/acme.library.v1.Book",
    });
    expect(op(doc, "RenameShelf").op["requestBody"].content["application/json"].schema).toEqual({ type: "string" });
    expect(op(doc, "GetShelfTitle").op["responses"]["200"].content["application/json"].schema).toEqual({ type: "string" });
  });

  test("query parameters for every field neither path nor body binds", () => {
    const names = (id: string) => (op(doc, id).op["parameters"] as Doc[]).filter((p) => p["in"] === "query").map((p) => p["name"]);
    expect(names("ListBooks")).toEqual(
      expect.arrayContaining(["pageSize", "pageToken", "filter.author", "filter.pages.min", "tags", "publishedAfter"]),
    );
    const tags = (op(doc, "ListBooks").op["parameters"] as Doc[]).find((p) => p["name"] === "tags")!;
    expect(tags).toMatchObject({ style: "form", explode: true, schema: { type: "array", items: { type: "string" } } });
    expect(names("CreateBook")).not.toContain("book");
    expect(names("MoveBook")).toEqual([]);
  });

  test("server streaming is text/event-stream", () => {
    const ok = op(doc, "WatchShelf").op["responses"]["200"];
    expect(Object.keys(ok.content)).toEqual(["text/event-stream"]);
    expect(ok.content["text/event-stream"]["x-event-data-schema"]).toEqual({ $ref: "#/components/schemas/acme.library.v1.ShelfEvent" });
  });

  test("errors are the google.rpc.Status schema", () => {
    for (const { op: o } of operations(doc)) expect(o["responses"].default).toEqual({ $ref: "#/components/responses/Error" });
    const validate = componentValidators(doc);
    const body = doc["components"].responses.Error.content["application/json"].schema;
    expect(validate(body, { error: { code: 404, status: "NOT_FOUND", message: "no", details: [] } })).toEqual([]);
    expect(validate(body, { error: { code: 404, message: "no" } })).not.toEqual([]);
  });

  test("REQUIRED fields are required; comments are descriptions", () => {
    expect(schemas["acme.library.v1.Book"]).toBeDefined();
    // CreateBookRequest.book is REQUIRED, and it is the body.
    expect(op(doc, "CreateBook").op["requestBody"].required).toBe(true);
    expect(op(doc, "UpdateBook").op["requestBody"].required).toBe(false);
    expect(doc["tags"]).toEqual([{ name: "LibraryService", description: "Manages shelves and the books on them." }]);
  });
});

describe("edge.proto", () => {
  const doc = openApiDoc(["acme/edge/v1/edge.proto"], "target=ts");

  test("a wildcard outside a variable is a parameter of its own; ** is one parameter", () => {
    const list = op(doc, "ListObjects");
    expect(list.path).toBe("/v1/{_segment1}/list/{name}");
  });

  test("a custom rule of kind * is listed under every method", () => {
    const any = operations(doc)
      .filter((o) => o.path === "/v1/any/{id}")
      .map((o) => o.method);
    expect(any).toEqual(["get", "put", "post", "delete", "patch"]);
    expect(op(doc, "Anything_get").op["requestBody"]).toBeUndefined();
    expect(op(doc, "Anything_post").op["requestBody"].content["application/json"].schema).toMatchObject({ type: "array" });
  });

  test("dotted path variables are parameters named by their field paths", () => {
    const names = (op(doc, "Lookup").op["parameters"] as Doc[]).filter((p) => p["in"] === "path").map((p) => p["name"]);
    expect(names).toEqual(["key.region", "key.kind", "key.serial"]);
    expect(op(doc, "Lookup_3").method).toBe("head");
    expect(op(doc, "Lookup_3").op["responses"]["200"].content).toBeUndefined();
  });
});

describe("a2a.proto (profile=a2a)", () => {
  const doc = openApiDoc(["a2a.proto"], "target=ts,profile=a2a");
  const validate = componentValidators(doc);

  test("application/a2a+json, the A2A-Version header, the tenant routes and SubscribeToTask on POST", () => {
    const send = op(doc, "SendMessage").op;
    expect(Object.keys(send["requestBody"].content)).toEqual(["application/a2a+json", "application/json"]);
    expect(Object.keys(send["responses"]["200"].content)).toEqual(["application/a2a+json"]);
    expect(send["parameters"]).toContainEqual({ $ref: "#/components/parameters/A2A-Version" });
    expect(op(doc, "SendMessage_2").path).toBe("/{tenant}/message:send");
    expect(op(doc, "SubscribeToTask_post")).toMatchObject({ method: "post", path: "/tasks/{id}:subscribe" });
  });

  test("ListTasks query: the spec's names", () => {
    const names = (op(doc, "ListTasks").op["parameters"] as Doc[]).filter((p) => p["in"] === "query").map((p) => p["name"]);
    expect(names).toEqual(
      expect.arrayContaining(["contextId", "status", "pageSize", "pageToken", "historyLength", "statusTimestampAfter", "includeArtifacts"]),
    );
  });

  test("a body whose fields the path binds leaves them out (CancelTask's id)", () => {
    const ref = op(doc, "CancelTask").op["requestBody"].content["application/a2a+json"].schema.$ref as string;
    expect(validate(ref, {})).toEqual([]);
    expect(doc["components"].schemas[ref.split("/").pop()!].properties.id).toBeUndefined();
  });

  test("ProtoJSON forms: enums by name, int64 as strings, Timestamp, Struct, oneofs", () => {
    const task = "#/components/schemas/lf.a2a.v1.Task";
    expect(
      validate(task, {
        id: "t",
        contextId: "c",
        status: { state: "TASK_STATE_WORKING", timestamp: "2026-01-02T03:04:05.123Z" },
        metadata: { a: [1] },
      }),
    ).toEqual([]);
    expect(validate(task, { id: "t", contextId: "c", status: { state: 3 } })).not.toEqual([]);
    expect(validate(task, { id: "t", contextId: "c", status: { state: "TASK_STATE_WORKING", timestamp: "yesterday" } })).not.toEqual([]);
    const part = "#/components/schemas/lf.a2a.v1.Part";
    expect(validate(part, { text: "hi" })).toEqual([]);
    expect(validate(part, { text: "hi", url: "https://x" })).not.toEqual([]);
    expect(validate({ $ref: "#/components/schemas/google.protobuf.Any" }, { "@type": "type.googleapis.com/x" })).toEqual([]);
  });

  test("REQUIRED is required", () => {
    const schemas = doc["components"].schemas as Record<string, Doc>;
    expect(schemas["lf.a2a.v1.SendMessageRequest"]!["required"]).toContain("message");
    expect(validate("#/components/schemas/lf.a2a.v1.SendMessageRequest", {})).not.toEqual([]);
  });
});

describe("a2a-v0_3.proto (profile=a2a)", () => {
  const doc = openApiDoc(["a2a-v0_3.proto"], "target=ts,profile=a2a");

  test("v0.3's TaskSubscription is on POST too, and A2A-Version's example is the 0.3 its servers serve", () => {
    expect(op(doc, "TaskSubscription_post")).toMatchObject({ method: "post", path: "/v1/{name}:subscribe" });
    const version = (doc["components"] as Doc)["parameters"]["A2A-Version"];
    expect(version).toMatchObject({ in: "header", example: "0.3" });
  });
});

describe("options", () => {
  test("openapi takes true, false, json or yaml", () => {
    expect(thrown(() => runPlugin(request("valid", ["acme/edge/v1/edge.proto"], "target=ts,openapi=maybe")))).toContain(
      'option "openapi=maybe" is not valid; openapi takes one of true, false, json, yaml',
    );
    const off = runPlugin(request("valid", ["acme/edge/v1/edge.proto"], "target=ts,openapi=true,openapi=false"));
    expect(off.file.some((f) => f.name.includes("openapi"))).toBe(false);
  });

  test("target=js and legacy CommonJS write the same plain JSON", () => {
    const [ts] = openApiFilesOf(["acme/edge/v1/edge.proto"], "target=ts");
    const [js] = openApiFilesOf(["acme/edge/v1/edge.proto"], "target=js,js_import_style=legacy_commonjs");
    expect(js).toEqual(ts);
    expect(() => JSON.parse(js!.content)).not.toThrow();
  });

  test("no document without openapi", () => {
    const res = runPlugin(request("valid", ["acme/edge/v1/edge.proto"], "target=ts"));
    expect(res.file.some((f) => f.name.includes("openapi"))).toBe(false);
  });
});
