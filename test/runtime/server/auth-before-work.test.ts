/**
 * Authenticate before work (issue 28, item 4): the context factory runs
 * before the body is read, on HTTP+JSON and JSON-RPC (there on the headers
 * alone, then again per request with its method and tenant); an early error
 * reaches a client that is still sending its body (no reset, no EPIPE); the
 * factory can set response headers on its error, so a 401 carries
 * WWW-Authenticate on every binding; wwwAuthenticate() builds that header
 * from the card's security schemes.
 */
import { connect } from "node:net";
import { afterAll, describe, expect, test } from "vitest";
import { createClient, createRouterTransport, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import { Code, RpcError, createFetchHandler, createJsonRpcHandler, fetchHandlerOf, wwwAuthenticate, type ContextInput } from "a2a-http";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { A2AService, AgentCardSchema, GetTaskRequestSchema } from "../../../gen/a2a_pb.js";
import { frameworks, startBoth } from "./harness.js";

const v = { "a2a-version": "1.0" };
const j = { ...v, "content-type": "application/json" };
const challenge = 'Bearer realm="agent"';
const task = { id: "t1", contextId: "c1" };
/** Handlers that would answer, so that what refuses a request is the step under test. */
const stubs = { sendMessage: () => ({ payload: { case: "task" as const, value: task } }), getTask: () => task };

/** Refuses every request without "Bearer ok", with a challenge; counts its calls. */
function guard() {
  const calls: ContextInput[] = [];
  const context = (input: ContextInput) => {
    calls.push(input);
    if (input.headers.get("authorization") !== "Bearer ok") {
      input.responseHeaders.set("www-authenticate", challenge);
      throw new RpcError(Code.UNAUTHENTICATED, "a bearer token is required");
    }
    return { user: "ok" };
  };
  return { calls, context };
}

/** A SendMessage body of about `bytes`, its text part a long run of digits (cheap to send, dear to decode). */
function bigSend(bytes: number, jsonRpc: boolean): string {
  const numbers = Array.from({ length: Math.floor(bytes / 2) }, () => 1);
  const message = { messageId: "m1", role: "ROLE_USER", parts: [{ data: numbers }] };
  return JSON.stringify(jsonRpc ? { jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } } : { message });
}

/** A request body that counts what the server pulls from it: nothing is pulled until the body is read (highWaterMark 0). */
function countedBody(text: string): { body: ReadableStream<Uint8Array>; pulls: () => number } {
  const bytes = new TextEncoder().encode(text);
  let pulls = 0;
  let at = 0;
  const body = new ReadableStream<Uint8Array>(
    {
      pull(c) {
        pulls++;
        if (at >= bytes.length) return c.close();
        c.enqueue(bytes.subarray(at, (at += 65536)));
      },
    },
    new CountQueuingStrategy({ highWaterMark: 0 }),
  );
  return { body, pulls: () => pulls };
}

const rpcRequest = (body: BodyInit, headers: Record<string, string> = j) =>
  new Request("http://agent.test/", { method: "POST", headers, body, duplex: "half" } as RequestInit);

describe("JSON-RPC: the context factory runs on the headers, before the body is read", () => {
  test("without a token, a 3 MB SendMessage is a 401 (id null, WWW-Authenticate) before one byte of its body is read", async () => {
    const g = guard();
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, stubs, { profile: "a2a", context: g.context }));
    const counted = countedBody(bigSend(3_000_000, true));
    const res = await handle(rpcRequest(counted.body));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(challenge);
    expect(await res.json()).toEqual({
      jsonrpc: "2.0",
      id: null,
      error: expect.objectContaining({ code: -32000, message: "a bearer token is required" }),
    });
    expect(counted.pulls()).toBe(0);
    // The first call knows the headers only: the method and the tenant are in the body.
    expect(g.calls).toHaveLength(1);
    expect(g.calls[0]).toMatchObject({ rpc: undefined, route: undefined, tenant: undefined });
  });

  test("with a token: the headers call, then the request's own call with its rpc and tenant; both calls' fields and headers reach the handler and the answer", async () => {
    const calls: ContextInput[] = [];
    const seen: Record<string, unknown>[] = [];
    const context = (input: ContextInput) => {
      calls.push(input);
      if (input.rpc === undefined) {
        input.responseHeaders.set("x-first", "1");
        return { user: "ok", stage: "headers" };
      }
      input.responseHeaders.set("x-second", "2");
      return { stage: input.rpc };
    };
    const getTask = (_req: unknown, ctx: Record<string, unknown>) => (
      seen.push({ user: ctx["user"], stage: ctx["stage"], tenant: ctx["tenant"] }), task
    );
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, { getTask }, { profile: "a2a", context }));
    const res = await handle(
      rpcRequest(JSON.stringify({ jsonrpc: "2.0", id: 3, method: "GetTask", params: { id: "t1", tenant: "acme" } })),
    );
    expect(res.status).toBe(200);
    expect(res.headers.get("x-first")).toBe("1");
    expect(res.headers.get("x-second")).toBe("2");
    expect(calls.map((c) => [c.rpc, c.tenant])).toEqual([
      [undefined, undefined],
      ["getTask", "acme"],
    ]);
    expect(calls[1]!.route?.rpc).toBe("getTask");
    // The second call's fields replace the first's; what only the first set stays.
    expect(seen).toEqual([{ user: "ok", stage: "getTask", tenant: "acme" }]);
  });

  test("what the headers call set also goes out with an error of the body (not JSON), under the answer's own headers", async () => {
    const context = (input: ContextInput) => {
      input.responseHeaders.set("x-ratelimit-remaining", "9");
      input.responseHeaders.set("content-type", "text/plain");
      input.responseHeaders.append("set-cookie", "a=1");
      return {};
    };
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, stubs, { profile: "a2a", context }));
    const res = await handle(rpcRequest("{ not JSON"));
    expect(await res.json()).toMatchObject({ id: null, error: { code: -32700 } });
    expect(res.headers.get("x-ratelimit-remaining")).toBe("9");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.getSetCookie()).toEqual(["a=1"]);
  });

  test("a batch: one headers call for the body, then one per request; a refusal of one request answers its own id", async () => {
    const calls: (string | undefined)[] = [];
    const context = (input: ContextInput) => {
      calls.push(input.rpc === undefined ? "headers" : `${input.rpc}:${input.tenant ?? ""}`);
      if (input.tenant === "bob") throw new RpcError(Code.PERMISSION_DENIED, "not bob's");
      return {};
    };
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, stubs, { profile: "a2a", context }));
    const body = [1, 2].map((id) => ({
      jsonrpc: "2.0",
      id,
      method: "GetTask",
      params: { id: "t1", ...(id === 2 ? { tenant: "bob" } : {}) },
    }));
    const res = await handle(rpcRequest(JSON.stringify(body)));
    const answers = (await res.json()) as { id: number; error?: { code: number } }[];
    expect(calls).toEqual(["headers", "getTask:", "getTask:bob"]);
    expect(answers.map((a) => [a.id, a.error !== undefined])).toEqual([
      [1, false],
      [2, true],
    ]);
  });

  test("another error of the headers call (not a refused credential) is an HTTP 200 JSON-RPC error, id null; a non-RpcError says nothing of itself", async () => {
    const errors: unknown[] = [];
    const handle = fetchHandlerOf(
      createJsonRpcHandler(A2AServiceRoutes, stubs, {
        profile: "a2a",
        onError: (e) => void errors.push(e),
        context: () => {
          throw new Error("secret");
        },
      }),
    );
    const res = await handle(rpcRequest(JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } })));
    expect(res.status).toBe(200);
    const text = await res.text();
    expect(text).not.toContain("secret");
    expect(JSON.parse(text)).toMatchObject({ id: null, error: { code: -32603 } });
    expect(errors).toHaveLength(1);
  });
});

describe("JSON-RPC: the context factory runs before the params are decoded", () => {
  test("a 401 without a token: no decoding happens (a params shape that cannot decode still gets the 401)", async () => {
    const g = guard();
    const decoded: unknown[] = [];
    const handle = fetchHandlerOf(
      createJsonRpcHandler(
        A2AServiceRoutes,
        { sendMessage: (req: unknown) => (decoded.push(req), { payload: { case: "task", value: { id: "t" } } }) },
        { profile: "a2a", context: g.context },
      ),
    );
    // `message` of the wrong type: decoding would answer -32602; authentication answers first.
    const res = await handle(
      new Request("http://agent.test/", {
        method: "POST",
        headers: j,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: 5 } }),
      }),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(challenge);
    expect(g.calls).toHaveLength(1);
    expect(decoded).toEqual([]);
  });

  test("with a token, the same params are refused by the decoder after the factory ran", async () => {
    const g = guard();
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, stubs, { profile: "a2a", context: g.context }));
    const res = await handle(
      new Request("http://agent.test/", {
        method: "POST",
        headers: { ...j, authorization: "Bearer ok" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: 5 } }),
      }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"code":-32602');
    // The headers call, then the request's own (with its rpc), both before decoding.
    expect(g.calls.map((c) => c.rpc)).toEqual([undefined, "getTask"]);
  });
});

describe("the factory's response headers on its error reach the client on every binding", () => {
  test("HTTP+JSON: 401 with WWW-Authenticate, before the body is read", async () => {
    const g = guard();
    const handle = createFetchHandler(A2AServiceRoutes, stubs, { profile: "a2a", context: g.context });
    const res = await handle(new Request("http://agent.test/message:send", { method: "POST", headers: j, body: "{ not even JSON" }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(challenge);
  });

  test("JSON-RPC: 401 with WWW-Authenticate", async () => {
    const g = guard();
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, stubs, { profile: "a2a", context: g.context }));
    const res = await handle(
      new Request("http://agent.test/", {
        method: "POST",
        headers: j,
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } }),
      }),
    );
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(challenge);
  });

  test("gRPC: UNAUTHENTICATED with WWW-Authenticate in the response headers", async () => {
    const g = guard();
    let headers: Headers | undefined;
    const transport = createRouterTransport(a2aServiceConnect(stubs, { context: g.context }));
    const client = createClient(A2AService, transport);
    const err = await client.getTask(create(GetTaskRequestSchema, { id: "t1" }), { headers: v, onHeader: (h) => void (headers = h) }).then(
      () => undefined,
      (e: unknown) => ConnectError.from(e),
    );
    expect(err?.code).toBe(16);
    expect(headers?.get("www-authenticate") ?? err?.metadata.get("www-authenticate")).toBe(challenge);
  });
});

/**
 * POSTs a body of `chunks` x 64 KiB on a raw socket, one chunk per tick
 * while the server lets it, and gives the status line's code, or "lost: ..."
 * when the connection ended without an answer (a reset drops an answer the
 * client had not read yet).
 */
function slowPost(origin: string, path: string, chunks: number, close: boolean): Promise<string> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    let sent = 0;
    let error = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => {
      text += c;
      if (/^HTTP\/1\.1 \d{3}/.test(text)) socket.destroy();
    });
    socket.on("error", (e) => void (error = e.message));
    socket.on("close", () => {
      clearInterval(timer);
      const m = /^HTTP\/1\.1 (\d{3})/.exec(text);
      resolve(m ? m[1]! : `lost after ${sent} chunks: ${error || "closed"}`);
    });
    socket.write(
      `POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n${close ? "Connection: close\r\n" : ""}Content-Length: ${chunks * 65536}\r\n\r\n`,
    );
    const chunk = Buffer.alloc(65536, 32);
    // Eight chunks a tick: faster than the answer comes, so the server answers mid-body.
    const timer = setInterval(() => {
      for (let k = 0; k < 8; k++) {
        if (sent === chunks || socket.destroyed) return clearInterval(timer);
        socket.write(chunk);
        sent++;
      }
    }, 1);
  });
}

describe.each(frameworks)("an early error reaches a client still sending (%s)", (framework) => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });

  // With Connection: close the server closes after its answer; before the fix about half of these read a reset (EPIPE).
  test.each([false, true])(
    "401 from the context factory, 8 senders of 3 MiB at once (Connection: close %s): every one reads its 401",
    async (close) => {
      const g = guard();
      const s = await startBoth(framework, stubs, { context: g.context });
      closers.push(s.close);
      const got = await Promise.all(Array.from({ length: 8 }, () => slowPost(s.origin, "/message:send", 48, close)));
      expect(got).toEqual(Array(8).fill("401"));
    },
  );

  test.each([false, true])("an A2A-Version not served, 8 senders (Connection: close %s): every one reads its 400", async (close) => {
    const s = await startBoth(framework, stubs, { a2aVersions: ["2.0"] });
    closers.push(s.close);
    const got = await Promise.all(Array.from({ length: 8 }, () => slowPost(s.origin, "/message:send", 48, close)));
    expect(got).toEqual(Array(8).fill("400"));
  });
});

/**
 * Sends a JSON-RPC POST's headers, announcing `bytes` of body, and then only
 * `sendFirst` bytes of it; gives the answer's status line code and body, the
 * milliseconds from the headers to the status line, and how much of the body
 * had been sent by then. Undefined when no answer came within `waitMs` (a
 * server that reads the body before answering waits for the rest for ever).
 */
function withheldBody(
  origin: string,
  bytes: number,
  sendFirst: number,
  waitMs: number,
): Promise<{ status: string; body: string; ms: number; sent: number; headers: string } | undefined> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    let start = 0;
    const timer = setTimeout(() => (socket.destroy(), resolve(undefined)), waitMs);
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => {
      text += c;
      const end = text.indexOf("\r\n\r\n");
      const length = /content-length: (\d+)/i.exec(text);
      if (end < 0 || !length || text.length < end + 4 + Number(length[1])) return;
      clearTimeout(timer);
      const ms = performance.now() - start;
      socket.destroy();
      resolve({ status: text.slice(9, 12), headers: text.slice(0, end).toLowerCase(), body: text.slice(end + 4), ms, sent: sendFirst });
    });
    socket.on("error", () => {});
    socket.write(
      `POST /jsonrpc HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: ${bytes}\r\n\r\n`,
      () => {
        start = performance.now();
        if (sendFirst > 0) socket.write(Buffer.from(bigSend(sendFirst, true).slice(0, sendFirst)));
      },
    );
  });
}

describe.each(frameworks)("JSON-RPC on %s: authentication before the body is read", (framework) => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });

  test("a 3 MB SendMessage without a token whose body is withheld is answered 401 all the same (id null, WWW-Authenticate)", async () => {
    const g = guard();
    const s = await startBoth(framework, stubs, { context: g.context });
    closers.push(s.close);
    // Before the fix the server waited for the 3 MB to parse them: no answer at all.
    const got = await withheldBody(s.origin, 3_000_000, 0, 3_000);
    expect(got, "an answer while the body is withheld").toBeDefined();
    expect(got!.status).toBe("401");
    expect(got!.headers).toContain(`www-authenticate: ${challenge.toLowerCase()}`);
    expect(JSON.parse(got!.body)).toMatchObject({ jsonrpc: "2.0", id: null, error: { code: -32000 } });
    expect(g.calls).toHaveLength(1);
    expect(g.calls[0]!.rpc).toBeUndefined();
    expect(g.calls[0]!.headers.get("content-length")).toBe("3000000");
  });

  test("eight at once, each having sent 64 KiB of its 3 MB: all 401, so the server held at most 512 KiB of their 24 MB", async () => {
    const g = guard();
    const s = await startBoth(framework, stubs, { context: g.context });
    closers.push(s.close);
    const got = await Promise.all(Array.from({ length: 8 }, () => withheldBody(s.origin, 3_000_000, 65536, 3_000)));
    expect(got.map((r) => r?.status)).toEqual(Array(8).fill("401"));
    expect(g.calls.every((c) => c.rpc === undefined)).toBe(true);
  });

  test.each([false, true])("8 senders of 3 MiB still sending (Connection: close %s) each read their 401, no reset", async (close) => {
    const g = guard();
    const s = await startBoth(framework, stubs, { context: g.context });
    closers.push(s.close);
    const got = await Promise.all(Array.from({ length: 8 }, () => slowPost(s.origin, "/jsonrpc", 48, close)));
    expect(got).toEqual(Array(8).fill("401"));
  });

  test("with a token the same server serves the request, the factory called with the headers, then with the rpc", async () => {
    const g = guard();
    const s = await startBoth(framework, stubs, { context: g.context });
    closers.push(s.close);
    const res = await fetch(s.origin + "/jsonrpc", {
      method: "POST",
      headers: { ...j, authorization: "Bearer ok" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } }),
    });
    expect(res.status).toBe(200);
    expect(await res.json()).toMatchObject({ id: 1, result: { id: "t1" } });
    expect(g.calls.map((c) => c.rpc)).toEqual([undefined, "getTask"]);
  });
});

describe("wwwAuthenticate: the challenges of a card's security schemes", () => {
  test("the message form (protobuf-es) and the JSON form give the same header", () => {
    const json = {
      name: "x",
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
        basic: { httpAuthSecurityScheme: { scheme: "basic" } },
        oauth: {
          oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://auth.example/token", scopes: { read: "read" } } } },
        },
        oidc: { openIdConnectSecurityScheme: { openIdConnectUrl: "https://auth.example/.well-known/openid-configuration" } },
        key: { apiKeySecurityScheme: { location: "header", name: "X-API-Key" } },
        mtls: { mtlsSecurityScheme: {} },
      },
    };
    const fromJson = wwwAuthenticate(json, { realm: "agent" });
    const message = create(AgentCardSchema, {
      name: "x",
      securitySchemes: {
        bearer: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "Bearer", bearerFormat: "JWT" } } },
        basic: { scheme: { case: "httpAuthSecurityScheme", value: { scheme: "basic" } } },
        oauth: {
          scheme: {
            case: "oauth2SecurityScheme",
            value: {
              flows: { flow: { case: "clientCredentials", value: { tokenUrl: "https://auth.example/token", scopes: { read: "read" } } } },
            },
          },
        },
        oidc: {
          scheme: {
            case: "openIdConnectSecurityScheme",
            value: { openIdConnectUrl: "https://auth.example/.well-known/openid-configuration" },
          },
        },
        key: { scheme: { case: "apiKeySecurityScheme", value: { location: "header", name: "X-API-Key" } } },
        mtls: { scheme: { case: "mtlsSecurityScheme", value: {} } },
      },
    });
    expect(wwwAuthenticate(message, { realm: "agent" })).toBe(fromJson);
    // One challenge per auth-scheme (bearer from http, oauth2 and OIDC merged), in the card's order.
    expect(fromJson).toBe('Bearer realm="agent", Basic realm="agent", ApiKey realm="agent", name="X-API-Key", in="header"');
  });

  test("no schemes, or none a header can name (mTLS): undefined", () => {
    expect(wwwAuthenticate({ name: "x" })).toBeUndefined();
    expect(wwwAuthenticate({ securitySchemes: { m: { mtlsSecurityScheme: {} } } })).toBeUndefined();
  });

  test("quotes and backslashes in a realm or key name are escaped; a scheme name that is no token is left out", () => {
    const h = wwwAuthenticate(
      {
        securitySchemes: {
          a: { httpAuthSecurityScheme: { scheme: "Bad Scheme" } },
          k: { apiKeySecurityScheme: { location: "query", name: 'k"\\' } },
        },
      },
      { realm: 'a"b' },
    );
    expect(h).toBe('ApiKey realm="a\\"b", name="k\\"\\\\", in="query"');
  });
});
