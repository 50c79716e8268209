import { describe, expect, it } from "vitest";
import { decodeRequest } from "../../../packages/runtime/src/transcoding/index.js";
import { ListBooksRequestSchema, Genre, type ListBooksRequest } from "../../../gen/acme/library/v1/library_pb.js";
import { ListTasksRequestSchema, TaskState, type ListTasksRequest, type GetTaskRequest } from "../../../gen/a2a_pb.js";
import { a2a, invalid, json, lib, violations } from "./helpers.js";

const listBooks = lib("listBooks");
const list = (query: string, opts?: { commaLists?: boolean }) =>
  decodeRequest(listBooks, { variables: { parent: "shelves/1" }, query, body: undefined }, opts) as ListBooksRequest;

describe("query: every type of ListBooksRequest", () => {
  it("decodes every field kind by JSON name", () => {
    const q = [
      "pageSize=25",
      "pageToken=abc",
      "filter.author=Ann",
      "filter.genre=GENRE_SCIENCE",
      "filter.pages.min=10",
      "filter.pages.max=-20",
      "tags=a",
      "tags=b",
      "genres=GENRE_FICTION",
      "genres=2",
      "includeDrafts=true",
      "minRating=0",
      "maxPages=18446744073709551615",
      "score=1.5e3",
      "weight=-0.25",
      "cursor=AQID",
      "publishedAfter=2024-05-06T07:08:09.123456789Z",
      "maxAge=1.5s",
      "readMask=title,author.name,bookId",
      "minPages=7",
      "titlePrefix=The",
      "hasCover=false",
      "offset=-9223372036854775808",
      "checksum=4294967295",
      "ids=1",
      "ids=9007199254740993",
    ].join("&");
    const m = list(q);
    expect(m.parent).toBe("shelves/1");
    expect(m.pageSize).toBe(25);
    expect(m.pageToken).toBe("abc");
    expect(m.filter?.author).toBe("Ann");
    expect(m.filter?.genre).toBe(Genre.SCIENCE);
    expect(m.filter?.pages?.min).toBe(10n);
    expect(m.filter?.pages?.max).toBe(-20n);
    expect(m.tags).toEqual(["a", "b"]);
    expect(m.genres).toEqual([Genre.FICTION, Genre.SCIENCE]);
    expect(m.includeDrafts).toBe(true);
    expect(m.minRating).toBe(0); // optional: set, even at zero
    expect(m.maxPages).toBe(18446744073709551615n);
    expect(m.score).toBe(1500);
    expect(m.weight).toBe(-0.25);
    expect([...m.cursor]).toEqual([1, 2, 3]);
    expect(m.publishedAfter?.nanos).toBe(123456789);
    expect(m.publishedAfter?.seconds).toBe(BigInt(Date.parse("2024-05-06T07:08:09Z") / 1000));
    expect(m.maxAge?.seconds).toBe(1n);
    expect(m.maxAge?.nanos).toBe(500_000_000);
    expect(m.readMask?.paths).toEqual(["title", "author.name", "book_id"]);
    expect(m.minPages).toBe(7);
    expect(m.titlePrefix).toBe("The");
    expect(m.hasCover).toBe(false);
    expect(m.offset).toBe(-9223372036854775808n);
    expect(m.checksum).toBe(4294967295);
    expect(m.ids).toEqual([1n, 9007199254740993n]);
  });

  it("accepts proto names, and proto and JSON names mixed in one dotted path", () => {
    const m = list(
      "page_size=5&page_token=t&include_drafts=true&filter.pages.min=1&filter.pages.max=2&max_age=3s&title_prefix=x&read_mask=book_id",
    );
    expect(m.pageSize).toBe(5);
    expect(m.pageToken).toBe("t");
    expect(m.includeDrafts).toBe(true);
    expect(m.filter?.pages?.min).toBe(1n);
    expect(m.maxAge?.seconds).toBe(3n);
    expect(m.titlePrefix).toBe("x");
    expect(m.readMask?.paths).toEqual(["book_id"]);
  });

  it("leaves fields that are not given unset (optional and wrappers keep presence)", () => {
    const m = list("");
    expect(m.minRating).toBeUndefined();
    expect(m.minPages).toBeUndefined();
    expect(m.filter).toBeUndefined();
    expect(json(ListBooksRequestSchema, m)).toEqual({ parent: "shelves/1" });
  });

  it("enums by name or number", () => {
    expect(list("filter.genre=1").filter?.genre).toBe(Genre.FICTION);
    expect(list("filter.genre=GENRE_FICTION").filter?.genre).toBe(Genre.FICTION);
    expect(list("filter.genre=0").filter?.genre).toBe(Genre.UNSPECIFIED);
  });

  it("float and double special values", () => {
    expect(list("score=NaN").score).toBeNaN();
    expect(list("score=Infinity").score).toBe(Infinity);
    expect(list("weight=-Infinity").weight).toBe(-Infinity);
    expect(list("score=.5").score).toBe(0.5);
    expect(list("score=-3").score).toBe(-3);
    expect(list("score=1e-3").score).toBe(0.001);
    expect(list("score=1E%2B3").score).toBe(1000);
  });

  it("bytes: base64, base64url, padded or not, and a '+' that arrived as a space", () => {
    expect([...list("cursor=-_8").cursor]).toEqual([251, 255]);
    expect([...list("cursor=%2B%2F8%3D").cursor]).toEqual([251, 255]);
    expect([...list("cursor=+/8=").cursor]).toEqual([251, 255]);
    expect([...list("cursor=").cursor]).toEqual([]);
    expect([...list("cursor=aGk").cursor]).toEqual([104, 105]);
  });

  it("Timestamp with 0 to 9 fractional digits and offsets", () => {
    for (const [text, nanos] of [
      ["2024-01-01T00:00:00Z", 0],
      ["2024-01-01T00:00:00.5Z", 500_000_000],
      ["2024-01-01T00:00:00.12Z", 120_000_000],
      ["2024-01-01T00:00:00.000000001Z", 1],
    ] as const) {
      expect(list(`publishedAfter=${text}`).publishedAfter?.nanos).toBe(nanos);
    }
    const off = list("publishedAfter=2024-01-01T02:00:00%2B02:00").publishedAfter;
    expect(off?.seconds).toBe(BigInt(Date.parse("2024-01-01T00:00:00Z") / 1000));
  });

  it("Duration forms", () => {
    expect(list("maxAge=0s").maxAge?.seconds).toBe(0n);
    expect(list("maxAge=-1.25s").maxAge).toMatchObject({ seconds: -1n, nanos: -250_000_000 });
    expect(list("maxAge=46800s").maxAge?.seconds).toBe(46800n);
  });

  it("FieldMask: empty, camel and snake paths", () => {
    expect(list("readMask=").readMask?.paths).toEqual([]);
    expect(list("readMask=pageSize,filter.pages").readMask?.paths).toEqual(["page_size", "filter.pages"]);
  });

  it("wrappers take the bare scalar", () => {
    const m = list("minPages=-3&titlePrefix=&hasCover=true");
    expect(m.minPages).toBe(-3);
    expect(m.titlePrefix).toBe("");
    expect(m.hasCover).toBe(true);
  });

  it("'+' is a space and %XX is decoded, in names and values", () => {
    const m = list("pageToken=a+b%20c%2Bd%26e%3Df&filter%2Eauthor=%C3%A9");
    expect(m.pageToken).toBe("a b c+d&e=f");
    expect(m.filter?.author).toBe("é");
  });

  it("a parameter without '=' is an empty value", () => {
    expect(list("pageToken").pageToken).toBe("");
    expect(list("tags").tags).toEqual([""]);
  });

  it("ignores unknown parameters, empty pairs, and non-leaf or non-query fields", () => {
    const m = list(
      "&&nope=1&filter=x&filter.nope=3&filter.pages=3&books.title=x&__proto__=1&constructor=2&toString=3&hasOwnProperty=4&A2A-Version=1.0&pageSize=2&",
    );
    expect(json(ListBooksRequestSchema, m)).toEqual({ parent: "shelves/1", pageSize: 2 });
  });

  it("names are case-sensitive", () => {
    expect(list("PageSize=3").pageSize).toBe(0);
    expect(list("Filter.author=x&filter.Author=y").filter).toBeUndefined();
  });

  it("ignores a parameter for a field the path binds (the path wins)", () => {
    const m = list("parent=shelves/evil&pageSize=1");
    expect(m.parent).toBe("shelves/1");
    expect(m.pageSize).toBe(1);
  });

  it("repeated fields repeat the parameter; a comma is part of the value unless commaLists", () => {
    expect(list("tags=a,b&tags=c").tags).toEqual(["a,b", "c"]);
    expect(list("tags=a,b&tags=c", { commaLists: true }).tags).toEqual(["a", "b", "c"]);
    expect(list("tags=a%2Cb,c", { commaLists: true }).tags).toEqual(["a,b", "c"]);
    expect(list("genres=GENRE_FICTION,2", { commaLists: true }).genres).toEqual([Genre.FICTION, Genre.SCIENCE]);
    expect(list("ids=1,2&ids=3", { commaLists: true }).ids).toEqual([1n, 2n, 3n]);
    // commaLists does not touch singular fields
    expect(list("pageToken=a,b", { commaLists: true }).pageToken).toBe("a,b");
  });
});

describe("query: bad input is INVALID_ARGUMENT naming the parameter", () => {
  const bad: [string, string][] = [
    ["pageSize=abc", "pageSize"],
    ["pageSize=", "pageSize"],
    ["pageSize=1.5", "pageSize"],
    ["pageSize=2147483648", "pageSize"],
    ["pageSize=-2147483649", "pageSize"],
    ["page_size=0x10", "page_size"],
    ["pageSize=%201", "pageSize"],
    ["checksum=-1", "checksum"],
    ["checksum=4294967296", "checksum"],
    ["maxPages=-1", "maxPages"],
    ["maxPages=18446744073709551616", "maxPages"],
    ["offset=9223372036854775808", "offset"],
    ["ids=1&ids=x", "ids"],
    ["filter.pages.min=1e3", "filter.pages.min"],
    ["includeDrafts=1", "includeDrafts"],
    ["includeDrafts=TRUE", "includeDrafts"],
    ["includeDrafts=", "includeDrafts"],
    ["score=abc", "score"],
    ["score=1e999", "score"],
    ["score=nan", "score"],
    ["weight=1e39", "weight"],
    ["cursor=%%", "query"],
    ["cursor=a*b", "cursor"],
    ["cursor=a", "cursor"],
    ["filter.genre=GENRE_NOPE", "filter.genre"],
    ["filter.genre=genre_fiction", "filter.genre"],
    ["filter.genre=99", "filter.genre"],
    ["genres=GENRE_FICTION&genres=x", "genres"],
    ["publishedAfter=yesterday", "publishedAfter"],
    ["publishedAfter=2024-01-01", "publishedAfter"],
    ["publishedAfter=2024-01-01T00:00:00", "publishedAfter"],
    ["publishedAfter=2024-01-01T00:00:00.1234567891Z", "publishedAfter"],
    ["maxAge=5", "maxAge"],
    ["maxAge=1h", "maxAge"],
    ["readMask=a,,b", "readMask"],
    ["readMask=a b", "readMask"],
    ["minPages=x", "minPages"],
    ["hasCover=yes", "hasCover"],
  ];
  for (const [q, param] of bad) {
    it(q, () => {
      const e = invalid(() => list(q));
      if (param !== "query") {
        expect(e.message).toContain(`"${param}"`);
        expect(violations(e)).toEqual([param]);
      }
    });
  }

  it("a singular field given twice", () => {
    for (const q of [
      "pageSize=1&pageSize=1",
      "pageSize=1&page_size=2",
      "filter.author=a&filter.author=b",
      "filter.pages.min=1&filter.pages.min=1",
      "minPages=1&min_pages=1",
      "publishedAfter=2024-01-01T00:00:00Z&publishedAfter=2024-01-01T00:00:00Z",
      "readMask=a&readMask=b",
    ]) {
      const e = invalid(() => list(q));
      expect(e.message).toMatch(/more than once/);
    }
    const e = invalid(() => list("pageSize=1&page_size=2"));
    expect(e.message).toContain(`"page_size"`);
    expect(e.message).toContain(`"pageSize"`);
  });

  it("malformed percent-escapes anywhere in the query", () => {
    for (const q of ["pageToken=%", "pageToken=%G1", "pageToken=%2", "pa%geSize=1", "unknown=%zz", "pageToken=%FF", "pageToken=%C3"]) {
      const e = invalid(() => list(q));
      expect(e.message).toMatch(/percent-escape/);
    }
  });

  it("the value in a message is shortened", () => {
    const e = invalid(() => list("pageSize=" + "9".repeat(500)));
    expect(e.message.length).toBeLessThan(200);
  });
});

describe("query: A2A ListTasks and GetTask", () => {
  const listTasks = a2a("listTasks");
  const decode = (query: string) =>
    decodeRequest(listTasks, { variables: {}, query, body: undefined }, { commaLists: true }) as ListTasksRequest;

  it("reads every ListTasks parameter", () => {
    const m = decode(
      "contextId=ctx-1&status=TASK_STATE_WORKING&pageSize=10&pageToken=tok&historyLength=0&statusTimestampAfter=2025-01-02T03:04:05.6Z&includeArtifacts=true",
    );
    expect(m.contextId).toBe("ctx-1");
    expect(m.status).toBe(TaskState.WORKING);
    expect(m.pageSize).toBe(10);
    expect(m.pageToken).toBe("tok");
    expect(m.historyLength).toBe(0);
    expect(m.statusTimestampAfter?.nanos).toBe(600_000_000);
    expect(m.includeArtifacts).toBe(true);
    expect(json(ListTasksRequestSchema, m)).toEqual({
      contextId: "ctx-1",
      status: "TASK_STATE_WORKING",
      pageSize: 10,
      pageToken: "tok",
      historyLength: 0,
      statusTimestampAfter: "2025-01-02T03:04:05.600Z",
      includeArtifacts: true,
    });
  });

  it("status by number; bad status, page size or timestamp is a 400", () => {
    expect(decode("status=3").status).toBe(3);
    expect(violations(invalid(() => decode("status=WORKING")))).toEqual(["status"]);
    expect(violations(invalid(() => decode("pageSize=ten")))).toEqual(["pageSize"]);
    expect(violations(invalid(() => decode("statusTimestampAfter=2025-13-01T00:00:00Z")))).toEqual(["statusTimestampAfter"]);
    expect(violations(invalid(() => decode("includeArtifacts=yes")))).toEqual(["includeArtifacts"]);
  });

  it("optional fields stay unset when absent", () => {
    const m = decode("");
    expect(m.pageSize).toBeUndefined();
    expect(m.historyLength).toBeUndefined();
    expect(m.includeArtifacts).toBeUndefined();
  });

  it("a query tenant stays in the request without a path tenant; the path tenant wins over it", () => {
    expect(decode("tenant=t1").tenant).toBe("t1");
    const withTenant = decodeRequest(a2a("listTasks", "additional"), {
      variables: { tenant: "p" },
      query: "tenant=q",
      body: undefined,
    }) as ListTasksRequest;
    expect(withTenant.tenant).toBe("p");
  });

  it("GetTask: id from the path, historyLength from the query", () => {
    const m = decodeRequest(a2a("getTask"), {
      variables: { id: "t/1 x" },
      query: "historyLength=2&id=other",
      body: undefined,
    }) as GetTaskRequest;
    expect(m.id).toBe("t/1 x");
    expect(m.historyLength).toBe(2);
    expect(
      violations(invalid(() => decodeRequest(a2a("getTask"), { variables: { id: "x" }, query: "historyLength=2abc", body: undefined }))),
    ).toEqual(["historyLength"]);
  });
});
