// Mapping rules that the test protos do not exercise, on descriptors built
// here: OUTPUT_ONLY / INPUT_ONLY, a variable that is one literal, and the
// one case OpenAPI 3.1 cannot express (two templates of one method that
// differ only in their variables' patterns), which must be a clear error.
import { create, setExtension } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  MethodOptionsSchema,
} from "@bufbuild/protobuf/wkt";
import { Validator } from "@seriousme/openapi-schema-validator";
import { describe, expect, test } from "vitest";
import { http } from "../../../packages/plugin/src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../../packages/plugin/src/gen/google/api/http_pb.js";
import { field_behavior, FieldBehavior } from "../../../packages/runtime/src/gen/google/api/field_behavior_pb.js";
import { fixtureSet, runPlugin, thrown } from "../core/helpers.js";
import type { Doc } from "./helpers.js";

const string = (name: string, number: number, behaviors: FieldBehavior[] = []) => {
  const options = create(FieldOptionsSchema);
  if (behaviors.length > 0) setExtension(options, field_behavior, behaviors);
  return {
    name,
    number,
    jsonName: name,
    type: FieldDescriptorProto_Type.STRING,
    label: FieldDescriptorProto_Label.OPTIONAL,
    ...(behaviors.length > 0 ? { options } : {}),
  };
};

const rpc = (name: string, get: string) => {
  const options = create(MethodOptionsSchema);
  setExtension(options, http, create(HttpRuleSchema, { pattern: { case: "get", value: get } }));
  return { name, inputType: ".t.v1.Req", outputType: ".t.v1.Thing", options };
};

function generate(templates: readonly string[]): Doc {
  const file = create(FileDescriptorProtoSchema, {
    name: "t/v1/t.proto",
    package: "t.v1",
    syntax: "proto3",
    dependency: ["google/api/annotations.proto", "google/api/field_behavior.proto"],
    messageType: [
      {
        name: "Thing",
        field: [
          string("name", 1, [FieldBehavior.OUTPUT_ONLY]),
          string("secret", 2, [FieldBehavior.INPUT_ONLY]),
          string("id", 3, [FieldBehavior.REQUIRED]),
        ],
      },
      { name: "Req", field: [string("name", 1)] },
    ],
    service: [{ name: "S", method: templates.map((t, i) => rpc(`M${i}`, t)) }],
  });
  const res = runPlugin(
    create(CodeGeneratorRequestSchema, {
      fileToGenerate: ["t/v1/t.proto"],
      protoFile: [...fixtureSet("valid").file, file],
      parameter: "target=ts,openapi=true",
    }),
  );
  return JSON.parse(res.file.find((f) => f.name === "t/v1/t_http.openapi.json")!.content) as Doc;
}

describe("descriptors built in the test", () => {
  test("OUTPUT_ONLY is readOnly, INPUT_ONLY writeOnly, REQUIRED required", () => {
    const thing = generate(["/v1/things/{name}"])["components"].schemas["t.v1.Thing"];
    expect(thing.properties.name).toEqual({ type: "string", readOnly: true });
    expect(thing.properties.secret).toEqual({ type: "string", writeOnly: true });
    expect(thing.required).toEqual(["id"]);
  });

  test("a variable that is one literal, where its key is taken, is spelled out", async () => {
    const doc = generate(["/v1/{name=*}", "/v1/{name=fixed}"]);
    expect(Object.keys(doc["paths"])).toEqual(["/v1/{name}", "/v1/fixed"]);
    expect((await new Validator().validate(doc)).valid).toBe(true);
  });

  test("two templates that OpenAPI cannot tell apart are a clear error", () => {
    expect(() => generate(["/v1/{name=*}", "/v1/{name=**}"])).toThrow(
      /openapi: cannot list GET \/v1\/\{name=\*\*\} \(t\.v1\.S\.M1\) in OpenAPI 3\.1: an earlier binding has the same method/,
    );
    expect(thrown(() => generate(["/v1/{name=*}", "/v1/{name=**}"]))).toContain("generate without openapi=true");
  });
});
