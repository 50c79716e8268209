// field-behavior.ts decodes google.api.field_behavior from the options' unknown
// fields itself; the corpus test holds it to getOption on real protos, which
// write one value per record. This covers the packed form too.
import type { DescField, DescFile } from "@bufbuild/protobuf";
import { BinaryWriter, WireType } from "@bufbuild/protobuf/wire";
import { expect, test } from "vitest";
import { fieldBehaviorReader } from "../../../packages/plugin/src/emit/field-behavior.js";

const NUMBER = 1052;
const files = [
  { name: "google/api/field_behavior", extensions: [{ typeName: "google.api.field_behavior", number: NUMBER }] },
] as unknown as DescFile[];

/** A field whose options hold these unknown records, as fromBinary leaves an extension it does not know. */
function fieldWith(records: { no: number; wireType: WireType; data: Uint8Array }[]): DescField {
  return { proto: { options: { $unknown: records } } } as unknown as DescField;
}
const varint = (v: number) => ({ no: NUMBER, wireType: WireType.Varint, data: new BinaryWriter().int32(v).finish() });
const packed = (...vs: number[]) => {
  const inner = new BinaryWriter();
  for (const v of vs) inner.int32(v);
  return { no: NUMBER, wireType: WireType.LengthDelimited, data: new BinaryWriter().bytes(inner.finish()).finish() };
};

test("reads values one per record and packed, and ignores other options", () => {
  const read = fieldBehaviorReader(files);
  expect(read(fieldWith([varint(2)]))).toEqual({ required: true, outputOnly: false, inputOnly: false });
  expect(read(fieldWith([packed(3, 4)]))).toEqual({ required: false, outputOnly: true, inputOnly: true });
  expect(read(fieldWith([varint(4), packed(2)]))).toEqual({ required: true, outputOnly: false, inputOnly: true });
  expect(read(fieldWith([{ ...varint(2), no: 1053 }]))).toEqual({ required: false, outputOnly: false, inputOnly: false });
  expect(read({ proto: {} } as unknown as DescField)).toEqual({ required: false, outputOnly: false, inputOnly: false });
});

test("a request without field_behavior.proto has no behaviour", () => {
  expect(fieldBehaviorReader([])(fieldWith([varint(2)]))).toEqual({ required: false, outputOnly: false, inputOnly: false });
});
