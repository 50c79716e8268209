// Field kinds the project's protos do not have (repeated Timestamp and wrappers,
// Struct and Value, a oneof, a custom json_name, jstype strings), on a
// descriptor built at run time.
import { describe, expect, it } from "vitest";
import { create, createFileRegistry, toJson, type DescMessage } from "@bufbuild/protobuf";
import {
  FileDescriptorProtoSchema,
  FieldDescriptorProto_Type as T,
  FieldDescriptorProto_Label as L,
  file_google_protobuf_timestamp,
  file_google_protobuf_wrappers,
  file_google_protobuf_struct,
} from "@bufbuild/protobuf/wkt";
import { decodeRequest } from "../../../packages/runtime/src/transcoding/index.js";
import type { RouteBinding } from "../../../packages/runtime/src/route-binding.js";
import { invalid, violations } from "./helpers.js";

const file = create(FileDescriptorProtoSchema, {
  name: "dyn.proto",
  package: "dyn",
  syntax: "proto3",
  dependency: ["google/protobuf/timestamp.proto", "google/protobuf/wrappers.proto", "google/protobuf/struct.proto"],
  messageType: [
    { name: "Inner", field: [{ name: "a", number: 1, type: T.STRING, label: L.OPTIONAL, jsonName: "a" }] },
    {
      name: "Req",
      field: [
        { name: "id", number: 1, type: T.STRING, label: L.OPTIONAL, jsonName: "id" },
        { name: "times", number: 2, type: T.MESSAGE, typeName: ".google.protobuf.Timestamp", label: L.REPEATED, jsonName: "times" },
        { name: "counts", number: 3, type: T.MESSAGE, typeName: ".google.protobuf.Int32Value", label: L.REPEATED, jsonName: "counts" },
        { name: "attrs", number: 4, type: T.MESSAGE, typeName: ".google.protobuf.Struct", label: L.OPTIONAL, jsonName: "attrs" },
        { name: "any_value", number: 5, type: T.MESSAGE, typeName: ".google.protobuf.Value", label: L.OPTIONAL, jsonName: "anyValue" },
        { name: "text", number: 6, type: T.STRING, label: L.OPTIONAL, oneofIndex: 0, jsonName: "text" },
        { name: "num", number: 7, type: T.INT32, label: L.OPTIONAL, oneofIndex: 0, jsonName: "num" },
        { name: "inner", number: 8, type: T.MESSAGE, typeName: ".dyn.Inner", label: L.OPTIONAL, oneofIndex: 0, jsonName: "inner" },
        { name: "renamed_field", number: 9, type: T.STRING, label: L.OPTIONAL, jsonName: "customName" },
        { name: "big", number: 10, type: T.INT64, label: L.OPTIONAL, jsonName: "big", options: { jstype: 1 /* JS_STRING */ } },
        { name: "labels", number: 11, type: T.MESSAGE, typeName: ".dyn.Req.LabelsEntry", label: L.REPEATED, jsonName: "labels" },
        { name: "inners", number: 12, type: T.MESSAGE, typeName: ".dyn.Inner", label: L.REPEATED, jsonName: "inners" },
      ],
      oneofDecl: [{ name: "choice" }],
      nestedType: [
        {
          name: "LabelsEntry",
          options: { mapEntry: true },
          field: [
            { name: "key", number: 1, type: T.STRING, label: L.OPTIONAL, jsonName: "key" },
            { name: "value", number: 2, type: T.STRING, label: L.OPTIONAL, jsonName: "value" },
          ],
        },
      ],
    },
  ],
});
const registry = createFileRegistry(
  file,
  (name) =>
    ({
      "google/protobuf/timestamp.proto": file_google_protobuf_timestamp,
      "google/protobuf/wrappers.proto": file_google_protobuf_wrappers,
      "google/protobuf/struct.proto": file_google_protobuf_struct,
    })[name],
);
const Req = registry.getMessage("dyn.Req") as DescMessage;

const route = (body: string, variables: { fieldPath: string[] }[] = []): RouteBinding => ({
  rpc: "dyn",
  descriptor: undefined as never,
  method: "GET",
  template: "/x",
  path: {
    template: "/x",
    segments: [],
    verb: "",
    variables: variables.map((v, i) => ({ ...v, start: i, end: i + 1, multiSegment: false })),
  } as never,
  body,
  responseBody: "",
  streaming: "unary",
  input: Req,
  output: Req,
  binding: "primary",
});

const get = route("");
const q = (query: string, opts?: { commaLists?: boolean }) =>
  toJson(Req, decodeRequest(get, { variables: {}, query, body: undefined }, opts));

describe("query on field kinds outside the project's protos", () => {
  it("repeated Timestamp and repeated wrappers", () => {
    expect(q("times=2024-01-01T00:00:00Z&times=2024-01-02T00:00:00.5Z")).toEqual({
      times: ["2024-01-01T00:00:00Z", "2024-01-02T00:00:00.500Z"],
    });
    expect(q("counts=1&counts=-2")).toEqual({ counts: [1, -2] });
    expect(q("counts=1,2", { commaLists: true })).toEqual({ counts: [1, 2] });
    expect(violations(invalid(() => q("times=x")))).toEqual(["times"]);
  });

  it("Struct and Value as JSON text", () => {
    expect(q('attrs=%7B"a"%3A1%7D&anyValue=%5B1%2C"x"%5D')).toEqual({ attrs: { a: 1 }, anyValue: [1, "x"] });
    expect(violations(invalid(() => q("attrs=nope")))).toEqual(["attrs"]);
    expect(violations(invalid(() => q("attrs=[1]")))).toEqual(["attrs"]);
  });

  it("a oneof: one member is fine, a nested member creates the message, two members are a 400", () => {
    expect(q("num=3")).toEqual({ num: 3 });
    expect(q("inner.a=x")).toEqual({ inner: { a: "x" } });
    const e = invalid(() => q("text=a&num=3"));
    expect(e.message).toMatch(/oneof/);
    expect(violations(e)).toEqual(["num"]);
  });

  it("custom json_name and proto name both work; the lowerCamel of the proto name is not a name", () => {
    expect(q("customName=a")).toEqual({ customName: "a" });
    expect(q("renamed_field=b")).toEqual({ customName: "b" });
    expect(q("renamedField=c")).toEqual({});
  });

  it("int64 with jstype JS_STRING", () => {
    const m = decodeRequest(get, { variables: {}, query: "big=-9007199254740993", body: undefined }) as unknown as { big: unknown };
    expect(m.big).toBe("-9007199254740993");
  });

  it("maps and repeated messages are not query parameters", () => {
    expect(q("labels=x&labels.a=b&labels[a]=b&inners.a=x&inners=x")).toEqual({});
  });

  it("a path variable into a oneof member's nested field", () => {
    const r = route("", [{ fieldPath: ["inner", "a"] }]);
    const m = decodeRequest(r, { variables: { "inner.a": "v" }, query: "text=ignored&inner.a=no", body: undefined });
    expect(toJson(Req, m)).toEqual({ inner: { a: "v" } });
  });

  it('body "*" with a Struct and a map', () => {
    const r = route("*");
    const m = decodeRequest(r, { variables: {}, query: "", body: { attrs: { k: [true] }, labels: { a: "b" } } });
    expect(toJson(Req, m)).toEqual({ attrs: { k: [true] }, labels: { a: "b" } });
    const e = invalid(() => decodeRequest(r, { variables: {}, query: "", body: { labels: { a: 1 } } }));
    expect(violations(e)).toEqual(["labels"]);
    const e2 = invalid(() => decodeRequest(r, { variables: {}, query: "", body: { inners: [{}, { a: 2 }] } }));
    expect(violations(e2)).toEqual(["inners[1].a"]);
  });
});
