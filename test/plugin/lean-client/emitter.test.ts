// client=lean at generation: messages outside proto3 refused with a message
// that says what to do instead (their defaults live on prototypes, which lean
// tables do not make); google.protobuf.Any handed to the runtime's leanAny;
// no value import but the runtime's client.
import { create, setExtension, type MessageInitShape } from "@bufbuild/protobuf";
import {
  AnySchema,
  CodeGeneratorRequestSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  file_google_protobuf_any,
  MethodOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { http } from "../../../packages/plugin/src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../../packages/plugin/src/gen/google/api/http_pb.js";
import { fixtureSet, runPlugin } from "../core/helpers.js";

const { OPTIONAL } = FieldDescriptorProto_Label;
const { STRING, MESSAGE } = FieldDescriptorProto_Type;

/**
 * The plugin's answer for t/v1/t.proto, whose GetThing (request: name and tenant) answers a Thing with `field`,
 * under `parameter`; its rule `get: "/v1/{name=things/*}"` with `additional` bindings.
 */
function generate(
  thing: { name: string; number: number; type: FieldDescriptorProto_Type; typeName?: string },
  syntax: string,
  parameter: string,
  additional: MessageInitShape<typeof HttpRuleSchema>[] = [],
) {
  const options = create(MethodOptionsSchema);
  setExtension(
    options,
    http,
    create(HttpRuleSchema, { pattern: { case: "get", value: "/v1/{name=things/*}" }, additionalBindings: additional }),
  );
  const file = create(FileDescriptorProtoSchema, {
    name: "t/v1/t.proto",
    package: "t.v1",
    syntax,
    dependency: ["google/api/annotations.proto", "google/protobuf/any.proto"],
    messageType: [
      {
        name: "Thing",
        field: [
          { name: "name", number: 1, jsonName: "name", label: OPTIONAL, type: STRING },
          { ...thing, jsonName: thing.name, label: OPTIONAL },
        ],
      },
      {
        name: "GetThingRequest",
        field: [
          { name: "name", number: 1, jsonName: "name", label: OPTIONAL, type: STRING },
          { name: "tenant", number: 2, jsonName: "tenant", label: OPTIONAL, type: STRING },
        ],
      },
    ],
    service: [{ name: "Things", method: [{ name: "GetThing", inputType: ".t.v1.GetThingRequest", outputType: ".t.v1.Thing", options }] }],
  });
  const any = file_google_protobuf_any.proto;
  const known = fixtureSet("valid").file.filter((f) => f.name !== any.name);
  return runPlugin(
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["t/v1/t.proto"],
      protoFile: [...known, any, file],
      parameter: `target=ts,${parameter}`,
    }),
  );
}

const anyField = { name: "detail", number: 2, type: MESSAGE, typeName: `.${AnySchema.typeName}` };
const plainField = { name: "note", number: 2, type: STRING };

test("client=lean reads and writes google.protobuf.Any with the runtime's leanAny (protobuf-es and the client's registry)", () => {
  const res = generate(anyField, "proto3", "client=lean");
  const client = res.file.find((f) => f.name === "t/v1/t_http_client.ts")!.content;
  expect(client).toMatch(/import \{[^}]*\bleanAny\b[^}]*\} from "a2a-http\/client"/);
  expect(client).toContain('{ j: "detail", t: leanAny }');
});

test("client=lean refuses a message outside proto3", () => {
  expect(() => generate(plainField, "proto2", "client=lean")).toThrow("client=lean: t.v1.GetThingRequest is not proto3 (t/v1/t.proto)");
  expect(generate(plainField, "proto3", "client=lean").error ?? "").toBe("");
});

test("client=lean writes the client file alone from protobuf-es types: no value import of protobuf-es or of the _pb file", () => {
  const res = generate(plainField, "proto3", "client=lean,server=none,stub=false,json_codec=false");
  const client = res.file.find((f) => f.name === "t/v1/t_http_client.ts")!.content;
  const valueImports = [...client.matchAll(/^import (?!type )\{[^}]*\} from "([^"]+)"/gm)].map((m) => m[1]);
  expect(valueImports).toEqual(["a2a-http/client"]);
});

test("client=lean writes an additional binding that is the one before under a leading variable as that row's `under`", () => {
  const rows = (additional: MessageInitShape<typeof HttpRuleSchema>[]) =>
    generate(plainField, "proto3", "client=lean", additional)
      .file.find((f) => f.name === "t/v1/t_http_client.ts")!
      .content.split("\n")
      .filter((l) => l.startsWith('  { name: "GetThing"'));
  const twin = { pattern: { case: "get", value: "/{tenant}/v1/{name=things/*}" } } as const;
  expect(rows([twin])).toEqual([
    '  { name: "GetThing", method: "GET", path: [["v1", "things", "*"], "", [[["name"], 1, 3, 1]]], under: ["tenant"], input: $GetThingRequest, output: $Thing },',
  ]);
  // Not the same binding under {tenant}: another method, another pattern, a variable not in front.
  for (const other of [
    { pattern: { case: "post", value: "/{tenant}/v1/{name=things/*}" }, body: "*" },
    { pattern: { case: "get", value: "/{tenant=t/*}/v1/{name=things/*}" } },
    { pattern: { case: "get", value: "/v1/{name=things/*}/{tenant}" } },
  ] as const) {
    expect(rows([other])).toHaveLength(2);
  }
});
