import { describe, expect, it } from "vitest";
import { decodeRequest, parseJsonBody } from "../../../packages/runtime/src/transcoding/index.js";
import {
  CreateBookRequestSchema,
  Genre,
  MoveBookRequestSchema,
  RenameShelfRequestSchema,
  UpdateBookRequestSchema,
  type CreateBookRequest,
  type DeleteBookRequest,
  type MoveBookRequest,
  type RenameShelfRequest,
  type UpdateBookRequest,
  type WatchShelfRequest,
} from "../../../gen/acme/library/v1/library_pb.js";
import { type CancelTaskRequest, type SendMessageRequest, type TaskPushNotificationConfig, Role } from "../../../gen/a2a_pb.js";
import { a2a, invalid, json, lib, violations } from "./helpers.js";

const decode = (
  rpc: string,
  variables: Record<string, string>,
  query: string,
  body: unknown,
  binding: "primary" | "additional" = "primary",
) => decodeRequest(lib(rpc, binding), { variables, query, body });

describe('body "*"', () => {
  const move = (body: unknown, query = "") => decode("moveBook", { name: "shelves/1/books/2" }, query, body) as MoveBookRequest;

  it("the JSON body is the request; path variables on top", () => {
    const m = move({ destinationShelf: "shelves/9" });
    expect(json(MoveBookRequestSchema, m)).toEqual({ name: "shelves/1/books/2", destinationShelf: "shelves/9" });
  });

  it("accepts proto names and ignores unknown fields", () => {
    const m = move({ destination_shelf: "s", extra: { deep: [1, 2] } });
    expect(m.destinationShelf).toBe("s");
  });

  it("the path wins over the body", () => {
    expect(move({ name: "shelves/evil/books/x", destinationShelf: "s" }).name).toBe("shelves/1/books/2");
  });

  it("the query string is not read", () => {
    expect(move({}, "destinationShelf=q&name=x").destinationShelf).toBe("");
  });

  it("no body, null and {} are an empty message", () => {
    for (const body of [undefined, null, {}]) {
      expect(json(MoveBookRequestSchema, move(body))).toEqual({ name: "shelves/1/books/2" });
    }
  });

  it("a body that is not an object is a 400", () => {
    for (const body of [[], [1], "x", 5, true]) {
      invalid(() => move(body));
    }
  });

  it("a JSON value of the wrong type is a 400 naming the field", () => {
    const e = invalid(() => move({ destinationShelf: 5 }));
    expect(violations(e)).toEqual(["destinationShelf"]);
    expect(e.message).toContain("destinationShelf");
  });

  it("A2A SendMessage: tenant from the path over the body's; nested wrong types named by JSON path", () => {
    const send = a2a("sendMessage", "additional");
    const body = { tenant: "body", message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } };
    const m = decodeRequest(send, { variables: { tenant: "path" }, query: "", body }) as SendMessageRequest;
    expect(m.tenant).toBe("path");
    expect(m.message?.role).toBe(Role.USER);
    expect(m.message?.parts[0]?.content).toEqual({ case: "text", value: "hi" });
    // without a path tenant the body's tenant stays
    expect((decodeRequest(a2a("sendMessage"), { variables: {}, query: "", body }) as SendMessageRequest).tenant).toBe("body");

    const cases: [unknown, string][] = [
      [{ message: { parts: [{ text: "ok" }, { text: 5 }] } }, "message.parts[1].text"],
      [{ message: { parts: "x" } }, "message.parts"],
      [{ message: { role: 1.5 } }, "message.role"],
      [{ message: "x" }, "message"],
      [{ configuration: { historyLength: "abc" } }, "configuration.historyLength"],
      [{ metadata: 5 }, "metadata"],
      [{ message: { parts: [{ raw: "***" }] } }, "message.parts[0].raw"],
    ];
    for (const [b, path] of cases) {
      const e = invalid(() => decodeRequest(send, { variables: { tenant: "t" }, query: "", body: b }));
      expect(violations(e), JSON.stringify(b)).toEqual([path]);
      expect(e.message).toContain(`"${path}"`);
    }
  });

  it("errors that involve two keys still name a field", () => {
    // a oneof set twice
    const e = invalid(() =>
      decodeRequest(a2a("sendMessage"), { variables: {}, query: "", body: { message: { parts: [{ text: "a", url: "b" }] } } }),
    );
    expect(e.message).toMatch(/oneof/);
    // one field by both of its names
    const e2 = invalid(() => move({ destinationShelf: "a", destination_shelf: "b" }));
    expect(violations(e2)).toEqual(["destinationShelf"]);
  });

  it("an unknown enum name is an invalid enum value, not a silently unset field", () => {
    const send = (body: unknown) => decodeRequest(a2a("sendMessage"), { variables: {}, query: "", body }) as SendMessageRequest;
    for (const body of [{ message: { role: "ROLE_NOPE" } }, { message: { role: "ROLE_NOPE" }, extra: 1 }]) {
      const e = invalid(() => send(body));
      expect(e.message).toBe(
        'invalid enum value "ROLE_NOPE" for field "message.role": lf.a2a.v1.Role takes ROLE_UNSPECIFIED, ROLE_USER, ROLE_AGENT',
      );
      expect(violations(e)).toEqual(["message.role"]);
    }
    // under a body: "field" binding, with an unknown field beside it
    const e = invalid(() => decode("createBook", { parent: "shelves/1" }, "", { title: "t", genre: "GENRE_NOPE", unknown: 1 }));
    expect(violations(e)).toEqual(["book.genre"]);
    // unknown fields alone are still ignored, and enum numbers are still read
    expect(send({ message: { role: "ROLE_USER", unknown: { deep: [1] } } }).message?.role).toBe(Role.USER);
    expect(send({ message: { role: 2 } }).message?.role).toBe(Role.AGENT);
  });

  it("A2A :cancel accepts an empty body, null or {}", () => {
    for (const body of [undefined, null, {}]) {
      const m = decodeRequest(a2a("cancelTask"), { variables: { id: "t1" }, query: "", body }) as CancelTaskRequest;
      expect(m.id).toBe("t1");
    }
  });

  it("A2A CreateTaskPushNotificationConfig: task_id from the path over the body", () => {
    const m = decodeRequest(a2a("createTaskPushNotificationConfig"), {
      variables: { task_id: "path-task" },
      query: "",
      body: { taskId: "body-task", url: "https://x", id: "c1" },
    }) as TaskPushNotificationConfig;
    expect(m.taskId).toBe("path-task");
    expect(m.id).toBe("c1");
    expect(m.url).toBe("https://x");
  });

  it('additional binding with body "*" (WatchShelf POST)', () => {
    const m = decode("watchShelf", { shelf: "s1" }, "maxEvents=9", { maxEvents: 3, shelf: "no" }, "additional") as WatchShelfRequest;
    expect(m.shelf).toBe("s1");
    expect(m.maxEvents).toBe(3);
  });
});

describe('body "field"', () => {
  it("a message field: the JSON is that field; the rest comes from the query", () => {
    const m = decode("createBook", { parent: "shelves/1" }, "bookId=b1&book.title=ignored&parent=x", {
      title: "T",
      pages: "12",
      genre: "GENRE_FICTION",
      tags: ["a"],
      published: "2020-01-01T00:00:00Z",
    }) as CreateBookRequest;
    expect(json(CreateBookRequestSchema, m)).toEqual({
      parent: "shelves/1",
      bookId: "b1",
      book: { title: "T", pages: "12", genre: "GENRE_FICTION", tags: ["a"], published: "2020-01-01T00:00:00Z" },
    });
  });

  it("the body's field names are JSON paths under the body field", () => {
    const e = invalid(() => decode("createBook", { parent: "shelves/1" }, "", { pages: "many" }));
    expect(violations(e)).toEqual(["book.pages"]);
    const e2 = invalid(() => decode("createBook", { parent: "shelves/1" }, "", [1]));
    expect(violations(e2)).toEqual(["book"]);
  });

  it("a nested path variable inside the body field wins (UpdateBook book.name)", () => {
    const m = decode("updateBook", { "book.name": "shelves/1/books/2" }, "updateMask=title", {
      name: "other",
      title: "New",
    }) as UpdateBookRequest;
    expect(json(UpdateBookRequestSchema, m)).toEqual({ book: { name: "shelves/1/books/2", title: "New" }, updateMask: "title" });
  });

  it("a nested path variable creates the intermediate message when there is no body", () => {
    const m = decode("updateBook", { "book.name": "shelves/1/books/2" }, "", undefined) as UpdateBookRequest;
    expect(m.book?.name).toBe("shelves/1/books/2");
  });

  it("a scalar field: RenameShelf title", () => {
    const m = decode("renameShelf", { shelf: "s1" }, "title=fromQuery", "New title") as RenameShelfRequest;
    expect(json(RenameShelfRequestSchema, m)).toEqual({ shelf: "s1", title: "New title" });
    expect((decode("renameShelf", { shelf: "s1" }, "", null) as RenameShelfRequest).title).toBe("");
    expect((decode("renameShelf", { shelf: "s1" }, "", undefined) as RenameShelfRequest).title).toBe("");
    const e = invalid(() => decode("renameShelf", { shelf: "s1" }, "", 42));
    expect(violations(e)).toEqual(["title"]);
    invalid(() => decode("renameShelf", { shelf: "s1" }, "", { title: "x" }));
  });

  it("no body: a body is not read at all; every unbound field comes from the query", () => {
    const m = decode("deleteBook", { name: "shelves/1/books/2" }, "force=true", { force: false, name: "x" }) as DeleteBookRequest;
    expect(m.name).toBe("shelves/1/books/2");
    expect(m.force).toBe(true);
  });
});

describe("path variables", () => {
  it("string fields take the value as is, multi-segment included", () => {
    const m = decode("getFile", { shelf: "a b", path: "x/y%2Fz/ü" }, "", undefined, "additional");
    expect(m).toMatchObject({ shelf: "a b", path: "x/y%2Fz/ü" });
  });

  it("numbers, bools and enums are parsed; a bad one is a 400 naming the variable", async () => {
    // Use a synthetic route over ListBooksRequest to bind non-string fields.
    const base = lib("listBooks");
    const route = {
      ...base,
      template: "/x/{page_size}/{include_drafts}/{filter.genre}/{filter.pages.min}",
      path: {
        ...base.path,
        variables: [
          { fieldPath: ["page_size"], start: 1, end: 2, multiSegment: false },
          { fieldPath: ["include_drafts"], start: 2, end: 3, multiSegment: false },
          { fieldPath: ["filter", "genre"], start: 3, end: 4, multiSegment: false },
          { fieldPath: ["filter", "pages", "min"], start: 4, end: 5, multiSegment: false },
        ],
      },
    };
    const vars = { page_size: "7", include_drafts: "true", "filter.genre": "GENRE_SCIENCE", "filter.pages.min": "-5" };
    const m = decodeRequest(route, {
      variables: vars,
      query: "filter.author=a&filter.genre=1",
      body: undefined,
    }) as import("../../../gen/acme/library/v1/library_pb.js").ListBooksRequest;
    expect(m.pageSize).toBe(7);
    expect(m.includeDrafts).toBe(true);
    expect(m.filter?.genre).toBe(Genre.SCIENCE);
    expect(m.filter?.author).toBe("a");
    expect(m.filter?.pages?.min).toBe(-5n);
    for (const [k, v] of [
      ["page_size", "x"],
      ["include_drafts", "yes"],
      ["filter.genre", "NOPE"],
      ["filter.pages.min", "1.5"],
    ] as const) {
      const e = invalid(() => decodeRequest(route, { variables: { ...vars, [k]: v }, query: "", body: undefined }));
      expect(violations(e)).toEqual([k]);
      expect(e.message).toContain(`path variable "${k}"`);
    }
  });
});

describe("parseJsonBody", () => {
  it("empty is undefined; JSON values pass through", () => {
    expect(parseJsonBody("")).toBeUndefined();
    expect(parseJsonBody(" \n")).toBeUndefined();
    expect(parseJsonBody("null")).toBeNull();
    expect(parseJsonBody('{"a":[1,{"b":"proto"}]}')).toEqual({ a: [1, { b: "proto" }] });
    expect(parseJsonBody('"x"')).toBe("x");
  });

  it("invalid JSON is INVALID_ARGUMENT", () => {
    for (const t of ["{", "{'a':1}", "nul", '{"a":1,}', "\u0000"]) {
      const e = invalid(() => parseJsonBody(t));
      expect(e.message).toMatch(/not valid JSON/);
    }
  });
});

describe("prototype pollution", () => {
  const payloads = [
    '{"__proto__":{"polluted":"yes"}}',
    '{"message":{"__proto__":{"polluted":"yes"}}}',
    '{"metadata":{"__proto__":{"polluted":"yes"}}}',
    '{"message":{"parts":[{"data":{"__proto__":{"polluted":"yes"}}}]}}',
    '{"constructor":{"prototype":{"polluted":"yes"}}}',
    '{"metadata":{"a":{"constructor":{"prototype":{"polluted":"yes"}}}}}',
    '{"\\u005f\\u005fproto\\u005f\\u005f":{"polluted":"yes"}}',
    '[{"__proto__":{"polluted":"yes"}}]',
  ];
  for (const p of payloads) {
    it(`rejects ${p}`, () => {
      const e = invalid(() => parseJsonBody(p));
      expect(e.message).toMatch(/forbidden key/);
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    });
  }

  it("keys that merely contain the words are fine", () => {
    expect(parseJsonBody('{"proto":1,"myconstructor":2,"__proto":3,"text":"__proto__ constructor"}')).toEqual({
      proto: 1,
      myconstructor: 2,
      __proto: 3,
      text: "__proto__ constructor",
    });
  });

  it("decodeRequest on a hand-made body with __proto__ keys does not pollute", () => {
    const body = JSON.parse(
      '{"__proto__":{"polluted":"yes"},"metadata":{"constructor":{"x":1}},"message":{"messageId":"m","__proto__":{"role":"ROLE_AGENT"}}}',
    );
    const m = decodeRequest(a2a("sendMessage"), { variables: {}, query: "", body }) as SendMessageRequest;
    expect(m.message?.role).toBe(Role.UNSPECIFIED);
    expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
    expect(Object.prototype).not.toHaveProperty("polluted");
  });
});
