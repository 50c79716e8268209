/**
 * The generated client against the three generated servers (Express, Fastify,
 * Hono): every rpc of a2a.proto and library.proto, with and without a tenant,
 * with ids that need escaping. Handlers echo what they received, so each test
 * checks that the request reached the handler exactly as the caller wrote it,
 * and that the three frameworks give the same results.
 */
import { create, toJson, type DescMessage, type MessageInitShape } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  CancelTaskRequestSchema,
  DeleteTaskPushNotificationConfigRequestSchema,
  GetExtendedAgentCardRequestSchema,
  GetTaskPushNotificationConfigRequestSchema,
  GetTaskRequestSchema,
  ListTaskPushNotificationConfigsRequestSchema,
  ListTasksRequestSchema,
  Role,
  SendMessageRequestSchema,
  SubscribeToTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  TaskState,
} from "../../../gen/a2a_pb.js";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import {
  CheckoutBookRequestSchema,
  CreateBookRequestSchema,
  DeleteBookRequestSchema,
  Genre,
  GetBookRequestSchema,
  GetFileRequestSchema,
  GetShelfRequestSchema,
  ListBooksRequestSchema,
  MoveBookRequestSchema,
  RenameShelfRequestSchema,
  UpdateBookRequestSchema,
  WatchShelfRequestSchema,
} from "../../../gen/acme/library/v1/library_pb.js";
import type { LibraryServiceHandlers } from "../../../gen/acme/library/v1/library_http.js";
import { createLibraryServiceClient } from "../../../gen/acme/library/v1/library_http_client.js";
import { A2AErrors, Code, RpcError, a2aErrorReason, type HandlerContext } from "a2a-http";
import { frameworks, serve, type Framework, type Served } from "./servers.js";

/** What the last handler call saw: the rpc, the request as JSON, the context's tenant. */
interface Seen {
  rpc: string;
  request: unknown;
  tenant: string | undefined;
}
const seen: Seen[] = [];
function record(rpc: string, schema: DescMessage, req: unknown, ctx: HandlerContext): void {
  seen.push({ rpc, request: toJson(schema, req as never), tenant: ctx.tenant });
}
const lastSeen = () => seen[seen.length - 1]!;

const a2aHandlers: A2AServiceHandlers = {
  sendMessage(req, ctx) {
    record("sendMessage", SendMessageRequestSchema, req, ctx);
    return { payload: { case: "message", value: { ...req.message!, role: Role.AGENT } } };
  },
  async *sendStreamingMessage(req, ctx) {
    record("sendStreamingMessage", SendMessageRequestSchema, req, ctx);
    yield { payload: { case: "task", value: { id: "t-" + req.message?.messageId, status: { state: TaskState.SUBMITTED } } } };
    yield { payload: { case: "statusUpdate", value: { taskId: "t-" + req.message?.messageId, status: { state: TaskState.COMPLETED } } } };
  },
  getTask(req, ctx) {
    record("getTask", GetTaskRequestSchema, req, ctx);
    if (req.id === "missing") throw A2AErrors.taskNotFound(req.id);
    return { id: req.id, contextId: ctx.tenant ?? "" };
  },
  listTasks(req, ctx) {
    record("listTasks", ListTasksRequestSchema, req, ctx);
    return { tasks: [{ id: "a" }, { id: "b" }], pageSize: req.pageSize ?? 50, totalSize: 2 };
  },
  cancelTask(req, ctx) {
    record("cancelTask", CancelTaskRequestSchema, req, ctx);
    return { id: req.id, status: { state: TaskState.CANCELED } };
  },
  async *subscribeToTask(req, ctx) {
    record("subscribeToTask", SubscribeToTaskRequestSchema, req, ctx);
    yield { payload: { case: "task", value: { id: req.id } } };
    yield { payload: { case: "artifactUpdate", value: { taskId: req.id, artifact: { artifactId: "x" } } } };
  },
  createTaskPushNotificationConfig(req, ctx) {
    record("createTaskPushNotificationConfig", TaskPushNotificationConfigSchema, req, ctx);
    return { ...req, id: req.id || "generated" };
  },
  getTaskPushNotificationConfig(req, ctx) {
    record("getTaskPushNotificationConfig", GetTaskPushNotificationConfigRequestSchema, req, ctx);
    return { taskId: req.taskId, id: req.id, url: "https://cb.example/" };
  },
  listTaskPushNotificationConfigs(req, ctx) {
    record("listTaskPushNotificationConfigs", ListTaskPushNotificationConfigsRequestSchema, req, ctx);
    return { configs: [{ taskId: req.taskId, id: "c1", url: "https://cb.example/" }], nextPageToken: req.pageToken + "+" };
  },
  getExtendedAgentCard(req, ctx) {
    record("getExtendedAgentCard", GetExtendedAgentCardRequestSchema, req, ctx);
    return { name: "agent", description: "for " + (ctx.tenant ?? "nobody"), version: "1" };
  },
  deleteTaskPushNotificationConfig(req, ctx) {
    record("deleteTaskPushNotificationConfig", DeleteTaskPushNotificationConfigRequestSchema, req, ctx);
    return {};
  },
};

const libraryHandlers: LibraryServiceHandlers = {
  getBook(req, ctx) {
    record("getBook", GetBookRequestSchema, req, ctx);
    return { name: req.name, title: "T", pages: 300n, genre: Genre.FICTION };
  },
  createBook(req, ctx) {
    record("createBook", CreateBookRequestSchema, req, ctx);
    return { ...req.book!, name: `${req.parent}/books/${req.bookId}` };
  },
  updateBook(req, ctx) {
    record("updateBook", UpdateBookRequestSchema, req, ctx);
    return { ...req.book! };
  },
  deleteBook(req, ctx) {
    record("deleteBook", DeleteBookRequestSchema, req, ctx);
    return {};
  },
  listBooks(req, ctx) {
    record("listBooks", ListBooksRequestSchema, req, ctx);
    return { books: [{ name: req.parent + "/books/1", tags: req.tags }], nextPageToken: req.pageToken };
  },
  moveBook(req, ctx) {
    record("moveBook", MoveBookRequestSchema, req, ctx);
    return { name: req.name.replace(/^shelves\/[^/]+/, "shelves/" + req.destinationShelf) };
  },
  renameShelf(req, ctx) {
    record("renameShelf", RenameShelfRequestSchema, req, ctx);
    return { shelf: req.shelf, title: req.title };
  },
  getShelfTitle(req, ctx) {
    record("getShelfTitle", GetShelfRequestSchema, req, ctx);
    return { shelf: req.shelf, title: "Title of " + req.shelf };
  },
  getFile(req, ctx) {
    record("getFile", GetFileRequestSchema, req, ctx);
    return { path: req.path, content: new TextEncoder().encode(req.shelf + ":" + req.path) };
  },
  checkoutBook(req, ctx) {
    record("checkoutBook", CheckoutBookRequestSchema, req, ctx);
    return { name: req.name, author: req.reader };
  },
  async *watchShelf(req, ctx) {
    record("watchShelf", WatchShelfRequestSchema, req, ctx);
    for (let i = 1; i <= req.maxEvents; i++) yield { shelf: req.shelf, sequence: i };
  },
};

const servers = new Map<Framework, Served>();
beforeAll(async () => {
  for (const f of frameworks) servers.set(f, await serve(f, a2aHandlers, libraryHandlers));
});
afterAll(async () => {
  for (const s of servers.values()) await s.close();
});

/** Results per test name and framework, to compare the three frameworks. */
const results = new Map<string, Map<Framework, unknown>>();
function keep(name: string, f: Framework, value: unknown): void {
  const m = results.get(name) ?? new Map<Framework, unknown>();
  m.set(f, value);
  results.set(name, m);
}

const drain = async <T>(it: AsyncIterable<T>) => {
  const out: T[] = [];
  for await (const m of it) out.push(m);
  return out;
};

/** Calls, then checks the handler saw `expected` (the request as the caller wrote it, plus the tenant). */
async function roundTrip<S extends DescMessage>(
  f: Framework,
  name: string,
  rpc: string,
  schema: S,
  init: MessageInitShape<S>,
  call: () => Promise<unknown>,
  tenant?: string,
): Promise<void> {
  const before = seen.length;
  const result = await call();
  expect(seen.length).toBe(before + 1);
  const got = lastSeen();
  expect(got.rpc).toBe(rpc);
  const expected = toJson(schema, create(schema, init)) as Record<string, unknown>;
  if (tenant) expected["tenant"] = tenant;
  expect(got.request).toEqual(expected);
  expect(got.tenant).toBe(tenant || undefined);
  const json = Array.isArray(result) ? result.map((m: { $typeName: string }) => m) : result;
  keep(name, f, json);
}

// No "/" in an A2A id or tenant: the server refuses one (docs/security.md, test/runtime/server/tenant.test.ts).
const ids = ["plain", "a?b", "a:b", "a b", "ü", "%", "a%2Fb", "!'()*", "x:cancel", "tasks", "..."];
const tenants = ["", "acme", "a b?ü#"];
const message = { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text" as const, value: "héllo" } }] };

describe.each(frameworks)("round trip on %s", (f) => {
  const a2aUrl = () => servers.get(f)!.url + "/a2a";
  const libUrl = () => servers.get(f)!.url + "/lib";

  describe.each(tenants)("A2A, tenant %j", (tenant) => {
    const client = () => createA2AServiceClient({ baseUrl: a2aUrl(), tenant });
    const t = tenant;

    it("sendMessage", async () => {
      const init = { message, configuration: { historyLength: 3, acceptedOutputModes: ["text/plain"] } };
      await roundTrip(f, `send ${t}`, "sendMessage", SendMessageRequestSchema, init, () => client().sendMessage(init), t);
    });
    it("sendStreamingMessage", async () => {
      const init = { message };
      await roundTrip(
        f,
        `stream ${t}`,
        "sendStreamingMessage",
        SendMessageRequestSchema,
        init,
        () => drain(client().sendStreamingMessage(init)),
        t,
      );
      expect(results.get(`stream ${t}`)!.get(f)).toHaveLength(2);
    });
    it.each(ids)("getTask, cancelTask, subscribeToTask with id %j", async (id) => {
      const c = client();
      await roundTrip(
        f,
        `get ${t} ${id}`,
        "getTask",
        GetTaskRequestSchema,
        { id, historyLength: 0 },
        () => c.getTask({ id, historyLength: 0 }),
        t,
      );
      await roundTrip(
        f,
        `cancel ${t} ${id}`,
        "cancelTask",
        CancelTaskRequestSchema,
        { id, metadata: { why: "test" } },
        () => c.cancelTask({ id, metadata: { why: "test" } }),
        t,
      );
      await roundTrip(
        f,
        `sub ${t} ${id}`,
        "subscribeToTask",
        SubscribeToTaskRequestSchema,
        { id },
        () => drain(c.subscribeToTask({ id })),
        t,
      );
    });
    it.each(ids)("push config CRUD with ids %j", async (id) => {
      const c = client();
      const cfg = { taskId: id, id, url: "https://cb.example/hook?x=1", token: "tok" };
      await roundTrip(
        f,
        `pcreate ${t} ${id}`,
        "createTaskPushNotificationConfig",
        TaskPushNotificationConfigSchema,
        cfg,
        () => c.createTaskPushNotificationConfig(cfg),
        t,
      );
      await roundTrip(
        f,
        `pget ${t} ${id}`,
        "getTaskPushNotificationConfig",
        GetTaskPushNotificationConfigRequestSchema,
        { taskId: id, id },
        () => c.getTaskPushNotificationConfig({ taskId: id, id }),
        t,
      );
      await roundTrip(
        f,
        `plist ${t} ${id}`,
        "listTaskPushNotificationConfigs",
        ListTaskPushNotificationConfigsRequestSchema,
        { taskId: id, pageSize: 2, pageToken: "p q" },
        () => c.listTaskPushNotificationConfigs({ taskId: id, pageSize: 2, pageToken: "p q" }),
        t,
      );
      await roundTrip(
        f,
        `pdel ${t} ${id}`,
        "deleteTaskPushNotificationConfig",
        DeleteTaskPushNotificationConfigRequestSchema,
        { taskId: id, id },
        () => c.deleteTaskPushNotificationConfig({ taskId: id, id }),
        t,
      );
    });
    it("listTasks with every query field", async () => {
      const init = {
        contextId: "c/1 ü",
        status: TaskState.INPUT_REQUIRED,
        pageSize: 0,
        pageToken: "a+b",
        historyLength: 2,
        statusTimestampAfter: timestampFromDate(new Date("2026-03-04T05:06:07.089Z")),
        includeArtifacts: false,
      };
      await roundTrip(f, `list ${t}`, "listTasks", ListTasksRequestSchema, init, () => client().listTasks(init), t);
      await roundTrip(f, `list0 ${t}`, "listTasks", ListTasksRequestSchema, {}, () => client().listTasks({}), t);
    });
    it("getExtendedAgentCard", async () => {
      await roundTrip(
        f,
        `card ${t}`,
        "getExtendedAgentCard",
        GetExtendedAgentCardRequestSchema,
        {},
        () => client().getExtendedAgentCard({}),
        t,
      );
    });
    it("an A2A error keeps its code, status and reason", async () => {
      const err = (await client()
        .getTask({ id: "missing" })
        .catch((e: unknown) => e)) as RpcError;
      expect(err).toBeInstanceOf(RpcError);
      expect(err.code).toBe(Code.NOT_FOUND);
      expect(err.httpStatus).toBe(404);
      expect(a2aErrorReason(err)).toBe("TASK_NOT_FOUND");
      keep(`err ${t}`, f, { code: err.code, message: err.message, details: err.details });
    });
  });

  describe("library", () => {
    const client = () => createLibraryServiceClient({ baseUrl: libUrl() });
    const names = ["shelves/s1/books/b1", "shelves/a b/books/ü", "shelves/%/books/a%2Fb", "shelves/x:y/books/!'()*", "shelves/s/books/..."];

    it.each(names)("getBook, deleteBook, checkoutBook, moveBook with name %j", async (name) => {
      const c = client();
      await roundTrip(f, `lget ${name}`, "getBook", GetBookRequestSchema, { name, readMask: { paths: ["title", "author"] } }, () =>
        c.getBook({ name, readMask: { paths: ["title", "author"] } }),
      );
      await roundTrip(f, `ldel ${name}`, "deleteBook", DeleteBookRequestSchema, { name, force: true }, () =>
        c.deleteBook({ name, force: true }),
      );
      await roundTrip(f, `lco ${name}`, "checkoutBook", CheckoutBookRequestSchema, { name, reader: "r&d" }, () =>
        c.checkoutBook({ name, reader: "r&d" }),
      );
      await roundTrip(f, `lmove ${name}`, "moveBook", MoveBookRequestSchema, { name, destinationShelf: "s 2" }, () =>
        c.moveBook({ name, destinationShelf: "s 2" }),
      );
    });
    it("createBook and updateBook (body field, nested path field)", async () => {
      const c = client();
      const create1 = {
        parent: "shelves/ü",
        bookId: "b 1",
        book: {
          title: "T",
          pages: 12n,
          genre: Genre.SCIENCE,
          tags: ["x", "y"],
          published: timestampFromDate(new Date("2001-02-03T04:05:06Z")),
        },
      };
      await roundTrip(f, "lcreate", "createBook", CreateBookRequestSchema, create1, () => c.createBook(create1));
      const update = { book: { name: "shelves/s1/books/b:1", title: "New", author: "A" }, updateMask: { paths: ["title", "author"] } };
      await roundTrip(f, "lupdate", "updateBook", UpdateBookRequestSchema, update, () => c.updateBook(update));
    });
    it("listBooks with every query type", async () => {
      const init = {
        parent: "shelves/s 1",
        pageSize: 20,
        pageToken: "tok en",
        filter: { author: "Le Guin", genre: Genre.FICTION, pages: { min: 10n, max: 9007199254740993n } },
        tags: ["a", "b,c", "d&e"],
        genres: [Genre.FICTION, Genre.SCIENCE],
        includeDrafts: true,
        minRating: 0,
        maxPages: 18446744073709551615n,
        score: 1.5,
        weight: 0.25,
        cursor: new Uint8Array([0xfb, 0xff, 0x01, 0x3e]),
        publishedAfter: timestampFromDate(new Date("2020-05-06T07:08:09.5Z")),
        maxAge: { seconds: 90n, nanos: 500_000_000 },
        readMask: { paths: ["title", "author"] },
        minPages: 0,
        titlePrefix: "The ",
        hasCover: false,
        offset: -3n,
        checksum: 7,
        ids: [1n, -2n],
      };
      await roundTrip(f, "llist", "listBooks", ListBooksRequestSchema, init, () => c().listBooks(init));
      function c() {
        return client();
      }
    });
    it("renameShelf (scalar body) and getShelfTitle (response_body)", async () => {
      const c = client();
      await roundTrip(f, "lrename", "renameShelf", RenameShelfRequestSchema, { shelf: "s/1", title: 'New "title" ü' }, () =>
        c.renameShelf({ shelf: "s/1", title: 'New "title" ü' }),
      );
      await roundTrip(f, "ltitle", "getShelfTitle", GetShelfRequestSchema, { shelf: "s/1" }, () => c.getShelfTitle({ shelf: "s/1" }));
      expect(results.get("ltitle")!.get(f)).toMatchObject({ shelf: "", title: "Title of s/1" });
    });
    it.each([
      { path: "a/b c/ü.txt", shelf: "" },
      { path: "x", shelf: "s 1" },
      { path: "deep/er/%2F/file", shelf: "s:1" },
    ])("getFile %j (** and the binding with more fields)", async (init) => {
      await roundTrip(f, `lfile ${init.path} ${init.shelf}`, "getFile", GetFileRequestSchema, init, () => client().getFile(init));
    });
    it("watchShelf", async () => {
      await roundTrip(f, "lwatch", "watchShelf", WatchShelfRequestSchema, { shelf: "s:1", maxEvents: 3 }, () =>
        drain(client().watchShelf({ shelf: "s:1", maxEvents: 3 })),
      );
      expect(results.get("lwatch")!.get(f)).toHaveLength(3);
    });
  });
});

describe("the three frameworks agree", () => {
  it("every result is the same on Express, Fastify and Hono", () => {
    expect(results.size).toBeGreaterThan(100);
    for (const [name, byFramework] of results) {
      expect(byFramework.size, name).toBe(3);
      const express = byFramework.get("express");
      expect(byFramework.get("fastify"), `${name} on fastify`).toEqual(express);
      expect(byFramework.get("hono"), `${name} on hono`).toEqual(express);
    }
  });
});
