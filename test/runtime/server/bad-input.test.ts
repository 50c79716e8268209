// design.md "Bad input": each malformed request gets its status and a
// google.rpc.Status body, never reaches the handler, and the server stays up.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { frameworks, start, type Running } from "./harness.js";
import { recordingHandlers, send } from "./recording.js";

interface BadCase {
  readonly name: string;
  readonly method?: string;
  readonly path: string;
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly status: number;
  readonly code: string;
  /** Text the message must contain. */
  readonly says?: string;
  readonly reason?: string;
  /** BadRequest field violations' fields that must appear. */
  readonly fields?: readonly string[];
}

const v = { "a2a-version": "1.0" };
const j = { ...v, "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const LIMIT = 64 * 1024;

const a2aCases: BadCase[] = [
  {
    name: "invalid JSON",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: '{"message":',
    status: 400,
    code: "INVALID_ARGUMENT",
    reason: "INVALID_PARAMS",
  },
  {
    name: "a JSON value of the wrong type (string for a message)",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: JSON.stringify({ message: "hello" }),
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "message",
  },
  {
    name: "a JSON array for the request",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: "[1,2]",
    status: 400,
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a number for a string field",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: JSON.stringify({ message: { ...message, messageId: 5 } }),
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "messageId",
  },
  {
    name: "a body over the limit (413)",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: JSON.stringify({ message: { ...message, parts: [{ text: "x".repeat(LIMIT) }] } }),
    status: 413,
    code: "RESOURCE_EXHAUSTED",
    says: String(LIMIT),
  },
  {
    name: "a wrong Content-Type",
    method: "POST",
    path: "/message:send",
    headers: { ...v, "content-type": "text/plain" },
    body: JSON.stringify({ message }),
    status: 400,
    code: "INVALID_ARGUMENT",
    reason: "CONTENT_TYPE_NOT_SUPPORTED",
    says: "text/plain",
  },
  {
    name: "a form Content-Type",
    method: "POST",
    path: "/tasks/t1:cancel",
    headers: { ...v, "content-type": "application/x-www-form-urlencoded" },
    body: "a=b",
    status: 400,
    code: "INVALID_ARGUMENT",
    reason: "CONTENT_TYPE_NOT_SUPPORTED",
  },
  {
    name: "a malformed percent-escape in the path",
    path: "/tasks/a%zzb",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "escape",
  },
  { name: "a percent-escape that is not UTF-8", path: "/tasks/a%ff", headers: v, status: 400, code: "INVALID_ARGUMENT" },
  {
    name: "an unparsable integer in the query",
    path: "/tasks?pageSize=abc",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "pageSize",
  },
  {
    name: "a trailing-garbage integer in the query",
    path: "/tasks/t1?historyLength=2abc",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "historyLength",
  },
  {
    name: "an unknown enum name in the query",
    path: "/tasks?status=TASK_STATE_NOPE",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "status",
  },
  {
    name: "a bad bool in the query",
    path: "/tasks?includeArtifacts=maybe",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "includeArtifacts",
  },
  {
    name: "a bad timestamp in the query",
    path: "/tasks?statusTimestampAfter=yesterday",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "statusTimestampAfter",
  },
  {
    name: "a singular field given twice",
    path: "/tasks?pageSize=1&pageSize=2",
    headers: v,
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "pageSize",
  },
  {
    name: "a missing REQUIRED field",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: "{}",
    status: 400,
    code: "INVALID_ARGUMENT",
    fields: ["message"],
  },
  {
    name: "a missing nested REQUIRED field",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: JSON.stringify({ message: { role: "ROLE_USER", parts: [] } }),
    status: 400,
    code: "INVALID_ARGUMENT",
    fields: ["message.messageId", "message.parts"],
  },
  {
    name: "a __proto__ key",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: '{"__proto__":{"polluted":true},"message":' + JSON.stringify(message) + "}",
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "__proto__",
  },
  {
    name: "a constructor key",
    method: "POST",
    path: "/message:send",
    headers: j,
    body: '{"message":' + JSON.stringify({ ...message, constructor: { prototype: { polluted: true } } }) + "}",
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "constructor",
  },
  {
    name: "an unsupported A2A-Version",
    path: "/tasks/t1",
    headers: { "a2a-version": "2.0" },
    status: 400,
    code: "FAILED_PRECONDITION",
    reason: "VERSION_NOT_SUPPORTED",
    says: "2.0",
  },
  {
    name: "a missing A2A-Version (0.3)",
    path: "/tasks/t1",
    status: 400,
    code: "FAILED_PRECONDITION",
    reason: "VERSION_NOT_SUPPORTED",
    says: "0.3",
  },
];

const libraryCases: BadCase[] = [
  {
    name: "invalid JSON",
    method: "PUT",
    path: "/v1/shelves/s1/title",
    headers: { "content-type": "application/json" },
    body: '"unterminated',
    status: 400,
    code: "INVALID_ARGUMENT",
  },
  {
    name: "wrong type for a scalar body field",
    method: "PUT",
    path: "/v1/shelves/s1/title",
    headers: { "content-type": "application/json" },
    body: "{}",
    status: 400,
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a wrong Content-Type (415 in the generic profile)",
    method: "POST",
    path: "/v1/shelves/s1/books/b1:move",
    headers: { "content-type": "text/plain" },
    body: "{}",
    status: 415,
    code: "INVALID_ARGUMENT",
  },
  {
    name: "a missing REQUIRED field (body *)",
    method: "POST",
    path: "/v1/shelves/s1/books/b1:move",
    headers: { "content-type": "application/json" },
    body: "{}",
    status: 400,
    code: "INVALID_ARGUMENT",
    fields: ["destinationShelf"],
  },
  {
    name: "a missing REQUIRED body field",
    method: "POST",
    path: "/v1/shelves/s1/books",
    status: 400,
    code: "INVALID_ARGUMENT",
    fields: ["book"],
  },
  {
    name: "int64 out of range in the query",
    path: "/v1/shelves/s1/books?maxPages=18446744073709551616",
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "maxPages",
  },
  { name: "bad base64 in the query", path: "/v1/shelves/s1/books?cursor=%%%", status: 400, code: "INVALID_ARGUMENT" },
  { name: "a bad duration in the query", path: "/v1/shelves/s1/books?maxAge=soon", status: 400, code: "INVALID_ARGUMENT", says: "maxAge" },
  {
    name: "a bad wrapper value in the query",
    path: "/v1/shelves/s1/books?minPages=many",
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "minPages",
  },
  {
    name: "a nested singular field twice",
    path: "/v1/shelves/s1/books?filter.author=a&filter.author=b",
    status: 400,
    code: "INVALID_ARGUMENT",
    says: "filter.author",
  },
  { name: "a malformed escape in a multi-segment variable", path: "/v1/shelves/s%1/books/b1", status: 400, code: "INVALID_ARGUMENT" },
];

const suites = [
  { kind: "a2a" as const, routes: A2AServiceRoutes, cases: a2aCases, ok: { path: "/tasks/t1", headers: v } },
  {
    kind: "library-none" as const,
    routes: LibraryServiceRoutes,
    cases: libraryCases,
    ok: { path: "/v1/shelves/s1/books/b1", headers: {} },
  },
];

for (const suite of suites) {
  describe.each(frameworks)(`${suite.kind} bad input on %s`, (framework) => {
    const { handlers, calls } = recordingHandlers(suite.routes, {});
    let server: Running;
    beforeAll(async () => {
      server = await start(framework, { kind: suite.kind, handlers } as never, { bodyLimit: LIMIT, onError: () => {} });
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
      const body = res.json as { error: { code: number; status: string; message: string; details: Record<string, unknown>[] } };
      expect(body.error.code).toBe(c.status);
      expect(body.error.status).toBe(c.code);
      expect(body.error.message.length).toBeGreaterThan(0);
      if (c.says) expect(body.error.message).toContain(c.says);
      if (c.reason) {
        expect(body.error.details[0]).toMatchObject({
          "@type": "type.googleapis.com/google.rpc.ErrorInfo",
          reason: c.reason,
          domain: "a2a-protocol.org",
        });
      }
      if (c.fields) {
        const br = body.error.details.find((d) => d["@type"] === "type.googleapis.com/google.rpc.BadRequest") as
          | { fieldViolations: { field: string; description: string }[] }
          | undefined;
        expect(br, res.text).toBeDefined();
        const fields = br!.fieldViolations.map((f) => f.field);
        for (const f of c.fields) expect(fields).toContain(f);
      }
      if (suite.kind === "a2a") {
        // A2A: an ErrorInfo comes first, always.
        expect(body.error.details[0]?.["@type"]).toBe("type.googleapis.com/google.rpc.ErrorInfo");
      }
      expect(calls).toEqual([]);
      expect(({} as Record<string, unknown>)["polluted"]).toBeUndefined();
      // The server still answers.
      const ok = await send(server.url + suite.ok.path, { headers: suite.ok.headers });
      expect(ok.status).toBe(200);
    });
  });
}

describe.each(frameworks)("default body limit on %s", (framework) => {
  test("4 MiB passes the limit check, 4 MiB + 1 byte is a 413", async () => {
    const { handlers, calls } = recordingHandlers(A2AServiceRoutes, {});
    const server = await start(framework, { kind: "a2a", handlers }, { onError: () => {} });
    try {
      const over = "x".repeat(4 * 1024 * 1024 + 1);
      const res = await send(server.url + "/message:send", { method: "POST", headers: j, body: over });
      expect(res.status).toBe(413);
      expect((res.json as { error: { status: string } }).error.status).toBe("RESOURCE_EXHAUSTED");
      const text = JSON.stringify({ message: { ...message, parts: [{ text: "x".repeat(4 * 1024 * 1024 - 200) }] } });
      const fits = await send(server.url + "/message:send", { method: "POST", headers: j, body: text });
      expect(fits.status).toBe(200);
      expect(calls).toHaveLength(1);
    } finally {
      await server.close();
    }
  });
});
