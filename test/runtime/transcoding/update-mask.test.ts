// REQUIRED fields in an AIP-134 update: the resource's fields count only where
// the update_mask names them (or, without a mask, where the request sets them).
import { describe, expect, it } from "vitest";
import { create, createFileRegistry, fromJson, setExtension, type DescMessage } from "@bufbuild/protobuf";
import {
  FieldOptionsSchema,
  FileDescriptorProtoSchema,
  FieldDescriptorProto_Type as T,
  FieldDescriptorProto_Label as L,
  file_google_protobuf_field_mask,
} from "@bufbuild/protobuf/wkt";
import { checkRequired } from "../../../packages/runtime/src/transcoding/index.js";
import { field_behavior, FieldBehavior } from "../../../packages/runtime/src/gen/google/api/field_behavior_pb.js";
import { invalid, violations } from "./helpers.js";

const required = () => {
  const o = create(FieldOptionsSchema);
  setExtension(o, field_behavior, [FieldBehavior.REQUIRED]);
  return o;
};
const str = (name: string, number: number, jsonName: string, req = false) => ({
  name,
  number,
  type: T.STRING,
  label: L.OPTIONAL,
  jsonName,
  ...(req ? { options: required() } : {}),
});
const file = create(FileDescriptorProtoSchema, {
  name: "upd.proto",
  package: "upd",
  syntax: "proto3",
  dependency: ["google/protobuf/field_mask.proto"],
  messageType: [
    { name: "Author", field: [str("name", 1, "name", true), str("email", 2, "email")] },
    {
      name: "Book",
      field: [
        str("name", 1, "name"),
        str("title", 2, "title", true),
        { name: "author", number: 3, type: T.MESSAGE, typeName: ".upd.Author", label: L.OPTIONAL, jsonName: "author", options: required() },
      ],
    },
    {
      name: "UpdateBookRequest",
      field: [
        { name: "book", number: 1, type: T.MESSAGE, typeName: ".upd.Book", label: L.OPTIONAL, jsonName: "book", options: required() },
        {
          name: "update_mask",
          number: 2,
          type: T.MESSAGE,
          typeName: ".google.protobuf.FieldMask",
          label: L.OPTIONAL,
          jsonName: "updateMask",
        },
      ],
    },
  ],
});
const registry = createFileRegistry(file, (n) => (n === "google/protobuf/field_mask.proto" ? file_google_protobuf_field_mask : undefined));
const Update = registry.getMessage("upd.UpdateBookRequest") as DescMessage;
const check = (json: object) => checkRequired(Update, fromJson(Update, json as never));
const missing = (json: object) => violations(invalid(() => check(json)));

describe("REQUIRED in an update with update_mask", () => {
  it("checks only the masked fields of the resource", () => {
    expect(() => check({ book: { name: "b", title: "New" }, updateMask: "title" })).not.toThrow();
    expect(missing({ book: { name: "b" }, updateMask: "title" })).toEqual(["book.title"]);
    expect(missing({ book: { name: "b", title: "t" }, updateMask: "author.name" })).toEqual(["book.author"]);
    expect(missing({ book: { author: { email: "e" } }, updateMask: "author.email,author.name" })).toEqual(["book.author.name"]);
    expect(() => check({ book: { author: { email: "e" } }, updateMask: "author.email" })).not.toThrow();
  });

  it("a masked message field is checked whole; * checks everything", () => {
    expect(missing({ book: { title: "t", author: {} }, updateMask: "author" })).toEqual(["book.author.name"]);
    expect(missing({ book: { name: "b" }, updateMask: "*" })).toEqual(["book.title", "book.author"]);
  });

  it("without a mask, the populated fields are the mask", () => {
    expect(() => check({ book: { name: "b" } })).not.toThrow();
    expect(missing({ book: { name: "b", author: { email: "e" } } })).toEqual(["book.author.name"]);
  });

  it("the request's own REQUIRED fields are always checked", () => {
    expect(missing({ updateMask: "title" })).toEqual(["book"]);
    expect(missing({})).toEqual(["book"]);
  });
});
