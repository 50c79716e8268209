/**
 * Authenticate before work (issue 28, item 4): the context factory runs
 * before the body is read (HTTP+JSON) or decoded (JSON-RPC); an early error
 * reaches a client that is still sending its body (no reset, no EPIPE); the
 * factory can set response headers on its error, so a 401 carries
 * WWW-Authenticate on every binding; wwwAuthenticate() builds that header
 * from the card's security schemes.
 */
import { connect } from "node:net";
import { afterAll, describe, expect, test } from "vitest";
import { createClient, createRouterTransport, ConnectError } from "@connectrpc/connect";
import { create } from "@bufbuild/protobuf";
import {
  Code,
  RpcError,
  createFetchHandler,
  createJsonRpcHandler,
  fetchHandlerOf,
  wwwAuthenticate,
  type ContextInput,
} from "a2a-http";
import { A2AServiceRoutes } from "../../gen/a2a_http.js";
import { a2aServiceConnect } from "../../gen/a2a_http_connect.js";
import { A2AService, AgentCardSchema, GetTaskRequestSchema } from "../../gen/a2a_pb.js";
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

describe("JSON-RPC: the context factory runs before the params are decoded", () => {
  test("a 401 without a token: no decoding happens (a params shape that cannot decode still gets the 401)", async () => {
    const g = guard();
    const decoded: unknown[] = [];
    const handle = fetchHandlerOf(
      createJsonRpcHandler(A2AServiceRoutes, { sendMessage: (req) => (decoded.push(req), { payload: { case: "task", value: { id: "t" } } }) }, { profile: "a2a", context: g.context }),
    );
    // `message` of the wrong type: decoding would answer -32602; authentication answers first.
    const res = await handle(new Request("http://agent.test/", { method: "POST", headers: j, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message: 5 } }) }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(challenge);
    expect(g.calls).toHaveLength(1);
    expect(decoded).toEqual([]);
  });

  test("with a token, the same params are refused by the decoder after the factory ran", async () => {
    const g = guard();
    const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, stubs, { profile: "a2a", context: g.context }));
    const res = await handle(
      new Request("http://agent.test/", { method: "POST", headers: { ...j, authorization: "Bearer ok" }, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: 5 } }) }),
    );
    expect(res.status).toBe(200);
    expect(await res.text()).toContain('"code":-32602');
    expect(g.calls).toHaveLength(1);
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
    const res = await handle(new Request("http://agent.test/", { method: "POST", headers: j, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } }) }));
    expect(res.status).toBe(401);
    expect(res.headers.get("www-authenticate")).toBe(challenge);
  });

  test("gRPC: UNAUTHENTICATED with WWW-Authenticate in the response headers", async () => {
    const g = guard();
    let headers: Headers | undefined;
    const transport = createRouterTransport(a2aServiceConnect(stubs, { context: g.context }));
    const client = createClient(A2AService, transport);
    const err = await client
      .getTask(create(GetTaskRequestSchema, { id: "t1" }), { headers: v, onHeader: (h) => void (headers = h) })
      .then(() => undefined, (e: unknown) => ConnectError.from(e));
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
    socket.write(`POST ${path} HTTP/1.1\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\n${close ? "Connection: close\r\n" : ""}Content-Length: ${chunks * 65536}\r\n\r\n`);
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
  test.each([false, true])("401 from the context factory, 8 senders of 3 MiB at once (Connection: close %s): every one reads its 401", async (close) => {
    const g = guard();
    const s = await startBoth(framework, stubs, { context: g.context });
    closers.push(s.close);
    const got = await Promise.all(Array.from({ length: 8 }, () => slowPost(s.origin, "/message:send", 48, close)));
    expect(got).toEqual(Array(8).fill("401"));
  });

  test.each([false, true])("an A2A-Version not served, 8 senders (Connection: close %s): every one reads its 400", async (close) => {
    const s = await startBoth(framework, stubs, { a2aVersions: ["2.0"] });
    closers.push(s.close);
    const got = await Promise.all(Array.from({ length: 8 }, () => slowPost(s.origin, "/message:send", 48, close)));
    expect(got).toEqual(Array(8).fill("400"));
  });
});

describe("wwwAuthenticate: the challenges of a card's security schemes", () => {
  test("the message form (protobuf-es) and the JSON form give the same header", () => {
    const json = {
      name: "x",
      securitySchemes: {
        bearer: { httpAuthSecurityScheme: { scheme: "Bearer", bearerFormat: "JWT" } },
        basic: { httpAuthSecurityScheme: { scheme: "basic" } },
        oauth: { oauth2SecurityScheme: { flows: { clientCredentials: { tokenUrl: "https://auth.example/token", scopes: { read: "read" } } } } },
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
        oauth: { scheme: { case: "oauth2SecurityScheme", value: { flows: { flow: { case: "clientCredentials", value: { tokenUrl: "https://auth.example/token", scopes: { read: "read" } } } } } } },
        oidc: { scheme: { case: "openIdConnectSecurityScheme", value: { openIdConnectUrl: "https://auth.example/.well-known/openid-configuration" } } },
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
    const h = wwwAuthenticate({ securitySchemes: { a: { httpAuthSecurityScheme: { scheme: "Bad Scheme" } }, k: { apiKeySecurityScheme: { location: "query", name: 'k"\\' } } } }, { realm: 'a"b' });
    expect(h).toBe('ApiKey realm="a\\"b", name="k\\"\\\\", in="query"');
  });
});
