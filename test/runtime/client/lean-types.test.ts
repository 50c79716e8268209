// The lean types a table imports where a field needs one, in protobuf-es's
// shapes: leanWrapper (the bare value in a singular field, the wrapper message
// in a list, map or oneof, the bare value as JSON either way), leanMapKey (a
// map's bool or integer keys checked, written as protobuf-es keys the record,
// one key twice refused) and leanAsString (a 64-bit integer held as a string).
import { expect, test } from "vitest";
import {
  leanAsString,
  leanInt64,
  leanMapKey,
  leanWrapper,
  readLean,
  writeLean,
  type LeanMessage,
} from "../../../packages/runtime/src/client/index.js";

const int32 = leanWrapper("google.protobuf.Int32Value", 5);
const int64 = leanWrapper("google.protobuf.Int64Value", leanInt64);
const M: LeanMessage = {
  typeName: "t.M",
  fields: [
    { j: "one", t: int32 },
    { j: "many", t: int32, c: "l" },
    { j: "byKey", t: int64, c: "m" },
    { j: "either", t: int32, o: "pick" },
  ],
};

test("a singular wrapper is its bare value; a list item, map value or oneof member the wrapper message", () => {
  const read = readLean(M, { one: 1, many: [2, "3"], byKey: { a: "4" }, either: 5 });
  expect(read).toEqual({
    $typeName: "t.M",
    one: 1,
    many: [
      { $typeName: "google.protobuf.Int32Value", value: 2 },
      { $typeName: "google.protobuf.Int32Value", value: 3 },
    ],
    byKey: { a: { $typeName: "google.protobuf.Int64Value", value: 4n } },
    pick: { case: "either", value: { $typeName: "google.protobuf.Int32Value", value: 5 } },
  });
  expect(writeLean(M, read)).toEqual({ one: 1, many: [2, 3], byKey: { a: "4" }, either: 5 });
  // A boxed wrapper without its value is its zero value; one that is not a message is refused.
  expect(writeLean(M, { many: [{}], byKey: { a: {} } })).toEqual({ many: [0], byKey: { a: "0" } });
  expect(() => writeLean(M, { many: [7] })).toThrow("t.M.many: invalid value 7");
  expect(() => readLean(M, { one: "x" })).toThrow("t.M.one: invalid value");
});

test("map keys of bool and integer types are checked and written as protobuf-es keys the record", () => {
  const K: LeanMessage = {
    typeName: "t.K",
    fields: [
      { j: "byBool", t: 9, c: "m", k: leanMapKey(8) },
      { j: "byInt", t: 9, c: "m", k: leanMapKey(5) },
      { j: "byLong", t: 9, c: "m", k: leanMapKey(leanInt64) },
    ],
  };
  expect(readLean(K, { byBool: { true: "t" }, byInt: { "-1": "a", "07": "b" }, byLong: { "9007199254740993": "c" } })).toEqual({
    $typeName: "t.K",
    byBool: { true: "t" },
    byInt: { "-1": "a", "7": "b" },
    byLong: { "9007199254740993": "c" },
  });
  expect(() => readLean(K, { byBool: { yes: "t" } })).toThrow("t.K.byBool: invalid value");
  expect(() => readLean(K, { byInt: { "1.5": "a" } })).toThrow("t.K.byInt: invalid value");
  expect(() => readLean(K, { byInt: { "1": "a", "01": "b" } })).toThrow("t.K.byInt: invalid value");
});

test('a 64-bit integer held as a string: its zero is "0", its values strings, in a list too', () => {
  const S: LeanMessage = {
    typeName: "t.S",
    fields: [
      { j: "one", t: leanAsString(leanInt64) },
      { j: "many", t: leanAsString(leanInt64), c: "l" },
    ],
  };
  expect(readLean(S, {})).toEqual({ $typeName: "t.S", one: "0", many: [] });
  expect(readLean(S, { one: 42, many: ["-2", 3] })).toEqual({ $typeName: "t.S", one: "42", many: ["-2", "3"] });
  expect(readLean(S, { one: "9007199254740993" }).one).toBe("9007199254740993");
  expect(writeLean(S, { one: "0", many: ["5"] })).toEqual({ many: ["5"] });
  expect(writeLean(S, { one: "12" })).toEqual({ one: "12" });
});
