// leanWrapper (a lean table's google.protobuf wrapper type): the bare value in
// a singular field, the wrapper message in a list, map or oneof (protobuf-es's
// shapes), the bare value as JSON either way.
import { expect, test } from "vitest";
import { leanInt64, leanWrapper, readLean, writeLean, type LeanMessage } from "../../../packages/runtime/src/client/index.js";

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
