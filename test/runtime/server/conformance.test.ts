// One conformance table, run on Express, Fastify and Hono: request in;
// status, body and decoded request out. Every framework must give the same
// answer, which the table states once.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { frameworks, start, type Running } from "./harness.js";
import { parseSse, recordingHandlers, send } from "./recording.js";

interface Case {
  readonly name: string;
  readonly method?: string;
  /** Path below the mount point, with query. */
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly status: number;
  /** The exact response JSON (or the SSE events' data, in order). */
  readonly response?: unknown;
  readonly sse?: boolean;
  /** The rpc called and its decoded request (ProtoJSON); omitted: no call. */
  readonly rpc?: string;
  readonly request?: unknown;
  readonly tenant?: string;
  readonly allow?: string;
}

const book = { name: "shelves/s1/books/b1", title: "Dune", pages: "412", genre: "GENRE_FICTION", tags: ["sf"] };
const libraryAnswers: Record<string, unknown> = {
  getBook: { name: "shelves/s1/books/b1", title: "Dune", pages: 412n, genre: 1, tags: ["sf"] },
  createBook: { name: "shelves/s1/books/b1", title: "Dune", pages: 412n, genre: 1, tags: ["sf"] },
  updateBook: { name: "shelves/s1/books/b1", title: "Dune", pages: 412n, genre: 1, tags: ["sf"] },
  moveBook: { name: "shelves/s1/books/b1", title: "Dune", pages: 412n, genre: 1, tags: ["sf"] },
  checkoutBook: { name: "shelves/s1/books/b1", title: "Dune", pages: 412n, genre: 1, tags: ["sf"] },
  deleteBook: {},
  listBooks: { books: [{ name: "shelves/s1/books/b1" }], nextPageToken: "next" },
  renameShelf: { shelf: "s1", title: "New" },
  getShelfTitle: { shelf: "s1", title: "Classics" },
  getFile: { path: "a/b", content: new Uint8Array([1, 2, 3]) },
  watchShelf: [
    { shelf: "s1", sequence: 1 },
    { shelf: "s1", sequence: 2, book: { title: "Dune" } },
  ],
};

const json = { "content-type": "application/json" };

const libraryCases: Case[] = [
  {
    name: "multi-segment variable",
    path: "/v1/shelves/s1/books/b1",
    status: 200,
    response: book,
    rpc: "getBook",
    request: { name: "shelves/s1/books/b1" },
  },
  {
    name: "multi-segment keeps %2F, decodes the rest",
    path: "/v1/shelves/s%2F1/books/a%20b",
    status: 200,
    response: book,
    rpc: "getBook",
    request: { name: "shelves/s%2F1/books/a b" },
  },
  {
    name: "trailing slash is dropped",
    path: "/v1/shelves/s1/books/b1/",
    status: 200,
    response: book,
    rpc: "getBook",
    request: { name: "shelves/s1/books/b1" },
  },
  {
    name: "FieldMask query on GET",
    path: "/v1/shelves/s1/books/b1?readMask=title,author",
    status: 200,
    response: book,
    rpc: "getBook",
    request: { name: "shelves/s1/books/b1", readMask: "title,author" },
  },
  {
    name: "body is a message field, rest from query",
    method: "POST",
    path: "/v1/shelves/s1/books?bookId=b9&book_id_unknown=1",
    headers: json,
    body: JSON.stringify({ title: "Dune", pages: "412" }),
    status: 200,
    response: book,
    rpc: "createBook",
    request: { parent: "shelves/s1", book: { title: "Dune", pages: "412" }, bookId: "b9" },
  },
  {
    name: "nested field path variable wins over the body",
    method: "PATCH",
    path: "/v1/shelves/s1/books/b1?updateMask=title",
    headers: json,
    body: JSON.stringify({ name: "shelves/x/books/y", title: "New" }),
    status: 200,
    response: book,
    rpc: "updateBook",
    request: { book: { name: "shelves/s1/books/b1", title: "New" }, updateMask: "title" },
  },
  {
    name: "Empty response is {}",
    method: "DELETE",
    path: "/v1/shelves/s1/books/b1?force=true",
    status: 200,
    response: {},
    rpc: "deleteBook",
    request: { name: "shelves/s1/books/b1", force: true },
  },
  {
    name: "every query type",
    path:
      "/v1/shelves/s1/books?pageSize=10&page_token=abc&filter.author=Ann&filter.genre=GENRE_FICTION&filter.pages.min=5" +
      "&tags=a&tags=b&genres=1&genres=GENRE_SCIENCE&includeDrafts=true&minRating=3&maxPages=18446744073709551615" +
      "&score=1.5&weight=0.25&cursor=AQID&publishedAfter=2024-01-02T03:04:05.123Z&maxAge=3.5s&readMask=title,author" +
      "&minPages=7&titlePrefix=Da&hasCover=false&offset=-9&checksum=4294967295&ids=1&ids=2&unknown=zzz",
    status: 200,
    response: { books: [{ name: "shelves/s1/books/b1" }], nextPageToken: "next" },
    rpc: "listBooks",
    request: {
      parent: "shelves/s1",
      pageSize: 10,
      pageToken: "abc",
      filter: { author: "Ann", genre: "GENRE_FICTION", pages: { min: "5" } },
      tags: ["a", "b"],
      genres: ["GENRE_FICTION", "GENRE_SCIENCE"],
      includeDrafts: true,
      minRating: 3,
      maxPages: "18446744073709551615",
      score: 1.5,
      weight: 0.25,
      cursor: "AQID",
      publishedAfter: "2024-01-02T03:04:05.123Z",
      maxAge: "3.500s",
      readMask: "title,author",
      minPages: 7,
      titlePrefix: "Da",
      hasCover: false,
      offset: "-9",
      checksum: 4294967295,
      ids: ["1", "2"],
    },
  },
  {
    name: "bytes as base64url",
    path: "/v1/shelves/s1/books?cursor=-_8",
    status: 200,
    response: { books: [{ name: "shelves/s1/books/b1" }], nextPageToken: "next" },
    rpc: "listBooks",
    request: { parent: "shelves/s1", cursor: "+/8=" },
  },
  {
    name: "proto names in the query",
    path: "/v1/shelves/s1/books?page_size=3&include_drafts=true&filter.pages.max=9",
    status: 200,
    response: { books: [{ name: "shelves/s1/books/b1" }], nextPageToken: "next" },
    rpc: "listBooks",
    request: { parent: "shelves/s1", pageSize: 3, includeDrafts: true, filter: { pages: { max: "9" } } },
  },
  {
    name: "custom verb on a multi-segment variable",
    method: "POST",
    path: "/v1/shelves/s1/books/b1:move",
    headers: json,
    body: JSON.stringify({ name: "ignored", destinationShelf: "s2" }),
    status: 200,
    response: book,
    rpc: "moveBook",
    request: { name: "shelves/s1/books/b1", destinationShelf: "s2" },
  },
  { name: "a verb needs its method (405)", path: "/v1/shelves/s1/books/b1:move", status: 405, allow: "OPTIONS, POST" },
  {
    name: "scalar body field",
    method: "PUT",
    path: "/v1/shelves/s1/title",
    headers: json,
    body: JSON.stringify("New"),
    status: 200,
    response: { shelf: "s1", title: "New" },
    rpc: "renameShelf",
    request: { shelf: "s1", title: "New" },
  },
  {
    name: "response_body",
    path: "/v1/shelves/s1/title",
    status: 200,
    response: "Classics",
    rpc: "getShelfTitle",
    request: { shelf: "s1" },
  },
  {
    name: "** takes many segments",
    path: "/v1/files/a/b/c.txt",
    status: 200,
    response: { path: "a/b", content: "AQID" },
    rpc: "getFile",
    request: { path: "a/b/c.txt" },
  },
  {
    name: "** takes zero segments",
    path: "/v1/files",
    status: 200,
    response: { path: "a/b", content: "AQID" },
    rpc: "getFile",
    request: {},
  },
  {
    name: "a colon that is no verb is part of the value",
    path: "/v1/files/a:b",
    status: 200,
    response: { path: "a/b", content: "AQID" },
    rpc: "getFile",
    request: { path: "a:b" },
  },
  {
    name: "** before a verb (additional binding)",
    path: "/v1/shelves/s1/files/x/y:raw",
    status: 200,
    response: { path: "a/b", content: "AQID" },
    rpc: "getFile",
    request: { shelf: "s1", path: "x/y" },
  },
  {
    name: "custom HTTP method",
    method: "CHECKOUT",
    path: "/v1/shelves/s1/books/b1?reader=ann",
    status: 200,
    response: book,
    rpc: "checkoutBook",
    request: { name: "shelves/s1/books/b1", reader: "ann" },
  },
  {
    name: "server stream (SSE) on GET",
    path: "/v1/shelves/s1:watch?maxEvents=2",
    status: 200,
    sse: true,
    response: [
      { shelf: "s1", sequence: 1 },
      { shelf: "s1", sequence: 2, book: { title: "Dune" } },
    ],
    rpc: "watchShelf",
    request: { shelf: "s1", maxEvents: 2 },
  },
  {
    name: "server stream (SSE) on POST with body *",
    method: "POST",
    path: "/v1/shelves/s1:watch",
    headers: json,
    body: JSON.stringify({ maxEvents: 2, shelf: "other" }),
    status: 200,
    sse: true,
    response: [
      { shelf: "s1", sequence: 1 },
      { shelf: "s1", sequence: 2, book: { title: "Dune" } },
    ],
    rpc: "watchShelf",
    request: { shelf: "s1", maxEvents: 2 },
  },
  { name: "unknown path (404)", path: "/v1/nothing/here", status: 404 },
  {
    name: "wrong method (405)",
    method: "POST",
    path: "/v1/shelves/s1/books/b1",
    status: 405,
    allow: "CHECKOUT, DELETE, GET, HEAD, OPTIONS, PATCH",
  },
];

const a2a = { "a2a-version": "1.0" };
const a2aJson = { "a2a-version": "1.0", "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const task = { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } };
const a2aAnswers: Record<string, unknown> = {
  sendMessage: { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: 2 } } } },
  sendStreamingMessage: [
    { payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: 2 } } } },
    { payload: { case: "statusUpdate", value: { taskId: "t1", contextId: "c1", status: { state: 3 } } } },
  ],
  getTask: { id: "t1", contextId: "c1", status: { state: 2 } },
  listTasks: { tasks: [{ id: "t1", contextId: "c1", status: { state: 2 } }], nextPageToken: "p2", pageSize: 1, totalSize: 5 },
  cancelTask: { id: "t1", contextId: "c1", status: { state: 2 } },
  subscribeToTask: [{ payload: { case: "task", value: { id: "t1", contextId: "c1", status: { state: 2 } } } }],
  createTaskPushNotificationConfig: { taskId: "t1", id: "c1", url: "https://example.com/hook" },
  getTaskPushNotificationConfig: { taskId: "t1", id: "c1", url: "https://example.com/hook" },
  listTaskPushNotificationConfigs: { configs: [{ taskId: "t1", id: "c1", url: "https://example.com/hook" }] },
  getExtendedAgentCard: { name: "Agent", description: "d", version: "1" },
  deleteTaskPushNotificationConfig: {},
};
const stream = [{ task }, { statusUpdate: { taskId: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } } }];
const pushConfig = { taskId: "t1", id: "c1", url: "https://example.com/hook" };

const a2aCases: Case[] = [
  {
    name: "SendMessage",
    method: "POST",
    path: "/message:send",
    headers: a2aJson,
    body: JSON.stringify({ message }),
    status: 200,
    response: { task },
    rpc: "sendMessage",
    request: { message },
  },
  {
    name: "SendMessage under a tenant, the body agreeing",
    method: "POST",
    path: "/acme/message:send",
    headers: a2aJson,
    body: JSON.stringify({ tenant: "acme", message }),
    status: 200,
    response: { task },
    rpc: "sendMessage",
    request: { tenant: "acme", message },
    tenant: "acme",
  },
  // One tenant per request (docs/security.md): the path and the body disagreeing is refused, not settled.
  {
    name: "SendMessage under a tenant, the body naming another: 400",
    method: "POST",
    path: "/acme/message:send",
    headers: a2aJson,
    body: JSON.stringify({ tenant: "other", message }),
    status: 400,
  },
  {
    name: "a2a+json request with charset",
    method: "POST",
    path: "/message:send",
    headers: { ...a2a, "content-type": "application/a2a+json; charset=utf-8" },
    body: JSON.stringify({ message }),
    status: 200,
    response: { task },
    rpc: "sendMessage",
    request: { message },
  },
  {
    name: "SendStreamingMessage (SSE)",
    method: "POST",
    path: "/message:stream",
    headers: a2aJson,
    body: JSON.stringify({ message }),
    status: 200,
    sse: true,
    response: stream,
    rpc: "sendStreamingMessage",
    request: { message },
  },
  {
    name: "GetTask with historyLength",
    path: "/tasks/t1?historyLength=3",
    headers: a2a,
    status: 200,
    response: task,
    rpc: "getTask",
    request: { id: "t1", historyLength: 3 },
  },
  {
    name: "GetTask under a tenant",
    path: "/acme/tasks/t1",
    headers: a2a,
    status: 200,
    response: task,
    rpc: "getTask",
    request: { tenant: "acme", id: "t1" },
    tenant: "acme",
  },
  {
    name: "GetTask of id 'tasks' (literal beats variable)",
    path: "/tasks/tasks",
    headers: a2a,
    status: 200,
    response: task,
    rpc: "getTask",
    request: { id: "tasks" },
  },
  {
    name: "an escaped colon is no verb",
    path: "/tasks/abc%3Asubscribe",
    headers: a2a,
    status: 200,
    response: task,
    rpc: "getTask",
    request: { id: "abc:subscribe" },
  },
  // A2A ids and tenants may not hold "/" (docs/security.md); library.proto's generic profile still decodes %2F.
  { name: "%2F in a single-segment A2A id: 400", path: "/tasks/a%2Fb", headers: a2a, status: 400 },
  {
    name: "ListTasks query",
    path: "/tasks?contextId=c1&status=TASK_STATE_WORKING&pageSize=5&pageToken=p&historyLength=2&statusTimestampAfter=2024-01-01T00:00:00.5Z&includeArtifacts=true",
    headers: a2a,
    status: 200,
    response: { tasks: [task], nextPageToken: "p2", pageSize: 1, totalSize: 5 },
    rpc: "listTasks",
    request: {
      contextId: "c1",
      status: "TASK_STATE_WORKING",
      pageSize: 5,
      pageToken: "p",
      historyLength: 2,
      statusTimestampAfter: "2024-01-01T00:00:00.500Z",
      includeArtifacts: true,
    },
  },
  {
    name: "ListTasks under a tenant",
    path: "/acme/tasks?status=3",
    headers: a2a,
    status: 200,
    response: { tasks: [task], nextPageToken: "p2", pageSize: 1, totalSize: 5 },
    rpc: "listTasks",
    request: { tenant: "acme", status: "TASK_STATE_COMPLETED" },
    tenant: "acme",
  },
  {
    name: "CancelTask, empty body",
    method: "POST",
    path: "/tasks/t1:cancel",
    headers: a2a,
    status: 200,
    response: task,
    rpc: "cancelTask",
    request: { id: "t1" },
  },
  {
    name: "CancelTask, body null",
    method: "POST",
    path: "/tasks/t1:cancel",
    headers: a2aJson,
    body: "null",
    status: 200,
    response: task,
    rpc: "cancelTask",
    request: { id: "t1" },
  },
  {
    name: "CancelTask, body {}",
    method: "POST",
    path: "/tasks/t1:cancel",
    headers: a2aJson,
    body: "{}",
    status: 200,
    response: task,
    rpc: "cancelTask",
    request: { id: "t1" },
  },
  {
    name: "CancelTask with metadata",
    method: "POST",
    path: "/tasks/t1:cancel",
    headers: a2aJson,
    body: JSON.stringify({ id: "x", metadata: { why: "done" } }),
    status: 200,
    response: task,
    rpc: "cancelTask",
    request: { id: "t1", metadata: { why: "done" } },
  },
  { name: "GET on :cancel is 405", path: "/tasks/t1:cancel", headers: a2a, status: 405, allow: "OPTIONS, POST" },
  {
    name: "SubscribeToTask on GET",
    path: "/tasks/t1:subscribe",
    headers: a2a,
    status: 200,
    sse: true,
    response: [{ task }],
    rpc: "subscribeToTask",
    request: { id: "t1" },
  },
  {
    name: "SubscribeToTask on POST, empty body",
    method: "POST",
    path: "/tasks/t1:subscribe",
    headers: a2a,
    status: 200,
    sse: true,
    response: [{ task }],
    rpc: "subscribeToTask",
    request: { id: "t1" },
  },
  {
    name: "SubscribeToTask on POST, body null",
    method: "POST",
    path: "/tasks/t1:subscribe",
    headers: a2aJson,
    body: "null",
    status: 200,
    sse: true,
    response: [{ task }],
    rpc: "subscribeToTask",
    request: { id: "t1" },
  },
  {
    name: "SubscribeToTask on POST under a tenant, body {}",
    method: "POST",
    path: "/acme/tasks/t1:subscribe",
    headers: a2aJson,
    body: "{}",
    status: 200,
    sse: true,
    response: [{ task }],
    rpc: "subscribeToTask",
    request: { tenant: "acme", id: "t1" },
    tenant: "acme",
  },
  {
    name: "CreateTaskPushNotificationConfig answers 200",
    method: "POST",
    path: "/tasks/t1/pushNotificationConfigs",
    headers: a2aJson,
    body: JSON.stringify({ taskId: "zzz", id: "c1", url: "https://example.com/hook" }),
    status: 200,
    response: pushConfig,
    rpc: "createTaskPushNotificationConfig",
    request: { taskId: "t1", id: "c1", url: "https://example.com/hook" },
  },
  {
    name: "GetTaskPushNotificationConfig",
    path: "/tasks/t1/pushNotificationConfigs/c1",
    headers: a2a,
    status: 200,
    response: pushConfig,
    rpc: "getTaskPushNotificationConfig",
    request: { taskId: "t1", id: "c1" },
  },
  {
    name: "ListTaskPushNotificationConfigs",
    path: "/tasks/t1/pushNotificationConfigs?pageSize=2",
    headers: a2a,
    status: 200,
    response: { configs: [pushConfig] },
    rpc: "listTaskPushNotificationConfigs",
    request: { taskId: "t1", pageSize: 2 },
  },
  {
    name: "DeleteTaskPushNotificationConfig answers 200 {}",
    method: "DELETE",
    path: "/acme/tasks/t1/pushNotificationConfigs/c1",
    headers: a2a,
    status: 200,
    response: {},
    rpc: "deleteTaskPushNotificationConfig",
    request: { tenant: "acme", taskId: "t1", id: "c1" },
    tenant: "acme",
  },
  {
    name: "GetExtendedAgentCard",
    path: "/extendedAgentCard",
    headers: a2a,
    status: 200,
    response: {
      name: "Agent",
      description: "d",
      version: "1",
      supportedInterfaces: [],
      defaultInputModes: [],
      defaultOutputModes: [],
      skills: [],
    },
    rpc: "getExtendedAgentCard",
    request: {},
  },
  { name: "unknown path (404)", path: "/nothing", headers: a2a, status: 404 },
];

/** The library cases under the A2A profile (as gen/ is generated): every request carries A2A-Version. */
const withVersion = (cases: Case[]): Case[] => cases.map((c) => ({ ...c, headers: { ...c.headers, "a2a-version": "1.0" } }));

const suites = [
  { kind: "library-none" as const, routes: LibraryServiceRoutes, answers: libraryAnswers, cases: libraryCases, type: "application/json" },
  {
    kind: "library" as const,
    routes: LibraryServiceRoutes,
    answers: libraryAnswers,
    cases: withVersion(libraryCases),
    type: "application/a2a+json",
  },
  { kind: "a2a" as const, routes: A2AServiceRoutes, answers: a2aAnswers, cases: a2aCases, type: "application/a2a+json" },
];

for (const suite of suites) {
  describe.each(frameworks)(`${suite.kind} conformance on %s`, (framework) => {
    const { handlers, calls } = recordingHandlers(suite.routes, suite.answers);
    let server: Running;
    beforeAll(async () => {
      server = await start(framework, { kind: suite.kind, handlers } as never, { onError: () => {} });
    });
    afterAll(() => server.close());

    test.each(suite.cases)("$name", async (c) => {
      calls.length = 0;
      const res = await send(server.url + c.path, {
        method: c.method ?? "GET",
        headers: c.headers ?? {},
        ...(c.body !== undefined ? { body: c.body } : {}),
      });
      expect(res.status, res.text).toBe(c.status);
      if (c.status >= 400) {
        expect(res.headers.get("content-type")).toBe(suite.type);
        const err = (res.json as { error: { code: number; status: string; message: string } }).error;
        expect(err.code).toBe(c.status);
        expect(err.message).toEqual(expect.any(String));
        if (c.allow) expect(res.headers.get("allow")).toBe(c.allow);
        expect(calls).toEqual([]);
        return;
      }
      if (c.sse) {
        expect(res.headers.get("content-type")).toBe("text/event-stream");
        expect(res.headers.get("cache-control")).toBe("no-cache");
        expect(res.headers.get("x-accel-buffering")).toBe("no");
        expect(parseSse(res.text)).toEqual((c.response as unknown[]).map((data) => ({ event: "message", data })));
      } else {
        expect(res.headers.get("content-type")).toBe(suite.type);
        expect(res.json).toEqual(c.response);
      }
      expect(calls).toHaveLength(1);
      expect(calls[0]!.rpc).toBe(c.rpc);
      expect(calls[0]!.request).toEqual(c.request);
      expect(calls[0]!.tenant).toBe(c.tenant);
    });
  });
}
