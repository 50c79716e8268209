// Property: a query parameter carrying the ProtoJSON string of a value decodes
// to what fromJson makes of the same JSON, for random values.
import { describe, expect, it } from "vitest";
import fc from "fast-check";
import { fromJson, toJson, create } from "@bufbuild/protobuf";
import { base64Encode } from "@bufbuild/protobuf/wire";
import { decodeRequest } from "../../../packages/runtime/src/transcoding/index.js";
import { ListBooksRequestSchema, type ListBooksRequest } from "../../../gen/acme/library/v1/library_pb.js";
import { lib } from "./helpers.js";

const route = lib("listBooks");
const enc = (s: string) => encodeURIComponent(s);

describe("query values agree with ProtoJSON", () => {
  it("random scalars, strings, bytes and repeated values", () => {
    fc.assert(
      fc.property(
        fc.record({
          pageSize: fc.integer(),
          maxPages: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }),
          offset: fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
          score: fc.double(),
          weight: fc.float(),
          checksum: fc.integer({ min: 0, max: 2 ** 32 - 1 }),
          pageToken: fc.string({ unit: "grapheme" }),
          cursor: fc.uint8Array({ maxLength: 40 }),
          tags: fc.array(fc.string({ unit: "grapheme-ascii" }), { maxLength: 4 }),
          url: fc.boolean(),
        }),
        (v) => {
          const json = {
            pageSize: v.pageSize,
            maxPages: v.maxPages.toString(),
            offset: v.offset.toString(),
            score: Number.isFinite(v.score) ? v.score : String(v.score),
            weight: Number.isFinite(v.weight) ? v.weight : String(v.weight),
            checksum: v.checksum,
            pageToken: v.pageToken,
            cursor: base64Encode(v.cursor, v.url ? "url" : "std"),
            tags: v.tags,
          };
          const query = Object.entries(json)
            .flatMap(([k, x]) => (Array.isArray(x) ? x.map((e) => `${k}=${enc(e)}`) : [`${k}=${enc(Object.is(x, -0) ? "-0" : String(x))}`]))
            .join("&");
          const got = decodeRequest(route, { variables: {}, query, body: undefined }) as ListBooksRequest;
          const want = fromJson(ListBooksRequestSchema, json);
          expect(toJson(ListBooksRequestSchema, got)).toEqual(toJson(ListBooksRequestSchema, want));
        },
      ),
      { numRuns: 300 },
    );
  });

  it("arbitrary query strings never throw anything but INVALID_ARGUMENT", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 60 }), (q) => {
        try {
          decodeRequest(route, { variables: {}, query: q, body: undefined });
        } catch (e) {
          expect((e as { code?: number }).code).toBe(3);
        }
      }),
      { numRuns: 500 },
    );
    void create;
  });
});
