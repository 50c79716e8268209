// Handler errors, partial handlers, the stub, the context factory, the A2A
// profile rules, and living beside the application's own routes.
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import express from "express";
import { A2AErrors, Code, RpcError, badRequest, errorInfo, type HandlerContext } from "a2a-http";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { a2aServiceStub } from "../../../gen/a2a_http_stub.js";
import { libraryServiceStub } from "../../../gen/acme/library/v1/library_http_stub.js";
import { createPushSender } from "a2a-http/push";
import { createExampleAgent } from "../../../example/agent.js";
import { frameworks, start, type Running } from "./harness.js";
import { parseSse, recordingHandlers, send } from "./recording.js";

const v = { "a2a-version": "1.0" };
const j = { ...v, "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const task = { id: "t1", contextId: "c1", status: { state: 2 } };
type StatusJson = { error: { code: number; status: string; message: string; details: Record<string, unknown>[] } };

describe.each(frameworks)("handler errors and options on %s", (framework) => {
  const servers: Running[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });
  const run = async (...args: Parameters<typeof start>) => {
    const s = await start(...args);
    servers.push(s);
    return s;
  };

  test("a thrown non-RpcError is a 500 without its message or stack; onError gets it", async () => {
    const seen: unknown[] = [];
    const s = await run(
      framework,
      {
        kind: "a2a",
        handlers: {
          getTask() {
            throw new TypeError("db password is hunter2");
          },
        },
      },
      { onError: (e, info) => seen.push([e, info]) },
    );
    const res = await send(s.url + "/tasks/t1", { headers: v });
    expect(res.status).toBe(500);
    const body = res.json as StatusJson;
    expect(body.error).toMatchObject({
      code: 500,
      status: "INTERNAL",
      details: [{ reason: "INTERNAL_ERROR", domain: "a2a-protocol.org" }],
    });
    expect(res.text).not.toContain("hunter2");
    expect(res.text).not.toContain("TypeError");
    expect(res.text).not.toMatch(/\bat \S+ \(/);
    expect(seen).toHaveLength(1);
    expect((seen[0] as [Error, { rpc: string }])[1]).toMatchObject({ rpc: "getTask", phase: "unary" });
    expect((await send(s.url + "/tasks/t1", { headers: v })).status).toBe(500); // still up
  });

  test("a rejected promise is the same 500", async () => {
    const s = await run(
      framework,
      { kind: "a2a", handlers: { getTask: async () => Promise.reject(new Error("secret")) } },
      { onError: () => {} },
    );
    const res = await send(s.url + "/tasks/t1", { headers: v });
    expect(res.status).toBe(500);
    expect(res.text).not.toContain("secret");
  });

  test("a missing method in partial handlers is 501 naming the rpc", async () => {
    const s = await run(framework, { kind: "a2a", handlers: { getTask: () => task } });
    const res = await send(s.url + "/tasks/t1:cancel", { method: "POST", headers: v });
    expect(res.status).toBe(501);
    const body = res.json as StatusJson;
    expect(body.error.status).toBe("UNIMPLEMENTED");
    expect(body.error.message).toContain("lf.a2a.v1.A2AService.CancelTask");
    expect((await send(s.url + "/tasks/t1", { headers: v })).status).toBe(200);
  });

  test("the stub answers 501 naming the rpc, unary and streaming", async () => {
    const s = await run(framework, { kind: "a2a", handlers: a2aServiceStub });
    const res = await send(s.url + "/tasks/t1", { headers: v });
    expect(res.status).toBe(501);
    expect((res.json as StatusJson).error.message).toContain("lf.a2a.v1.A2AService.GetTask");
    // A2A clients map the ErrorInfo reason; 501 alone would be a generic error to them.
    expect((res.json as StatusJson).error.details).toEqual([
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "UNSUPPORTED_OPERATION",
        domain: "a2a-protocol.org",
        metadata: { method: "lf.a2a.v1.A2AService.GetTask" },
      },
    ]);
    const st = await send(s.url + "/message:stream", { method: "POST", headers: j, body: JSON.stringify({ message }) });
    expect(st.status).toBe(501);
    expect((st.json as StatusJson).error.message).toContain("SendStreamingMessage");
    const lib = await run(framework, { kind: "library-none", handlers: libraryServiceStub });
    const lr = await send(lib.url + "/v1/shelves/s1/title");
    expect(lr.status).toBe(501);
    expect((lr.json as StatusJson).error.message).toContain("acme.library.v1.LibraryService.GetShelfTitle");
  });

  test("A2A error factories: status, code and ErrorInfo first (moved there if the handler put it later)", async () => {
    const cases: [RpcError, number, string, string][] = [
      [A2AErrors.taskNotFound("t1"), 404, "NOT_FOUND", "TASK_NOT_FOUND"],
      [A2AErrors.taskNotCancelable("t1"), 400, "FAILED_PRECONDITION", "TASK_NOT_CANCELABLE"],
      [A2AErrors.pushNotificationNotSupported(), 400, "FAILED_PRECONDITION", "PUSH_NOTIFICATION_NOT_SUPPORTED"],
      [A2AErrors.unsupportedOperation(), 400, "FAILED_PRECONDITION", "UNSUPPORTED_OPERATION"],
      [A2AErrors.contentTypeNotSupported("image/x"), 400, "INVALID_ARGUMENT", "CONTENT_TYPE_NOT_SUPPORTED"],
      [A2AErrors.invalidAgentResponse(), 500, "INTERNAL", "INVALID_AGENT_RESPONSE"],
      [A2AErrors.extendedAgentCardNotConfigured(), 400, "FAILED_PRECONDITION", "EXTENDED_AGENT_CARD_NOT_CONFIGURED"],
      [A2AErrors.extensionSupportRequired("urn:e"), 400, "FAILED_PRECONDITION", "EXTENSION_SUPPORT_REQUIRED"],
      [A2AErrors.versionNotSupported("9.9", ["1.0"]), 400, "FAILED_PRECONDITION", "VERSION_NOT_SUPPORTED"],
      [A2AErrors.invalidParams("bad"), 400, "INVALID_ARGUMENT", "INVALID_PARAMS"],
      [A2AErrors.invalidRequest("bad"), 400, "INVALID_ARGUMENT", "INVALID_REQUEST"],
      [
        new RpcError(Code.NOT_FOUND, "x", [
          badRequest([{ field: "id", description: "d" }]),
          errorInfo("TASK_NOT_FOUND", "a2a-protocol.org"),
        ]),
        404,
        "NOT_FOUND",
        "TASK_NOT_FOUND",
      ],
    ];
    let next: RpcError = cases[0]![0];
    const s = await run(framework, {
      kind: "a2a",
      handlers: {
        getTask: () => {
          throw next;
        },
      },
    });
    for (const [err, status, code, reason] of cases) {
      next = err;
      const res = await send(s.url + "/tasks/t1", { headers: v });
      expect(res.status).toBe(status);
      const body = res.json as StatusJson;
      expect(body.error.status).toBe(code);
      expect(body.error.details[0]).toMatchObject({
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason,
        domain: "a2a-protocol.org",
      });
      for (const d of body.error.details)
        if (d["@type"] === "type.googleapis.com/google.rpc.ErrorInfo")
          for (const m of Object.values(d["metadata"] as object)) expect(typeof m).toBe("string");
    }
  });

  test("context factory: adds fields; an RpcError from it answers before the body is read", async () => {
    interface Ctx extends HandlerContext {
      user: string;
    }
    const seen: string[] = [];
    const handlers: Partial<A2AServiceHandlers<Ctx>> = {
      getTask(_req, ctx) {
        seen.push(ctx.user);
        return task;
      },
      sendMessage(_req, ctx) {
        seen.push(ctx.user);
        return { payload: { case: "task", value: task } };
      },
    };
    const s = await run(
      framework,
      { kind: "a2a", handlers },
      {
        context: async ({ headers, rpc, native }) => {
          expect(native).toBeDefined();
          const auth = headers.get("authorization");
          if (auth !== "Bearer ok") {
            throw new RpcError(Code.UNAUTHENTICATED, "who are you?", [errorInfo("UNAUTHENTICATED", "example.com")]);
          }
          return { user: `alice:${rpc}` };
        },
      },
    );
    const ok = await send(s.url + "/tasks/t1", { headers: { ...v, authorization: "Bearer ok" } });
    expect(ok.status).toBe(200);
    const no = await send(s.url + "/message:send", { method: "POST", headers: j, body: "{not json" });
    expect(no.status).toBe(401);
    expect((no.json as StatusJson).error).toMatchObject({ status: "UNAUTHENTICATED", details: [{ reason: "UNAUTHENTICATED" }] });
    expect(seen).toEqual(["alice:getTask"]);
  });

  test("A2A-Version: Major.Minor, header or query, missing is 0.3, configurable", async () => {
    const { handlers } = recordingHandlers(A2AServiceRoutes, { getTask: task });
    const s = await run(framework, { kind: "a2a", handlers });
    const status = async (headers: Record<string, string>, q = "") => (await send(s.url + "/tasks/t1" + q, { headers })).status;
    expect(await status({ "a2a-version": "1.0" })).toBe(200);
    expect(await status({ "a2a-version": "1.0.7" })).toBe(200);
    expect(await status({ "a2a-version": " 1 " })).toBe(200);
    expect(await status({ "a2a-version": "1.1" })).toBe(400);
    expect(await status({ "a2a-version": "0.3" })).toBe(400);
    expect(await status({ "a2a-version": "banana" })).toBe(400);
    expect(await status({}, "?A2A-Version=1.0")).toBe(200);
    expect(await status({}, "?a2a-version=1.0.1")).toBe(200);
    expect(await status({ "a2a-version": "1.0" }, "?A2A-Version=0.3")).toBe(200); // the header wins
    const legacy = await run(framework, { kind: "a2a", handlers }, { a2aVersions: ["0.3", "1.0"] });
    expect((await send(legacy.url + "/tasks/t1")).status).toBe(200);
    const res = await send(s.url + "/tasks/t1", { headers: { "a2a-version": "2.0" } });
    expect((res.json as StatusJson).error.message).toContain("1.0");
  });

  test("A2A-Extensions: trimmed, de-duplicated, on the context; the handler sets the activated ones", async () => {
    let got: readonly string[] = [];
    const s = await run(framework, {
      kind: "a2a",
      handlers: {
        getTask(_req, ctx) {
          got = ctx.extensions;
          ctx.responseHeaders.set("A2A-Extensions", ctx.extensions.filter((e) => e !== "urn:b").join(", "));
          return task;
        },
      },
    });
    const res = await send(s.url + "/tasks/t1", { headers: { ...v, "a2a-extensions": " urn:a ,urn:b, urn:a,, urn:c " } });
    expect(res.status).toBe(200);
    expect(got).toEqual(["urn:a", "urn:b", "urn:c"]);
    expect(res.headers.get("a2a-extensions")).toBe("urn:a, urn:c");
  });

  test("responseType application/json for peers that insist", async () => {
    const s = await run(framework, { kind: "a2a", handlers: { getTask: () => task } }, { responseType: "application/json" });
    const ok = await send(s.url + "/tasks/t1", { headers: v });
    expect(ok.headers.get("content-type")).toBe("application/json");
    const err = await send(s.url + "/nowhere", { headers: v });
    expect(err.headers.get("content-type")).toBe("application/json");
  });

  test("tenant: without a path tenant the body's tenant is the request's and ctx.tenant", async () => {
    const { handlers, calls } = recordingHandlers(A2AServiceRoutes, { sendMessage: { payload: { case: "task", value: task } } });
    const s = await run(framework, { kind: "a2a", handlers });
    await send(s.url + "/message:send", { method: "POST", headers: j, body: JSON.stringify({ tenant: "t5", message }) });
    expect(calls[0]).toMatchObject({ rpc: "sendMessage", request: { tenant: "t5" }, tenant: "t5" });
  });

  test("the example agent end to end: send, get, list, cancel, subscribe, push config CRUD, card", async () => {
    const s = await run(framework, { kind: "a2a", handlers: createExampleAgent({ stepMs: 1, pushSender: createPushSender() }) });
    const post = (p: string, b?: unknown) =>
      send(s.url + p, { method: "POST", headers: j, ...(b === undefined ? {} : { body: JSON.stringify(b) }) });
    const sent = await post("/acme/message:send", {
      message: { ...message, parts: [{ text: "/wait" }] },
      configuration: { returnImmediately: true },
    });
    expect(sent.status).toBe(200);
    const id = (sent.json as { task: { id: string } }).task.id;
    expect((await send(s.url + `/acme/tasks/${id}`, { headers: v })).status).toBe(200);
    expect((await send(s.url + `/tasks/${id}`, { headers: v })).status).toBe(404); // other tenant
    await post("/acme/message:send", { message: { ...message, messageId: "m2" } });
    const page = await send(s.url + "/acme/tasks?pageSize=1", { headers: v });
    expect(page.status).toBe(200);
    expect((page.json as { tasks: unknown[]; nextPageToken?: string }).tasks).toHaveLength(1);
    const cfg = await post(`/acme/tasks/${id}/pushNotificationConfigs`, { id: "c1", url: "https://example.com/hook" });
    expect(cfg.status).toBe(200);
    expect((await send(s.url + `/acme/tasks/${id}/pushNotificationConfigs`, { headers: v })).status).toBe(200);
    expect((await send(s.url + `/acme/tasks/${id}/pushNotificationConfigs/c1`, { headers: v })).status).toBe(200);
    const sub = fetch(s.url + `/acme/tasks/${id}:subscribe`, { method: "POST", headers: v });
    const res = await sub;
    expect(res.status).toBe(200);
    const reader = res.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toMatch(/^data: /);
    const canceled = await post(`/acme/tasks/${id}:cancel`);
    expect(canceled.status).toBe(200);
    let rest = "";
    for (;;) {
      const r = await reader.read();
      if (r.done) break;
      rest += new TextDecoder().decode(r.value);
    }
    expect(parseSse(rest).some((e) => JSON.stringify(e.data).includes("TASK_STATE_CANCELED"))).toBe(true);
    const del = await send(s.url + `/acme/tasks/${id}/pushNotificationConfigs/c1`, { method: "DELETE", headers: v });
    expect(del.status).toBe(200);
    expect(del.json).toEqual({});
    expect((await send(s.url + "/extendedAgentCard", { headers: v })).status).toBeLessThan(500);
  });
});

describe("beside the application's own routes", () => {
  test("Fastify: the plugin leaves the app's content-type parsers alone", async () => {
    const s = await start("fastify", { kind: "a2a", handlers: { getTask: () => task, sendMessage: () => ({}) } }, {}, "/a2a", {
      fastify: (app) => {
        app.addContentTypeParser("text/plain", { parseAs: "string" }, (_r, b, done) => done(null, `text:${b as string}`));
        app.post("/own", async (req) => ({ got: req.body }));
      },
    });
    try {
      const own = await send(s.origin + "/own", { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
      expect(own.json).toEqual({ got: { a: 1 } });
      const txt = await send(s.origin + "/own", { method: "POST", headers: { "content-type": "text/plain" }, body: "hi" });
      expect(txt.json).toEqual({ got: "text:hi" });
      const a2a = await send(s.url + "/message:send", { method: "POST", headers: j, body: JSON.stringify({ message }) });
      expect(a2a.status).toBe(200);
    } finally {
      await s.close();
    }
  });

  test("Fastify: the app's onSend hooks see the JSON text; the type stays exact and the length right", async () => {
    const seen: unknown[] = [];
    const s = await start("fastify", { kind: "a2a", handlers: { getTask: () => task } }, {}, "/a2a", {
      fastify: (app) => {
        app.addHook("onSend", async (request, _reply, payload) => {
          seen.push(payload);
          return request.url.endsWith("/tasks/grow") ? (payload as string).replace('"t1"', '"t1-grown"') : payload;
        });
      },
    });
    try {
      for (const [path, id] of [
        ["/tasks/t1", "t1"],
        ["/tasks/grow", "t1-grown"],
      ] as const) {
        const res = await fetch(s.url + path, { headers: v });
        const text = await res.text();
        expect(res.status).toBe(200);
        expect(res.headers.get("content-type")).toBe("application/a2a+json");
        expect(res.headers.get("content-length")).toBe(String(Buffer.byteLength(text)));
        expect(JSON.parse(text).id).toBe(id);
      }
      expect(seen).toHaveLength(2);
      for (const payload of seen) expect(typeof payload).toBe("string");
      const err = await fetch(s.url + "/tasks/a%zz", { headers: v });
      expect(err.status).toBe(400);
      expect(err.headers.get("content-type")).toBe("application/a2a+json");
      expect(((await err.json()) as StatusJson).error.status).toBe("INVALID_ARGUMENT");
    } finally {
      await s.close();
    }
  });

  test("Fastify without frameworkErrors: a bad escape is still a 400", async () => {
    const s = await start("fastify", { kind: "a2a", handlers: { getTask: () => task } }, {}, "/a2a", undefined, { statusErrors: false });
    try {
      expect((await send(s.url + "/tasks/a%zz", { headers: v })).status).toBe(400);
    } finally {
      await s.close();
    }
  });

  test("Express: works after a global express.json()", async () => {
    const { handlers, calls } = recordingHandlers(A2AServiceRoutes, { sendMessage: { payload: { case: "task", value: task } } });
    const s = await start("express", { kind: "a2a", handlers }, {}, "/a2a", {
      express: (app) => {
        app.use(express.json());
        app.post("/own", (req, res) => void res.json({ got: req.body }));
      },
    });
    try {
      const own = await send(s.origin + "/own", { method: "POST", headers: { "content-type": "application/json" }, body: '{"a":1}' });
      expect(own.json).toEqual({ got: { a: 1 } });
      const res = await send(s.url + "/message:send", { method: "POST", headers: j, body: JSON.stringify({ message }) });
      expect(res.status).toBe(200);
      expect(calls[0]!.request).toEqual({ message });
      const bad = await send(s.url + "/message:send", {
        method: "POST",
        headers: j,
        body: '{"__proto__":{"x":1},"message":' + JSON.stringify(message) + "}",
      });
      expect(bad.status).toBe(400);
    } finally {
      await s.close();
    }
  });

  test("mounted at the root and under a parametrised Hono prefix", async () => {
    const { handlers, calls } = recordingHandlers(A2AServiceRoutes, { getTask: task });
    for (const fw of frameworks) {
      const s = await start(fw, { kind: "a2a", handlers }, {}, "/");
      try {
        expect((await send(s.url + "/tasks/t1", { headers: v })).status).toBe(200);
      } finally {
        await s.close();
      }
    }
    const s = await start("hono", { kind: "a2a", handlers }, {}, "/orgs/:org");
    try {
      const r = await send(s.origin + "/orgs/x/tasks/t2", { headers: v });
      expect(r.status).toBe(200);
      expect(calls.at(-1)!.request).toEqual({ id: "t2" });
    } finally {
      await s.close();
    }
  });
});

beforeAll(() => {});
