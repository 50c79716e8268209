// What the json-codec emitter writes into `<file>_http_json.ts` for protos
// that the test protos do not have, on descriptors built here (both found by
// `npm run corpus`):
// - the local names (read<Message>, write<Message>, complete<Message>,
//   <Message>Json) beside the runtime kit's imports: a message named List or
//   Value (google.actions.sdk.v2, google.cloud.aiplatform) must not declare
//   readList or readValue over the kit's, which TypeScript refuses (TS2440) and
//   which would read google.protobuf.Value with the wrong function;
// - a well-known type with fields (google.protobuf.Api, reached by
//   servicemanagement and serviceusage) is left to protobuf-es, whose shape it
//   has: the request's copy of api.proto may lack fields of protobuf-es's
//   (google-proto-files' has no edition), and a generated reader of the
//   request's fields would not type-check against the shape.
import { create, setExtension } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  MethodOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { http } from "../../../packages/plugin/src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../../packages/plugin/src/gen/google/api/http_pb.js";
import { fixtureSet, runPlugin } from "../core/helpers.js";

const { OPTIONAL, REPEATED } = FieldDescriptorProto_Label;
const { STRING, MESSAGE } = FieldDescriptorProto_Type;
const field = (name: string, number: number, typeName?: string, repeated = false) => ({
  name,
  number,
  jsonName: name,
  label: repeated ? REPEATED : OPTIONAL,
  type: typeName ? MESSAGE : STRING,
  ...(typeName ? { typeName } : {}),
});

/** google/protobuf/api.proto as an older protoc has it: Api without protobuf-es's edition (or anything but a name). */
const olderApiProto = create(FileDescriptorProtoSchema, {
  name: "google/protobuf/api.proto",
  package: "google.protobuf",
  syntax: "proto3",
  messageType: [{ name: "Api", field: [field("name", 1)] }],
});

/** The codec file of t/v1/names.proto, whose GetThing answers a Thing. */
function generatedCodecFile(): string {
  const options = create(MethodOptionsSchema);
  setExtension(options, http, create(HttpRuleSchema, { pattern: { case: "get", value: "/v1/{name=things/*}" } }));
  const file = create(FileDescriptorProtoSchema, {
    name: "t/v1/names.proto",
    package: "t.v1",
    syntax: "proto3",
    dependency: ["google/api/annotations.proto", "google/protobuf/struct.proto", "google/protobuf/api.proto"],
    messageType: [
      // Each shares its name with what the kit's readers and writers are named after.
      { name: "List", field: [field("items", 1, undefined, true)] },
      { name: "Value", field: [field("text", 1)] },
      { name: "Map", field: [field("key", 1)] },
      { name: "message", field: [field("text", 1)] },
      {
        name: "Thing",
        field: [
          field("name", 1),
          field("list", 2, ".t.v1.List"),
          field("lists", 3, ".t.v1.List", true),
          field("value", 4, ".t.v1.Value"),
          field("json", 5, ".google.protobuf.Value"),
          field("jsons", 6, ".google.protobuf.Value", true),
          field("map", 7, ".t.v1.Map"),
          field("message", 8, ".t.v1.message"),
          field("api", 9, ".google.protobuf.Api"),
        ],
      },
      { name: "GetThingRequest", field: [field("name", 1)] },
    ],
    service: [{ name: "Things", method: [{ name: "GetThing", inputType: ".t.v1.GetThingRequest", outputType: ".t.v1.Thing", options }] }],
  });
  const res = runPlugin(
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["t/v1/names.proto"],
      protoFile: [...fixtureSet("valid").file, olderApiProto, file],
      parameter: "target=ts",
    }),
  );
  expect(res.error ?? "").toBe("");
  return res.file.find((f) => f.name === "t/v1/names_http_json.ts")!.content;
}

test("no local function or constant of the codec file takes the name of one it imports", () => {
  const content = generatedCodecFile();
  // `import { a, b as c } from "..."`: the local names are a and c.
  const lists = [...content.matchAll(/^import (?:type )?\{([^}]*)\} from /gm)].map((m) => m[1]!);
  const imported = lists
    .flatMap((list) => list.split(","))
    .map(
      (spec) =>
        spec
          .trim()
          .split(/\s+as\s+/)
          .at(-1)!,
    );
  const declared = [...content.matchAll(/^(?:export )?(?:function|const) ([A-Za-z0-9_$]+)/gm)].map((m) => m[1]!);
  expect(imported).toContain("readList");
  expect(imported).toContain("readValue");
  expect(declared.length).toBeGreaterThan(10);
  expect(declared.filter((d) => imported.includes(d))).toEqual([]);
});

test("the kit's readers stay on the fields they are for: google.protobuf.Value by readValue, the message Value by its own reader", () => {
  const content = generatedCodecFile();
  const readThing = content.slice(content.indexOf("function readThing("), content.indexOf("function writeThing("));
  expect(readThing).toMatch(/case "json":\n\s+m\.json = readValue\(v, depth \+ 1\);/);
  const own = /case "value":\n\s+m\.value = (read[A-Za-z0-9_$]+)\(v, depth \+ 1\);/.exec(readThing)?.[1];
  expect(own).toBeDefined();
  expect(own).not.toBe("readValue");
  expect(content).toContain(`function ${own}(json: unknown, depth: number): Value {`);
});

test("a well-known type with fields (google.protobuf.Api) is read and written by protobuf-es, with its own schema", () => {
  const content = generatedCodecFile();
  expect(content).not.toContain('$typeName: "google.protobuf.Api"');
  expect(content).toMatch(/case "api":\n\s+m\.api = readVia\(ApiSchema, v\);/);
  // protobuf-es's own schema: from "@bufbuild/protobuf/wkt" with protoplugin 2.13, from the file's
  // own subpath ("@bufbuild/protobuf/wkt/google/protobuf/api_pb.js") with 2.17.
  expect(content).toMatch(/import \{[^}]*\bApiSchema\b[^}]*\} from "@bufbuild\/protobuf\/wkt(\/google\/protobuf\/api_pb\.js)?"/);
});
