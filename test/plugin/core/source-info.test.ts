// readRequest (packages/plugin/src/source-info.ts) decodes a CodeGeneratorRequest
// with the files' source locations left encoded until read: whatever reads
// them must see what fromBinary gives, and the plugin must answer the same.
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  CodeGeneratorResponseSchema,
  FileDescriptorProtoSchema,
  SourceCodeInfo_LocationSchema,
  SourceCodeInfoSchema,
} from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, expect, test } from "vitest";
import { diagnostics } from "../../../packages/plugin/src/plugin.js";
import { readRequest, sourceInfoEncoded, sourceLocations } from "../../../packages/plugin/src/source-info.js";
import { request, runPlugin, thrown } from "./helpers.js";

const files = ["a2a.proto", "acme/edge/v1/edge.proto"];
// edge.proto's unbound rpc warns on every run: the warnings are compared, not printed.
let warnings: string[] = [];
const savedWarn = diagnostics.warn;
beforeAll(() => void (diagnostics.warn = (line) => void warnings.push(line)));
afterAll(() => void (diagnostics.warn = savedWarn));
const bytesOf = (parameter: string) => toBinary(CodeGeneratorRequestSchema, request("valid", files, parameter));

test("the request read is fromBinary's once its source locations are read, and they stay encoded until then", () => {
  const bytes = bytesOf("target=ts");
  const read = readRequest(bytes);
  const withSource = read.protoFile.filter((f) => sourceInfoEncoded(f));
  expect(withSource.length).toBeGreaterThan(1);
  // Reading each file's locations decodes them: the whole request then encodes as fromBinary's does.
  const infos = read.protoFile.map((f) => f.sourceCodeInfo);
  expect(infos.filter((i) => i !== undefined).length).toBe(withSource.length);
  expect(read.protoFile.some((f) => sourceInfoEncoded(f))).toBe(false);
  expect(
    Buffer.compare(
      toBinary(CodeGeneratorRequestSchema, read),
      toBinary(CodeGeneratorRequestSchema, fromBinary(CodeGeneratorRequestSchema, bytes)),
    ),
  ).toBe(0);
});

test.each([
  "target=ts",
  "target=ts+js,import_extension=js,profile=a2a,connect=true,openapi=yaml,openapi=json",
  "target=ts,client=true,stub=true,agent=true,profile=a2a",
])("the plugin answers the same from readRequest as from fromBinary: %s", (parameter) => {
  const bytes = bytesOf(parameter);
  warnings = [];
  const plain = toBinary(CodeGeneratorResponseSchema, runPlugin(fromBinary(CodeGeneratorRequestSchema, bytes)));
  const plainWarnings = warnings;
  warnings = [];
  const lazy = toBinary(CodeGeneratorResponseSchema, runPlugin(readRequest(bytes)));
  expect(Buffer.compare(lazy, plain)).toBe(0);
  expect(warnings).toEqual(plainWarnings);
});

test("the generated files need the comments of services, rpcs, syntax and package only: no file's locations are decoded whole", () => {
  const read = readRequest(bytesOf("target=ts,profile=a2a"));
  runPlugin(read);
  const decoded = read.protoFile.filter((f) => !sourceInfoEncoded(f) && f.sourceCodeInfo !== undefined).map((f) => f.name);
  expect(decoded).toEqual([]);
});

test("sourceLocations picks what a filter of the decoded locations picks, in order, and leaves the rest encoded", () => {
  const bytes = bytesOf("target=ts");
  const plain = fromBinary(CodeGeneratorRequestSchema, bytes).protoFile.find((f) => f.name === "a2a.proto")!;
  const lazy = readRequest(bytes).protoFile.find((f) => f.name === "a2a.proto")!;
  const keep = (p: readonly number[]) => p.length <= 4;
  const picked = sourceLocations(lazy, [4, 6], keep);
  expect(sourceInfoEncoded(lazy)).toBe(true);
  const want = plain.sourceCodeInfo!.location.filter((l) => (l.path[0] === 4 || l.path[0] === 6) && keep(l.path));
  expect(want.length).toBeGreaterThan(10);
  expect(picked.map((l) => toBinary(SourceCodeInfo_LocationSchema, l))).toEqual(
    want.map((l) => toBinary(SourceCodeInfo_LocationSchema, l)),
  );
  // Once decoded, the same answer from the decoded locations.
  expect(lazy.sourceCodeInfo!.location.length).toBe(plain.sourceCodeInfo!.location.length);
  expect(sourceLocations(lazy, [4, 6], keep).length).toBe(want.length);
});

/** A request of one file whose source_code_info is the bytes given (and, when given, a second record of it). */
function requestWithInfo(info: Uint8Array, again?: Uint8Array): Uint8Array {
  const file = toBinary(FileDescriptorProtoSchema, create(FileDescriptorProtoSchema, { name: "x.proto", package: "x" }));
  const record = (field: number, payload: Uint8Array) => [...varint((field << 3) | 2), ...varint(payload.length), ...payload];
  const fileBytes = Uint8Array.from([...file, ...record(9, info), ...(again ? record(9, again) : [])]);
  return Uint8Array.from([...record(1, new TextEncoder().encode("x.proto")), ...record(15, fileBytes)]);
}

function varint(n: number): number[] {
  const out: number[] = [];
  for (; n >= 0x80; n >>>= 7) out.push((n & 0x7f) | 0x80);
  out.push(n);
  return out;
}

test("a path written one value a record, and source_code_info given twice (merged), read as fromBinary reads them", () => {
  // A location of path [6, 0] unpacked, with a leading comment; then one of path [4, 1] packed.
  const comment = new TextEncoder().encode(" Hi.\n");
  const unpacked = [0x08, 6, 0x08, 0, 0x1a, comment.length, ...comment];
  const info = Uint8Array.from([0x0a, unpacked.length, ...unpacked]);
  const packed = toBinary(SourceCodeInfoSchema, create(SourceCodeInfoSchema, { location: [{ path: [4, 1], span: [1, 2, 3] }] }));
  const bytes = requestWithInfo(info, packed);
  const plain = fromBinary(CodeGeneratorRequestSchema, bytes).protoFile[0]!;
  const lazy = readRequest(bytes).protoFile[0]!;
  const picked = sourceLocations(lazy, [6], () => true);
  expect(picked.map((l) => [l.path, l.leadingComments])).toEqual([[[6, 0], " Hi.\n"]]);
  expect(toBinary(SourceCodeInfoSchema, lazy.sourceCodeInfo!)).toEqual(toBinary(SourceCodeInfoSchema, plain.sourceCodeInfo!));
  expect(plain.sourceCodeInfo!.location.length).toBe(2);
});

test("input the walk does not take is fromBinary's: the same error for a cut request, the same request for a group", () => {
  const bytes = bytesOf("target=ts");
  const cut = bytes.subarray(0, bytes.length - 7);
  expect(thrown(() => readRequest(cut))).toBe(thrown(() => fromBinary(CodeGeneratorRequestSchema, cut)));
  // An unknown group (field 20, start and end) ahead of the files: kept as an unknown field either way.
  const grouped = Uint8Array.from([...varint((20 << 3) | 3), ...varint((20 << 3) | 4), ...bytes]);
  expect(toBinary(CodeGeneratorRequestSchema, readRequest(grouped))).toEqual(
    toBinary(CodeGeneratorRequestSchema, fromBinary(CodeGeneratorRequestSchema, grouped)),
  );
  // A malformed source_code_info fails when read, as fromBinary fails on the whole request.
  const bad = requestWithInfo(Uint8Array.from([0x0a, 0x05, 0x08]));
  const lazy = readRequest(bad).protoFile[0]!;
  expect(thrown(() => sourceLocations(lazy, [6], () => true))).toBe(thrown(() => fromBinary(CodeGeneratorRequestSchema, bad)));
});
