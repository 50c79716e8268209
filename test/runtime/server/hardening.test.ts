// Defects found by probing the servers from outside (issue 14), each kept
// fixed on all three frameworks: foreign error-likes, the 413 reaching the
// client, dot segments and odd request targets, Fastify's own answers,
// handler-set framing headers; and the HTTP details HEAD, OPTIONS, Express
// fall-through, the unary timeout and SSE keep-alive comments.
import { request as httpRequest } from "node:http";
import { connect } from "node:net";
import { afterAll, describe, expect, test, vi } from "vitest";
import express from "express";
import { RpcError, Code, SseStream, type HandlerContext } from "a2a-http";
import { frameworks, start, type Running } from "./harness.js";
import { parseSse, send } from "./recording.js";
import { rawRequest } from "./raw.js";

const v = { "a2a-version": "1.0" };
const j = { ...v, "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const task = { id: "t1", contextId: "c1", status: { state: 1 } };
const ev = { payload: { case: "statusUpdate" as const, value: { taskId: "t1", contextId: "c1", status: { state: 2 } } } };

/** An Error that claims to be the runtime's RpcError without being one. */
function impostor(details: unknown = []): Error {
  return Object.assign(new Error("secret"), { name: "RpcError", code: 13, details, httpStatus: 418 });
}

/** What a handler throws, the status it gets, and whether onError sees it. */
const poisons: { name: string; make: () => unknown; status: number; reported: boolean }[] = [
  { name: "an Error named RpcError", make: () => impostor(), status: 500, reported: true },
  { name: 'an Error named RpcError with details "x"', make: () => impostor("x"), status: 500, reported: true },
  {
    name: "an RpcError-shaped plain object",
    make: () => ({ name: "RpcError", code: 5, message: "secret", details: [], toStatusBody: () => ({ secret: 1 }) }),
    status: 500,
    reported: true,
  },
  { name: "a string", make: () => "secret", status: 500, reported: true },
  // A real RpcError that cannot be written: a 500, and onError hears why.
  {
    name: "a real RpcError with a BigInt in a detail",
    make: () => new RpcError(Code.NOT_FOUND, "secret", [{ "@type": "x", n: 1n }]),
    status: 500,
    reported: true,
  },
  // A real RpcError keeps its code; an impossible status gives way to the code's.
  {
    name: "a real RpcError with an impossible HTTP status",
    make: () => new RpcError(Code.NOT_FOUND, "gone", [], { httpStatus: 99999 }),
    status: 404,
    reported: false,
  },
];

/**
 * POSTs `chunks` × 64 KiB with a Content-Length on a raw socket, one chunk
 * every `everyMs`, and reads whatever answer arrives: "413", another status,
 * or "lost: <why>" when the connection ended without one (a reset discards
 * an answer the client had not read yet).
 */
function slowPost(origin: string, chunks: number, everyMs: number): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    let sent = 0;
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => {
      text += c;
      // The answer is in: keep-alive servers would hold the connection open.
      if (/^HTTP\/1\.1 \d{3}/.test(text)) socket.destroy();
    });
    socket.on("error", () => {});
    socket.on("close", () => {
      clearInterval(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(m ? m[1]! : `lost: ${sent} chunks sent, ${text.length} bytes read`);
    });
    socket.write(
      `POST /api/message:send HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${chunks * 65536}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(65536, 32);
    const timer = setInterval(() => {
      if (sent === chunks || socket.destroyed) return clearInterval(timer);
      socket.write(chunk);
      sent++;
    }, everyMs);
  });
}

describe.each(frameworks)("hardening on %s", (framework) => {
  const servers: Running[] = [];
  afterAll(async () => {
    for (const s of servers) await s.close();
  });
  const run = async (...args: Parameters<typeof start>) => {
    const s = await start(...args);
    servers.push(s);
    return s;
  };

  describe("D1: only real RpcErrors are trusted; the error path never throws", () => {
    for (const profile of ["a2a", "library-none"] as const) {
      test.each(poisons)(`${profile}: $name, unary and mid-stream`, async ({ make, status, reported }) => {
        const seen: unknown[] = [];
        const stream = async function* () {
          yield ev;
          throw make();
        };
        const handlers =
          profile === "a2a"
            ? {
                getTask: () => {
                  throw make();
                },
                subscribeToTask: stream,
              }
            : {
                getBook: () => {
                  throw make();
                },
                watchShelf: async function* () {
                  yield { shelf: "s" };
                  throw make();
                },
              };
        const s = await run(framework, { kind: profile, handlers } as never, { onError: (e) => seen.push(e) });
        const unary = await send(s.url + (profile === "a2a" ? "/tasks/t1" : "/v1/shelves/s/books/b"), { headers: v });
        expect(unary.headers.get("content-type")).toMatch(/json/);
        const body = unary.json as { error: { code: number; status: string; message: string; details: unknown[] } };
        expect(body.error.code).toBe(unary.status);
        expect(Array.isArray(body.error.details)).toBe(true);
        expect(unary.text).not.toContain("secret");
        expect(unary.text).not.toMatch(/\bat \S+ \(/);
        expect(unary.status).toBe(status);
        if (status === 500) expect(body.error.status).toBe("INTERNAL");
        const sse = await send(s.url + (profile === "a2a" ? "/tasks/t1:subscribe" : "/v1/shelves/s:watch"), { headers: v });
        expect(sse.status).toBe(200);
        const events = parseSse(sse.text);
        expect(events).toHaveLength(2);
        expect(events[1]!.event).toBe("error");
        expect(sse.text).not.toContain("secret");
        const streamError = (events[1]!.data as { error: { code: number; status: string } }).error;
        expect(streamError.code).toBe(status);
        if (status === 500) expect(streamError.status).toBe("INTERNAL");
        // Each one reached onError, once per call.
        expect(seen).toHaveLength(reported ? 2 : 0);
      });
    }
  });

  test("D2: a client still sending a body over the limit gets the 413 (raw socket, slow sender, 6 at once)", async () => {
    const s = await run(framework, { kind: "a2a", handlers: { sendMessage: () => ({}) } }, { onError: () => {}, bodyLimit: 64 * 1024 });
    const outcomes = await Promise.all(Array.from({ length: 6 }, () => slowPost(s.origin, 24, 20)));
    expect(outcomes).toEqual(Array(6).fill("413"));
  });

  test("D2: a chunked body over the limit (no Content-Length) gets its 413 too", async () => {
    const s = await run(
      framework,
      { kind: "a2a", handlers: { sendMessage: () => ({ payload: { case: "task" as const, value: task } }) } },
      { onError: () => {}, bodyLimit: 1024 },
    );
    for (let i = 0; i < 5; i++) {
      const body = new ReadableStream<Uint8Array>({
        start(c) {
          for (let k = 0; k < 64; k++) c.enqueue(new Uint8Array(16 * 1024).fill(32));
          c.close();
        },
      });
      const res = await fetch(s.url + "/message:send", { method: "POST", headers: j, body, duplex: "half" } as RequestInit);
      expect(res.status).toBe(413);
      await res.text();
    }
  });

  describe("D4: dot segments, backslashes and absolute-form targets agree", () => {
    const targets: { target: string; status: number; rpc?: string }[] = [
      { target: "/api/tasks/./t1", status: 400 },
      { target: "/api/x/../tasks/t1", status: 400 },
      { target: "/api/x/%2e%2e/tasks/t1", status: 400 },
      { target: "/api/x/%2E./tasks/t1", status: 400 },
      { target: "/api/tasks/%2e", status: 400 },
      { target: "/api/./tasks/t1", status: 400 },
      { target: "/api/tasks/a\\b", status: 400 },
      { target: "/api/tasks/t1?x=/../y", status: 200, rpc: "t1" },
      { target: "/api/tasks/...", status: 200, rpc: "..." },
      { target: "/api/tasks/.a", status: 200, rpc: ".a" },
      { target: "/api/tasks/%2e%2e%2e", status: 200, rpc: "..." },
    ];
    test.each(targets)("GET $target is $status", async ({ target, status, rpc }) => {
      const seen: string[] = [];
      const s = await run(framework, { kind: "a2a", handlers: { getTask: (req: { id: string }) => (seen.push(req.id), task) } } as never, {
        onError: () => {},
      });
      const res = await rawRequest(s.origin, `GET ${target} HTTP/1.1\r\nA2A-Version: 1.0`);
      // Hono's node server refuses a backslash itself, with an empty 400.
      if (!(framework === "hono" && target.includes("\\"))) {
        expect(res.headers["content-type"], res.body).toMatch(/json/);
        expect((JSON.parse(res.body) as { error?: { code: number } }).error?.code ?? 200).toBe(status);
      }
      expect(res.status, res.body).toBe(status);
      expect(seen).toEqual(rpc === undefined ? [] : [rpc]);
    });

    test("library: GET /v1/shelves/y/books/%2e%2e is a 400, not another rpc", async () => {
      const calls: string[] = [];
      const handlers = { getBook: () => (calls.push("getBook"), {}), listBooks: () => (calls.push("listBooks"), {}) };
      const s = await run(framework, { kind: "library-none", handlers } as never, { onError: () => {} });
      for (const t of ["/api/v1/shelves/y/books/%2e%2e", "/api/v1/shelves/y/books/..", "/api/v1/files/a/../b"]) {
        const res = await rawRequest(s.origin, `GET ${t} HTTP/1.1`);
        expect(res.status, t).toBe(400);
      }
      expect(calls).toEqual([]);
    });

    test("an absolute-form target is served like its path", async () => {
      const seen: string[] = [];
      const s = await run(framework, { kind: "a2a", handlers: { getTask: (req: { id: string }) => (seen.push(req.id), task) } } as never);
      const host = new URL(s.origin).host;
      const res = await rawRequest(s.origin, `GET http://${host}/api/tasks/t1?historyLength=2 HTTP/1.1\r\nA2A-Version: 1.0`);
      expect(res.status, res.body).toBe(200);
      expect(seen).toEqual(["t1"]);
    });
  });

  describe("D5: the runtime answers what Fastify would answer itself", () => {
    test("an empty Content-Type with a body", async () => {
      const calls: unknown[] = [];
      const s = await run(framework, {
        kind: "a2a",
        handlers: { sendMessage: () => (calls.push(1), { payload: { case: "task" as const, value: task } }) },
      });
      const body = JSON.stringify({ message });
      const res = await rawRequest(
        s.origin,
        `POST /api/message:send HTTP/1.1\r\nA2A-Version: 1.0\r\nContent-Type:\r\nContent-Length: ${body.length}`,
        body,
      );
      expect(res.status, res.body).toBe(400);
      expect(JSON.parse(res.body)).toMatchObject({
        error: { status: "INVALID_ARGUMENT", details: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] },
      });
      expect(calls).toEqual([]);
    });

    test("an unparsable Content-Type, generic profile: 415", async () => {
      const s = await run(framework, { kind: "library-none", handlers: { moveBook: () => ({}) } });
      const res = await rawRequest(
        s.origin,
        `POST /api/v1/shelves/s/books/b:move HTTP/1.1\r\nContent-Type: ;;;\r\nContent-Length: 2`,
        "{}",
      );
      expect(res.status, res.body).toBe(415);
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 415, status: "INVALID_ARGUMENT" } });
    });

    test.each(["PROPFIND", "MKCOL", "LOCK", "PURGE"])("%s on a known path is a 405 with Allow", async (method) => {
      const s = await run(framework, { kind: "a2a", handlers: {} });
      const res = await rawRequest(s.origin, `${method} /api/tasks/t1 HTTP/1.1\r\nA2A-Version: 1.0`);
      expect(res.status, res.body).toBe(405);
      expect(res.headers["allow"]).toBe("GET, HEAD, OPTIONS");
      expect(JSON.parse(res.body)).toMatchObject({ error: { code: 405 } });
    });

    test("%ff below the mount point is a 400 with a Status body", async () => {
      const s = await run(framework, { kind: "a2a", handlers: {} });
      for (const t of ["/api/tasks/%ff", "/api/nowhere/%ff", "/api/%ff"]) {
        const res = await rawRequest(s.origin, `GET ${t} HTTP/1.1\r\nA2A-Version: 1.0`);
        expect(res.status, t).toBe(400);
        expect(JSON.parse(res.body), t).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
      }
    });
  });

  test("minor: a Content-Length set by the handler does not cut the body", async () => {
    const s = await run(framework, {
      kind: "a2a",
      handlers: {
        getTask: (_req: unknown, ctx: HandlerContext) => {
          ctx.responseHeaders.set("content-length", "3");
          ctx.responseHeaders.set("x-kept", "yes");
          return task;
        },
      },
    } as never);
    const res = await send(s.url + "/tasks/t1", { headers: v });
    expect(res.status).toBe(200);
    expect(res.json).toMatchObject({ id: "t1", contextId: "c1" });
    expect(res.headers.get("x-kept")).toBe("yes");
  });

  describe("item 5: HTTP details", () => {
    test("HEAD is GET without the body, unary and streaming", async () => {
      const calls: string[] = [];
      let returned = 0;
      const s = await run(framework, {
        kind: "a2a",
        handlers: {
          getTask: () => (calls.push("getTask"), task),
          subscribeToTask: () => ({
            [Symbol.asyncIterator]: () => ({
              next: async () => ({ done: false, value: ev }),
              return: async () => (returned++, { done: true, value: undefined }),
            }),
          }),
        },
      } as never);
      const get = await send(s.url + "/tasks/t1", { headers: v });
      const head = await rawRequest(s.origin, "HEAD /api/tasks/t1 HTTP/1.1\r\nA2A-Version: 1.0");
      expect(head.status).toBe(200);
      expect(head.body).toBe("");
      expect(head.headers["content-type"]).toBe(get.headers.get("content-type"));
      expect(calls).toEqual(["getTask", "getTask"]);
      const headSse = await rawRequest(s.origin, "HEAD /api/tasks/t1:subscribe HTTP/1.1\r\nA2A-Version: 1.0");
      expect(headSse.status).toBe(200);
      expect(headSse.headers["content-type"]).toBe("text/event-stream");
      expect(headSse.body).toBe("");
      await expect.poll(() => returned).toBe(1);
      // HEAD where only POST is served: 405.
      const headPost = await rawRequest(s.origin, "HEAD /api/message:send HTTP/1.1\r\nA2A-Version: 1.0");
      expect(headPost.status).toBe(405);
    });

    test("OPTIONS answers 204 with Allow on a known path, 404 elsewhere", async () => {
      const s = await run(framework, { kind: "a2a", handlers: {} });
      const a = await rawRequest(s.origin, "OPTIONS /api/tasks/t1 HTTP/1.1");
      expect(a.status).toBe(204);
      expect(a.headers["allow"]).toBe("GET, HEAD, OPTIONS");
      const b = await rawRequest(s.origin, "OPTIONS /api/tasks/t1:subscribe HTTP/1.1");
      expect(b.headers["allow"]).toBe("GET, HEAD, OPTIONS, POST");
      const c = await rawRequest(s.origin, "OPTIONS /api/nowhere/at/all HTTP/1.1");
      expect(c.status).toBe(404);
      const d = await send(s.url + "/message:send", { headers: v });
      expect(d.status).toBe(405);
      expect(d.headers.get("allow")).toBe("OPTIONS, POST");
    });

    test("OPTIONS * on an adapter mounted at the root: 204 with every method of the service", async () => {
      const s = await run(framework, { kind: "a2a", handlers: {} }, {}, "/");
      const res = await rawRequest(s.origin, "OPTIONS * HTTP/1.1");
      // @hono/node-server refuses the asterisk-form before Hono runs.
      if (framework === "hono") expect(res.status).toBe(400);
      else {
        expect(res.status).toBe(204);
        expect(res.headers["allow"]).toBe("DELETE, GET, HEAD, OPTIONS, POST");
      }
    });

    test("unaryTimeoutMs: a slow handler is a 504 and its signal fires", async () => {
      let aborted: unknown;
      const s = await run(
        framework,
        {
          kind: "a2a",
          handlers: {
            getTask: (_req: unknown, ctx: HandlerContext) =>
              new Promise((resolve) => {
                ctx.signal.addEventListener("abort", () => {
                  aborted = ctx.signal.reason;
                  setTimeout(() => resolve(task), 50);
                });
              }),
            listTasks: () => ({ tasks: [] }),
            subscribeToTask: async function* () {
              await new Promise((r) => setTimeout(r, 300));
              yield ev;
            },
          },
        } as never,
        { unaryTimeoutMs: 150 },
      );
      const t0 = Date.now();
      const res = await send(s.url + "/tasks/t1", { headers: v });
      expect(res.status).toBe(504);
      expect(res.json).toMatchObject({ error: { status: "DEADLINE_EXCEEDED" } });
      expect(Date.now() - t0).toBeLessThan(2_000);
      expect(aborted).toBeInstanceOf(RpcError);
      expect((aborted as RpcError).code).toBe(Code.DEADLINE_EXCEEDED);
      expect((await send(s.url + "/tasks", { headers: v })).status).toBe(200);
      // Streams are not bound by it.
      const sse = await send(s.url + "/tasks/t1:subscribe", { headers: v });
      expect(sse.status).toBe(200);
      expect(parseSse(sse.text)).toHaveLength(1);
    });

    test("SSE keep-alive comments at keepAliveMs while the handler is idle", async () => {
      // The handler stays idle until the client has read three comments (or 5 s
      // pass): on a loaded machine timers fire late, so the test bounds the time
      // between comments from below (a late timer only lengthens it) rather than
      // counting them in a fixed window.
      const stamps: number[] = [];
      let threeRead: () => void = () => {};
      const three = new Promise<void>((r) => (threeRead = r));
      const s = await run(
        framework,
        {
          kind: "a2a",
          handlers: {
            subscribeToTask: async function* () {
              yield ev;
              await Promise.race([three, new Promise((r) => setTimeout(r, 5_000))]);
              yield ev;
            },
          },
        } as never,
        { keepAliveMs: 50 },
      );
      const text = await new Promise<string>((resolve, reject) => {
        const req = httpRequest(s.url + "/tasks/t1:subscribe", { headers: v }, (res) => {
          let t = "";
          res.setEncoding("utf8");
          res.on("data", (c: string) => {
            t += c;
            for (const _ of c.matchAll(/^:/gm)) stamps.push(performance.now());
            if (stamps.length >= 3) threeRead();
          });
          res.on("end", () => resolve(t));
        });
        req.on("error", reject);
        req.end();
      });
      expect(stamps.length).toBeGreaterThanOrEqual(3);
      // At most one comment per 3/4 of keepAliveMs (the shared ticker's granularity), a millisecond's slack.
      expect(stamps[2]! - stamps[0]!).toBeGreaterThanOrEqual(2 * 37.5 - 1);
      expect(parseSse(text.replace(/^:.*\n\n/gm, ""))).toHaveLength(2);
    });
  });
});

describe("Express fall-through", () => {
  test("fallthrough: paths the service does not own go to the next middleware", async () => {
    const { a2aServiceExpress } = await import("../../../gen/a2a_http_express.js");
    const app = express();
    app.use("/api", a2aServiceExpress({ getTask: () => task }, { fallthrough: true }));
    app.get("/api/health", (_req, res) => void res.send("ok"));
    const strict = express();
    strict.use("/api", a2aServiceExpress({ getTask: () => task }));
    strict.get("/api/health", (_req, res) => void res.send("ok"));
    const { createServer } = await import("node:http");
    for (const [a, expected] of [
      [app, 200],
      [strict, 404],
    ] as const) {
      const server = createServer(a);
      await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
      const url = `http://127.0.0.1:${(server.address() as { port: number }).port}/api`;
      try {
        expect((await send(url + "/health")).status).toBe(expected);
        expect((await send(url + "/tasks/t1", { headers: v })).status).toBe(200);
        // A known path with another method is still the service's 405.
        expect((await send(url + "/tasks/t1", { method: "DELETE", headers: v })).status).toBe(405);
      } finally {
        server.closeAllConnections();
        await new Promise((r) => server.close(r));
      }
    }
  });
});

describe("SseStream", () => {
  test("close() ends a keep-alive wait at once, so a closed stream holds no timer", async () => {
    // A handler that ignores its signal: its next() never settles.
    const iterator: AsyncIterator<unknown> = { next: () => new Promise(() => {}), return: async () => ({ done: true, value: undefined }) };
    const stream = new SseStream(
      iterator,
      "data: {}\n\n",
      () => "",
      () => "",
      10_000,
    );
    expect(await stream.next()).toBe("data: {}\n\n");
    const next = stream.next();
    await new Promise((r) => setTimeout(r, 10));
    const t0 = Date.now();
    stream.close();
    expect(await next).toBeUndefined();
    expect(Date.now() - t0).toBeLessThan(1_000);
  });

  test("no timer per stream: one keep-alive interval per period for all the streams, gone when the last ends", async () => {
    async function* events() {
      for (let i = 0; i < 50; i++) yield i;
    }
    const set = vi.spyOn(globalThis, "setInterval");
    const clear = vi.spyOn(globalThis, "clearInterval");
    const timeouts = vi.spyOn(globalThis, "setTimeout");
    try {
      const streams = [1, 2, 3].map(
        () =>
          new SseStream(
            events()[Symbol.asyncIterator](),
            "data: first\n\n",
            (x) => `data: ${String(x)}\n\n`,
            () => "",
            10_001,
          ),
      );
      const chunks: string[][] = [[], [], []];
      await Promise.all(
        streams.map(async (stream, i) => {
          for (let c = await stream.next(); c !== undefined; c = await stream.next()) chunks[i]!.push(c);
        }),
      );
      for (const c of chunks) expect(c).toHaveLength(51);
      expect(set.mock.calls.filter((c) => c[1] === 10_001 / 4)).toHaveLength(1);
      expect(clear).toHaveBeenCalledTimes(1);
      expect(timeouts.mock.calls.filter((c) => c[1] === 10_001)).toHaveLength(0);
    } finally {
      set.mockRestore();
      clear.mockRestore();
      timeouts.mockRestore();
    }
  });

  test("pull() of an iterator that cannot be polled: the chunks in order, null and a wake while it waits, an error mid-stream as the last event", async () => {
    let release: () => void = () => {};
    async function* events() {
      yield 1;
      await new Promise<void>((r) => (release = r));
      yield 2;
      throw new Error("broke");
    }
    const stream = new SseStream(
      events()[Symbol.asyncIterator](),
      "data: first\n\n",
      (x) => `data: ${String(x)}\n\n`,
      (e) => `event: error\ndata: ${String(e)}\n\n`,
      0,
    );
    const chunks: string[] = [];
    let wakes = 0;
    let woken: () => void = () => {};
    const wake = () => {
      wakes++;
      woken();
    };
    const pullAll = async () => {
      for (;;) {
        const c = stream.pull(wake);
        if (c === undefined) return;
        if (c === null) {
          await new Promise<void>((r) => (woken = r));
          continue;
        }
        chunks.push(c);
      }
    };
    const done = pullAll();
    await new Promise((r) => setTimeout(r, 5));
    expect(chunks).toEqual(["data: first\n\n", "data: 1\n\n"]);
    release();
    await done;
    expect(chunks).toEqual(["data: first\n\n", "data: 1\n\n", "data: 2\n\n", "event: error\ndata: Error: broke\n\n"]);
    expect(wakes).toBe(3);
  });

  test("a writer that takes the comments (keepAliveTo) gets the same bytes each period while the handler is quiet", async () => {
    let release: () => void = () => {};
    async function* events() {
      yield 1;
      await new Promise<void>((r) => (release = r));
      yield 2;
    }
    const stream = new SseStream(
      events()[Symbol.asyncIterator](),
      "data: first\n\n",
      (x) => `data: ${String(x)}\n\n`,
      () => "",
      40,
    );
    const comments: Uint8Array[] = [];
    const stamps: number[] = [];
    stream.keepAliveTo((c) => {
      comments.push(c);
      stamps.push(performance.now());
    });
    expect(await stream.next()).toBe("data: first\n\n");
    expect(await stream.next()).toBe("data: 1\n\n");
    const quiet = stream.next();
    // Quiet until four comments came (or 5 s): a loaded machine's late timers
    // stretch the wait, so the gaps are bounded from below, not counted in a window.
    for (const end = Date.now() + 5_000; comments.length < 4 && Date.now() < end; ) await new Promise((r) => setTimeout(r, 10));
    release();
    expect(await quiet).toBe("data: 2\n\n");
    expect(comments.length).toBeGreaterThanOrEqual(4);
    // One comment per 30-40 ms at most (3/4 of keepAliveMs at least between two), a millisecond's slack; none from next() itself.
    expect(stamps[3]! - stamps[0]!).toBeGreaterThanOrEqual(3 * 30 - 1);
    expect(new Set(comments).size).toBe(1);
    expect(new TextDecoder().decode(comments[0])).toBe(": keep-alive\n\n");
    expect(await stream.next()).toBeUndefined();
    const after = comments.length;
    await new Promise((r) => setTimeout(r, 100));
    expect(comments.length).toBe(after);
  });
});
