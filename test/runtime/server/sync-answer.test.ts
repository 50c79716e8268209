// The core answers synchronously when nothing async was needed, so that an
// adapter can write the answer at once (@hono/node-server has a fast path
// for a Response returned synchronously); everything that must wait (a body,
// a promise from the handler or the context factory) still does, and errors
// are answers either way.
import { describe, expect, test } from "vitest";
import { RpcError, Code, createFetchHandler, type HandlerContext } from "a2a-http";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { start } from "./harness.js";
import { utf8Length } from "../../../packages/runtime/src/utf8.js";

const v = { "a2a-version": "1.0" };
const task = { id: "t1", contextId: "c1", status: { state: 1 } };
const get = (path: string) => new Request("http://x" + path, { headers: v });
const post = (path: string, body: string) =>
  new Request("http://x" + path, { method: "POST", headers: { ...v, "content-type": "application/json" }, body });
const message = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } });

async function json(answer: Response | Promise<Response>): Promise<{ status: number; body: any }> {
  const res = await answer;
  return { status: res.status, body: await res.json() };
}

describe("synchronous answers of the fetch handler", () => {
  test("a GET whose handler returns a message is answered synchronously", async () => {
    const handle = createFetchHandler(A2AServiceRoutes, { getTask: () => task }, { profile: "a2a" });
    const answer = handle(get("/tasks/t1"));
    expect(answer).toBeInstanceOf(Response);
    expect(await json(answer)).toEqual({ status: 200, body: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_SUBMITTED" } } });
  });

  test("routing errors and a handler's synchronous throw are synchronous answers too", async () => {
    const handle = createFetchHandler(
      A2AServiceRoutes,
      {
        getTask: () => {
          throw new RpcError(Code.NOT_FOUND, "no such task");
        },
      },
      { profile: "a2a" },
    );
    const unrouted = handle(get("/nowhere"));
    expect(unrouted).toBeInstanceOf(Response);
    expect((await json(unrouted)).status).toBe(404);
    const thrown = handle(get("/tasks/t1"));
    expect(thrown).toBeInstanceOf(Response);
    expect(await json(thrown)).toMatchObject({ status: 404, body: { error: { status: "NOT_FOUND", message: "no such task" } } });
  });

  test("a handler's promise, a body and an async context factory are waited for", async () => {
    const handle = createFetchHandler(
      A2AServiceRoutes,
      {
        getTask: async () => task,
        sendMessage: (req: { message?: { messageId: string } }) => ({ payload: { case: "message", value: req.message } }),
      },
      { profile: "a2a" },
    );
    const later = handle(get("/tasks/t1"));
    expect(later).toBeInstanceOf(Promise);
    expect((await json(later)).body.id).toBe("t1");
    const withBody = handle(post("/message:send", message));
    expect(withBody).toBeInstanceOf(Promise);
    expect((await json(withBody)).body).toMatchObject({ message: { messageId: "m1" } });

    const seen: string[] = [];
    const withContext = createFetchHandler(
      A2AServiceRoutes,
      { getTask: (_r: unknown, ctx: HandlerContext & { user?: string }) => ({ ...task, id: ctx.user! }) },
      {
        profile: "a2a",
        context: async () => ({ user: "u1" }),
        onError: (_e, info) => seen.push(info.phase),
      },
    );
    const answer = withContext(get("/tasks/t1"));
    expect(answer).toBeInstanceOf(Promise);
    expect((await json(answer)).body.id).toBe("u1");
    expect(seen).toEqual([]);
  });

  test("a rejecting async context factory answers its error (phase context) before the body is read", async () => {
    const seen: string[] = [];
    let called = false;
    const handle = createFetchHandler(
      A2AServiceRoutes,
      {
        sendMessage: () => {
          called = true;
          return {};
        },
      },
      {
        profile: "a2a",
        context: async () => {
          throw new Error("secret");
        },
        onError: (_e, info) => seen.push(info.phase),
      },
    );
    const req = post("/message:send", message);
    const res = await json(handle(req));
    expect(res.status).toBe(500);
    expect(res.body.error.status).toBe("INTERNAL");
    expect(seen).toEqual(["context"]);
    expect(called).toBe(false);
    expect(req.bodyUsed).toBe(false);
  });

  test("with unaryTimeoutMs a synchronous answer stays synchronous, a slow one still meets the deadline", async () => {
    const handle = createFetchHandler(
      A2AServiceRoutes,
      {
        getTask: () => task,
        listTasks: (_r: unknown, ctx: HandlerContext) =>
          new Promise((resolve) => ctx.signal.addEventListener("abort", () => resolve({ tasks: [] }))),
      },
      { profile: "a2a", unaryTimeoutMs: 50 },
    );
    const now = handle(get("/tasks/t1"));
    expect(now).toBeInstanceOf(Response);
    expect((await json(now)).status).toBe(200);
    const slow = await json(handle(get("/tasks")));
    expect(slow).toMatchObject({ status: 504, body: { error: { status: "DEADLINE_EXCEEDED" } } });
  });
});

describe("the Hono adapter on node", () => {
  test("utf8Length counts bytes as TextEncoder writes them", () => {
    for (const text of ["", "abc", "é", "€uro", "a😀b", "\ud800x", "x\udc00", "😀\ud83d"]) {
      expect(utf8Length(text), JSON.stringify(text)).toBe(new TextEncoder().encode(text).byteLength);
    }
  });

  test("the body limit holds when a middleware swaps the Request for one with a longer body", async () => {
    // The adapter reads headers from node's request (cheaper than the
    // Request's Headers); its Content-Length no longer describes this body.
    const s = await start("hono", { kind: "a2a", handlers: { sendMessage: () => ({}) } }, { onError: () => {}, bodyLimit: 1024 }, "/api", {
      hono: (app) =>
        app.use("*", async (c, next) => {
          const headers = new Headers(c.req.raw.headers);
          headers.delete("content-length");
          const longer = JSON.stringify({ message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "x".repeat(4096) }] } });
          c.req.raw = new Request(c.req.raw.url, { method: "POST", headers, body: longer });
          await next();
        }),
    });
    try {
      const res = await fetch(s.url + "/message:send", {
        method: "POST",
        headers: { ...v, "content-type": "application/json" },
        body: message,
      });
      expect(res.status).toBe(413);
      expect(await res.json()).toMatchObject({ error: { status: "RESOURCE_EXHAUSTED" } });
    } finally {
      await s.close();
    }
  });
});
