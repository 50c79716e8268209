import { describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { EmptySchema } from "@bufbuild/protobuf/wkt";
import { encodeResponse } from "../../../packages/runtime/src/transcoding/index.js";
import { BookSchema, Genre, ShelfSchema, ListBooksResponseSchema } from "../../../gen/acme/library/v1/library_pb.js";
import { TaskSchema, TaskState } from "../../../gen/a2a_pb.js";
import { a2a, lib } from "./helpers.js";

describe("encodeResponse", () => {
  it("ProtoJSON of the whole message, defaults omitted", () => {
    const book = create(BookSchema, { name: "shelves/1/books/2", pages: 12n, genre: Genre.FICTION, tags: ["a"] });
    expect(encodeResponse(lib("getBook"), book)).toEqual({ name: "shelves/1/books/2", pages: "12", genre: "GENRE_FICTION", tags: ["a"] });
    expect(encodeResponse(lib("listBooks"), create(ListBooksResponseSchema))).toEqual({});
  });

  it("response_body: only that field's JSON (GetShelfTitle)", () => {
    const route = lib("getShelfTitle");
    expect(encodeResponse(route, create(ShelfSchema, { shelf: "s", title: "Hello" }))).toBe("Hello");
    expect(encodeResponse(route, create(ShelfSchema, { shelf: "s" }))).toBe("");
  });

  it("response_body of other kinds (synthetic routes)", () => {
    const base = lib("listBooks");
    const books = { ...base, responseBody: "books" };
    const resp = create(ListBooksResponseSchema, { books: [{ title: "A" }], nextPageToken: "n" });
    expect(encodeResponse(books, resp)).toEqual([{ title: "A" }]);
    expect(encodeResponse(books, create(ListBooksResponseSchema))).toEqual([]);
    const task = { ...a2a("getTask"), responseBody: "status" };
    expect(encodeResponse(task, create(TaskSchema, { id: "t", status: { state: TaskState.WORKING } }))).toEqual({
      state: "TASK_STATE_WORKING",
    });
    expect(encodeResponse(task, create(TaskSchema, { id: "t" }))).toEqual({});
  });

  it("google.protobuf.Empty is {}", () => {
    expect(encodeResponse(lib("deleteBook"), create(EmptySchema))).toEqual({});
    expect(encodeResponse(a2a("deleteTaskPushNotificationConfig"), create(EmptySchema))).toEqual({});
  });

  it("A2A Task", () => {
    const t = create(TaskSchema, { id: "t1", contextId: "c", status: { state: TaskState.COMPLETED } });
    expect(encodeResponse(a2a("getTask"), t)).toEqual({ id: "t1", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } });
  });
});
