import { create, toJson } from "@bufbuild/protobuf";
import { durationFromMs, timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { BookSchema, Genre, ShelfSchema } from "../../../gen/acme/library/v1/library_pb.js";
import { createLibraryServiceClient, type LibraryServiceClient } from "../../../gen/acme/library/v1/library_http_client.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { Code, RpcError, createRouteClient } from "a2a-http";
import { json, startRecorder, type Recorder } from "./recorder.js";

let server: Recorder;
let client: LibraryServiceClient;
beforeAll(async () => {
  server = await startRecorder();
  client = createLibraryServiceClient({ baseUrl: server.url + "/api" });
});
afterAll(() => server.close());
beforeEach(() => {
  server.respond = json(200, {});
});

const errorOf = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as RpcError,
  );

describe("library client on the wire", () => {
  const cases: { name: string; call: () => Promise<unknown>; method: string; url: string; body?: string }[] = [
    {
      name: "getBook: multi-segment variable",
      call: () => client.getBook({ name: "shelves/s1/books/b 1" }),
      method: "GET",
      url: "/v1/shelves/s1/books/b%201",
    },
    {
      name: "getBook: FieldMask query",
      call: () => client.getBook({ name: "shelves/s1/books/b1", readMask: { paths: ["title", "published_at"] } }),
      method: "GET",
      url: "/v1/shelves/s1/books/b1?readMask=title%2CpublishedAt",
    },
    {
      name: "createBook: body field, the rest in the query",
      call: () => client.createBook({ parent: "shelves/s1", bookId: "b1", book: { title: "T", pages: 12n, tags: ["x"] } }),
      method: "POST",
      url: "/v1/shelves/s1/books?bookId=b1",
      body: '{"title":"T","pages":"12","tags":["x"]}',
    },
    {
      name: "createBook: unset body field is {}",
      call: () => client.createBook({ parent: "shelves/s1" }),
      method: "POST",
      url: "/v1/shelves/s1/books",
      body: "{}",
    },
    {
      name: "updateBook: nested field path, left out of the body",
      call: () => client.updateBook({ book: { name: "shelves/s1/books/b1", title: "New" }, updateMask: { paths: ["title"] } }),
      method: "PATCH",
      url: "/v1/shelves/s1/books/b1?updateMask=title",
      body: '{"title":"New"}',
    },
    {
      name: "deleteBook",
      call: () => client.deleteBook({ name: "shelves/s1/books/b1", force: true }),
      method: "DELETE",
      url: "/v1/shelves/s1/books/b1?force=true",
    },
    { name: "listBooks: nothing set", call: () => client.listBooks({ parent: "shelves/s1" }), method: "GET", url: "/v1/shelves/s1/books" },
    {
      name: "listBooks: every query type",
      call: () =>
        client.listBooks({
          parent: "shelves/s1",
          pageSize: 20,
          pageToken: "tok en",
          filter: { author: "Le Guin", genre: Genre.FICTION, pages: { min: 10n, max: 9007199254740993n } },
          tags: ["a", "b,c"],
          genres: [Genre.FICTION, Genre.SCIENCE],
          includeDrafts: true,
          minRating: 0,
          maxPages: 18446744073709551615n,
          score: 1.5,
          weight: 0.25,
          cursor: new Uint8Array([0xfb, 0xff, 0x01]),
          publishedAfter: timestampFromDate(new Date("2020-05-06T07:08:09Z")),
          maxAge: durationFromMs(1500),
          readMask: { paths: ["title", "author"] },
          minPages: 0,
          titlePrefix: "The",
          hasCover: false,
          offset: -3n,
          checksum: 7,
          ids: [1n, -2n],
        }),
      method: "GET",
      url:
        "/v1/shelves/s1/books?pageSize=20&pageToken=tok%20en&filter.author=Le%20Guin&filter.genre=GENRE_FICTION" +
        "&filter.pages.min=10&filter.pages.max=9007199254740993&tags=a&tags=b%2Cc&genres=GENRE_FICTION&genres=GENRE_SCIENCE" +
        "&includeDrafts=true&minRating=0&maxPages=18446744073709551615&score=1.5&weight=0.25&cursor=%2B%2F8B" +
        "&publishedAfter=2020-05-06T07%3A08%3A09Z&maxAge=1.500s&readMask=title%2Cauthor&minPages=0&titlePrefix=The" +
        "&hasCover=false&offset=-3&checksum=7&ids=1&ids=-2",
    },
    {
      name: "listBooks: default values of non-optional fields are left out",
      call: () => client.listBooks({ parent: "shelves/s1", pageSize: 0, includeDrafts: false, pageToken: "", score: 0 }),
      method: "GET",
      url: "/v1/shelves/s1/books",
    },
    {
      name: "moveBook: body * without the path field",
      call: () => client.moveBook({ name: "shelves/s1/books/b1", destinationShelf: "s2" }),
      method: "POST",
      url: "/v1/shelves/s1/books/b1:move",
      body: '{"destinationShelf":"s2"}',
    },
    {
      name: "renameShelf: scalar body",
      call: () => client.renameShelf({ shelf: "s1", title: 'New "title"' }),
      method: "PUT",
      url: "/v1/shelves/s1/title",
      body: '"New \\"title\\""',
    },
    {
      name: "renameShelf: unset scalar body",
      call: () => client.renameShelf({ shelf: "s1" }),
      method: "PUT",
      url: "/v1/shelves/s1/title",
      body: '""',
    },
    {
      name: "getShelfTitle",
      call: () => ((server.respond = json(200, '"t"')), client.getShelfTitle({ shelf: "s/1" })),
      method: "GET",
      url: "/v1/shelves/s%2F1/title",
    },
    { name: "getFile: **", call: () => client.getFile({ path: "a/b c/ü.txt" }), method: "GET", url: "/v1/files/a/b%20c/%C3%BC.txt" },
    {
      name: "getFile: the binding with more fields wins",
      call: () => client.getFile({ path: "a/b", shelf: "s1" }),
      method: "GET",
      url: "/v1/shelves/s1/files/a/b:raw",
    },
    {
      name: "checkoutBook: custom method",
      call: () => client.checkoutBook({ name: "shelves/s1/books/b1", reader: "r:1" }),
      method: "CHECKOUT",
      url: "/v1/shelves/s1/books/b1?reader=r%3A1",
    },
  ];
  it.each(cases)("$name", async (c) => {
    await c.call();
    const r = server.last();
    expect(r.method).toBe(c.method);
    expect(r.url).toBe("/api" + c.url);
    expect(r.body).toBe(c.body ?? "");
    expect(r.headers["content-type"]).toBe(c.body === undefined ? undefined : "application/a2a+json");
  });

  it("watchShelf: a tie between bindings goes to the first in proto order", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end('data: {"shelf":"s1","sequence":1}\n\n');
    };
    const got = [];
    for await (const e of client.watchShelf({ shelf: "s1", maxEvents: 3 })) got.push(e.sequence);
    expect(got).toEqual([1]);
    expect(server.last().method).toBe("GET");
    expect(server.last().url).toBe("/api/v1/shelves/s1:watch?maxEvents=3");
    expect(server.last().headers["accept"]).toBe("text/event-stream");
  });

  it("response_body: the answer is the field alone", async () => {
    server.respond = json(200, '"The Left Hand"');
    const shelf = await client.getShelfTitle({ shelf: "s1" });
    expect(shelf).toEqual(create(ShelfSchema, { title: "The Left Hand" }));
  });

  it("decodes int64, enums and timestamps in the response", async () => {
    server.respond = json(200, {
      name: "shelves/s1/books/b1",
      pages: "12",
      genre: "GENRE_SCIENCE",
      published: "2020-01-01T00:00:00.5Z",
      tags: ["x"],
    });
    const book = await client.getBook({ name: "shelves/s1/books/b1" });
    expect(toJson(BookSchema, book)).toEqual({
      name: "shelves/s1/books/b1",
      pages: "12",
      genre: "GENRE_SCIENCE",
      published: "2020-01-01T00:00:00.500Z",
      tags: ["x"],
    });
  });
});

describe("library client: refused requests", () => {
  it("a value that does not match the variable's pattern", async () => {
    const err = await errorOf(client.getBook({ name: "books/b1" }));
    expect(err?.code).toBe(Code.INVALID_ARGUMENT);
    expect(err?.message).toContain("getBook");
    expect(err?.message).toContain('field name "books/b1" does not match the pattern');
  });
  it("a missing nested path field", async () => {
    const err = await errorOf(client.updateBook({ book: { title: "x" } }));
    expect(err?.message).toMatch(/updateBook: .*field book\.name is not set/);
  });
  it.each(["shelves/s1/books/..", "shelves/./books/b1"])("dot segments in a multi-segment value: %s", async (name) => {
    const before = server.requests.length;
    const err = await errorOf(client.getBook({ name }));
    expect(err?.code).toBe(Code.INVALID_ARGUMENT);
    expect(err?.message).toContain("path segment");
    expect(server.requests.length).toBe(before);
  });
  it("dot segments under **", async () => {
    const err = await errorOf(client.getFile({ path: "a/../../etc/passwd" }));
    expect(err?.message).toContain("path traversal");
  });
  it("an empty multi-segment part does not match", async () => {
    const err = await errorOf(client.getBook({ name: "shelves//books/b1" }));
    expect(err?.message).toContain("does not match");
  });
});

describe("the none profile", () => {
  it("sends application/json and no A2A-Version", async () => {
    const plain = createRouteClient<LibraryServiceClient>(LibraryServiceRoutes, { baseUrl: server.url });
    await plain.moveBook({ name: "shelves/s1/books/b1", destinationShelf: "s2" });
    const r = server.last();
    expect(r.headers["content-type"]).toBe("application/json");
    expect(r.headers["accept"]).toBe("application/json");
    expect(r.headers["a2a-version"]).toBeUndefined();
  });
  it("keeps GET for a streaming rpc and reads errors the same way", async () => {
    server.respond = json(404, { error: { code: 404, status: "NOT_FOUND", message: "no shelf", details: [] } });
    const plain = createRouteClient<LibraryServiceClient>(LibraryServiceRoutes, { baseUrl: server.url });
    const err = await errorOf(
      (async () => {
        for await (const _ of plain.watchShelf({ shelf: "s" })) void _;
      })(),
    );
    expect(err).toBeInstanceOf(RpcError);
    expect(err?.code).toBe(Code.NOT_FOUND);
    expect(server.last().method).toBe("GET");
  });
});
