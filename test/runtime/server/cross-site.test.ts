/**
 * Cross-site requests and DNS rebinding (issue 28, item 6), and the Status
 * bodies of what Fastify's HTTP parser refuses (item 9): a body without a
 * JSON media type is refused on HTTP+JSON and JSON-RPC (a no-cors browser
 * fetch sends one without a preflight); the Host check of `allowedHosts`,
 * on by default for a server listening on loopback.
 */
import { connect } from "node:net";
import http2 from "node:http2";
import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, ListTasksRequestSchema } from "../../../gen/a2a_pb.js";
import { startExampleAgent } from "../../../example/server.js";
import { afterAll, describe, expect, test } from "vitest";
import { createHttpHandler, type UniversalServerRequest, type UniversalServerResponse } from "a2a-http";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { frameworks, startBoth } from "./harness.js";

const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const task = { id: "t1", contextId: "c1" };

function stubs() {
  const calls: string[] = [];
  return {
    calls,
    handlers: {
      sendMessage: () => (calls.push("sendMessage"), { payload: { case: "task" as const, value: task } }),
      getTask: () => (calls.push("getTask"), task),
      listTasks: () => (calls.push("listTasks"), { tasks: [] }),
    },
  };
}

/** One raw request with exactly the `Host` given (none when undefined); the status and body. */
function withHost(origin: string, head: string, host: string | undefined, body = ""): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c: string) => void (text += c));
    socket.on("error", reject);
    socket.on("close", () => {
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      if (!m) return reject(new Error(`no answer: ${JSON.stringify(text.slice(0, 100))}`));
      resolve({ status: Number(m[1]), body: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    const lines = [head, ...(host === undefined ? [] : [`Host: ${host}`]), "Connection: close", "A2A-Version: 1.0"];
    if (body !== "") lines.push("Content-Type: application/json", `Content-Length: ${Buffer.byteLength(body)}`);
    socket.write(lines.join("\r\n") + "\r\n\r\n" + body);
  });
}

describe.each(frameworks)("%s", (framework) => {
  const closers: (() => Promise<void>)[] = [];
  afterAll(async () => {
    for (const c of closers) await c();
  });
  const serve = async (options = {}) => {
    const s = stubs();
    const server = await startBoth(framework, s.handlers, options);
    closers.push(server.close);
    return { ...server, calls: s.calls };
  };

  describe("a body needs a JSON media type", () => {
    test("a no-cors browser fetch (a Blob body: no Content-Type, A2A-Version in the query) is refused on HTTP+JSON", async () => {
      const s = await serve();
      const res = await fetch(s.origin + "/message:send?A2A-Version=1.0", {
        method: "POST",
        body: new Blob([JSON.stringify({ message })]),
      });
      const text = await res.text();
      expect(res.status, text).toBe(400);
      expect(JSON.parse(text)).toMatchObject({
        error: { status: "INVALID_ARGUMENT", details: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] },
      });
      expect(s.calls).toEqual([]);
    });

    test("the same on /jsonrpc", async () => {
      const s = await serve();
      const body = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } });
      const res = await fetch(s.origin + "/jsonrpc?A2A-Version=1.0", { method: "POST", body: new Blob([body]) });
      const text = await res.text();
      // A2A's ContentTypeNotSupportedError (-32005).
      expect(JSON.parse(text)).toMatchObject({ error: { code: -32005, data: [{ reason: "CONTENT_TYPE_NOT_SUPPORTED" }] } });
      expect(s.calls).toEqual([]);
    });

    test("application/json and application/a2a+json still pass; a GET needs no type", async () => {
      const s = await serve();
      for (const type of ["application/json", "application/a2a+json; charset=utf-8"]) {
        const res = await fetch(s.origin + "/message:send", {
          method: "POST",
          headers: { "a2a-version": "1.0", "content-type": type },
          body: JSON.stringify({ message }),
        });
        expect(res.status, await res.text()).toBe(200);
      }
      expect((await fetch(s.origin + "/tasks/t1", { headers: { "a2a-version": "1.0" } })).status).toBe(200);
      expect(s.calls).toEqual(["sendMessage", "sendMessage", "getTask"]);
    });
  });

  describe("allowedHosts: a loopback listener answers loopback names only (DNS rebinding)", () => {
    test("by default: localhost, 127.0.0.1 and [::1] with the port pass; another name, another port or no Host is a 421", async () => {
      const s = await serve();
      const port = new URL(s.origin).port;
      for (const host of [`localhost:${port}`, `127.0.0.1:${port}`, `[::1]:${port}`, `LOCALHOST:${port}`]) {
        expect((await withHost(s.origin, "GET /tasks HTTP/1.1", host)).status, host).toBe(200);
      }
      for (const host of [`rebind.attacker.example:${port}`, `localhost:${Number(port) + 1}`, "localhost", `127.0.0.1.nip.io:${port}`]) {
        const res = await withHost(s.origin, "GET /tasks HTTP/1.1", host);
        expect(res.status, host).toBe(421);
        expect(JSON.parse(res.body)).toMatchObject({ error: { code: 421, message: expect.stringContaining("allowedHosts") } });
      }
      // No Host at all: refused (@hono/node-server refuses it itself, with 400, before the runtime sees it).
      expect([400, 421]).toContain((await withHost(s.origin, "GET /tasks HTTP/1.0", undefined)).status);
      const rpc = await withHost(
        s.origin,
        "POST /jsonrpc HTTP/1.1",
        `rebind.attacker.example:${port}`,
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks" }),
      );
      expect(rpc.status).toBe(421);
      expect(s.calls).toEqual(["listTasks", "listTasks", "listTasks", "listTasks"]);
    });

    test('"any" turns the check off; a list allows its names (a .domain its subdomains)', async () => {
      const any = await serve({ allowedHosts: "any" });
      expect((await withHost(any.origin, "GET /tasks HTTP/1.1", "rebind.attacker.example")).status).toBe(200);
      const listed = await serve({ allowedHosts: ["agent.example:8443", ".corp.example"] });
      expect((await withHost(listed.origin, "GET /tasks HTTP/1.1", "agent.example:8443")).status).toBe(200);
      expect((await withHost(listed.origin, "GET /tasks HTTP/1.1", "agent.example:8444")).status).toBe(421);
      expect((await withHost(listed.origin, "GET /tasks HTTP/1.1", "a2a.corp.example")).status).toBe(200);
      expect((await withHost(listed.origin, "GET /tasks HTTP/1.1", "corp.example:1")).status).toBe(200);
      expect((await withHost(listed.origin, "GET /tasks HTTP/1.1", "evilcorp.example")).status).toBe(421);
      expect((await withHost(listed.origin, "GET /tasks HTTP/1.1", "localhost")).status).toBe(421);
    });
  });
});

describe("allowedHosts in the core", () => {
  /** A request to the core with a Host and a listening address of our choosing. */
  function request(host: string, listener: { address: string; port: number } | undefined): UniversalServerRequest {
    const headers = new Headers({ host, "a2a-version": "1.0" });
    return {
      method: "GET",
      rawPath: "/tasks",
      rawQuery: "",
      header: (name) => headers.get(name) ?? undefined,
      headers,
      readBody: async () => "",
      signal: new AbortController().signal,
      listener: () => listener,
    };
  }
  const status = async (answer: UniversalServerResponse | Promise<UniversalServerResponse>) => (await answer).status;

  test("a server on every interface (0.0.0.0, ::) is not checked by default; one on 127.0.0.2 takes its own address too", async () => {
    const handle = createHttpHandler(A2AServiceRoutes, stubs().handlers, { profile: "a2a" });
    expect(await status(handle(request("agent.example", { address: "0.0.0.0", port: 80 })))).toBe(200);
    expect(await status(handle(request("agent.example", { address: "::", port: 80 })))).toBe(200);
    expect(await status(handle(request("127.0.0.2:8080", { address: "127.0.0.2", port: 8080 })))).toBe(200);
    expect(await status(handle(request("agent.example:8080", { address: "127.0.0.2", port: 8080 })))).toBe(421);
    expect(await status(handle(request("[::1]:8080", { address: "::1", port: 8080 })))).toBe(200);
    // An adapter that cannot tell where it listens (a fetch runtime) is not checked by default.
    expect(await status(handle(request("agent.example", undefined)))).toBe(200);
  });

  test("a malformed entry fails at startup, naming it", () => {
    expect(() => createHttpHandler(A2AServiceRoutes, {}, { profile: "a2a", allowedHosts: ["agent.example/x"] })).toThrow(
      /agent.example\/x/,
    );
    expect(() => createHttpHandler(A2AServiceRoutes, {}, { profile: "a2a", allowedHosts: "all" as never })).toThrow(/allowedHosts/);
  });
});

describe("Fastify: what node's parser refuses is a google.rpc.Status (fastifyOptions)", () => {
  test("headers too large: 431 with a Status body", async () => {
    const s = await startBoth("fastify", stubs().handlers);
    try {
      const res = await withHost(s.origin, `GET /tasks HTTP/1.1\r\nX-Big: ${"x".repeat(20_000)}`, new URL(s.origin).host);
      expect(res.status).toBe(431);
      expect(JSON.parse(res.body)).toMatchObject({
        error: { code: 431, status: "RESOURCE_EXHAUSTED", details: [{ reason: "INVALID_REQUEST" }] },
      });
      const bad = await withHost(s.origin, "GET /tasks HTTP/1.1\r\nBad Header", new URL(s.origin).host);
      expect(bad.status).toBe(400);
      expect(JSON.parse(bad.body)).toMatchObject({ error: { code: 400, status: "INVALID_ARGUMENT" } });
    } finally {
      await s.close();
    }
  });
});

/** One HTTP/2 (h2c) POST to `target` with the `:authority` given; the status and headers. */
function h2Post(
  target: string,
  authority: string,
  path: string,
  contentType: string,
  body: Uint8Array,
): Promise<{ status: number; headers: http2.IncomingHttpHeaders; body: string }> {
  return new Promise((resolve, reject) => {
    const session = http2.connect(`http://${target}`);
    session.on("error", reject);
    const req = session.request({
      ":method": "POST",
      ":path": path,
      ":authority": authority,
      "content-type": contentType,
      te: "trailers",
      "a2a-version": "1.0",
    });
    let headers: http2.IncomingHttpHeaders = {};
    let text = "";
    req.on("response", (h) => (headers = h));
    req.setEncoding("latin1");
    req.on("data", (c: string) => (text += c));
    req.on("end", () => {
      session.close();
      resolve({ status: Number(headers[":status"]), headers, body: text });
    });
    req.on("error", reject);
    req.end(body);
  });
}

describe.each(frameworks)("the example agent answers a DNS-rebinding Host nowhere (%s)", (framework) => {
  test("card, docs, HTTP+JSON, JSON-RPC and the gRPC port (gRPC and Connect) refuse it; loopback names are served", async () => {
    const agent = await startExampleAgent({ framework, port: 0, grpcPort: 0 });
    try {
      const port = new URL(agent.url).port;
      const evil = `rebind.attacker.example:${port}`;
      for (const target of ["/.well-known/agent-card.json", "/docs", "/openapi.json", "/tasks"]) {
        const res = await withHost(agent.url, `GET ${target} HTTP/1.1`, evil);
        expect(res.status, target).toBe(421);
        expect(JSON.parse(res.body), target).toMatchObject({ error: { code: 421, message: expect.stringContaining("allowedHosts") } });
        expect((await withHost(agent.url, `GET ${target} HTTP/1.1`, `localhost:${port}`)).status, target).toBe(200);
      }
      const rpc = await withHost(
        agent.url,
        "POST /jsonrpc HTTP/1.1",
        evil,
        JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
      );
      expect(rpc.status).toBe(421);

      // gRPC: a trailers-only INVALID_ARGUMENT, before connect-es reads the message.
      const grpcPort = agent.grpcTarget!.split(":").pop()!;
      const frame = Uint8Array.of(0, 0, 0, 0, 0); // an empty ListTasksRequest
      const grpc = await h2Post(
        agent.grpcTarget!,
        `rebind.attacker.example:${grpcPort}`,
        "/lf.a2a.v1.A2AService/ListTasks",
        "application/grpc",
        frame,
      );
      expect(grpc.status).toBe(200);
      expect(grpc.headers["grpc-status"]).toBe("3");
      expect(decodeURIComponent(String(grpc.headers["grpc-message"]))).toContain("allowedHosts");
      // Connect: 421 with a Connect error body.
      const connectRes = await h2Post(
        agent.grpcTarget!,
        `rebind.attacker.example:${grpcPort}`,
        "/lf.a2a.v1.A2AService/ListTasks",
        "application/json",
        new TextEncoder().encode("{}"),
      );
      expect(connectRes.status).toBe(421);
      expect(JSON.parse(connectRes.body)).toMatchObject({ code: "invalid_argument" });
      // The same call with the loopback name it listens on is served.
      const served = await h2Post(agent.grpcTarget!, `localhost:${grpcPort}`, "/lf.a2a.v1.A2AService/ListTasks", "application/grpc", frame);
      expect(served.headers["grpc-status"] ?? "0").not.toBe("3");
      const client = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` }));
      await expect(client.listTasks(create(ListTasksRequestSchema, {}), { headers: { "a2a-version": "1.0" } })).resolves.toBeDefined();
    } finally {
      await agent.close();
    }
  });

  test('--allowed-hosts "any" turns the check off on the gRPC port too', async () => {
    const agent = await startExampleAgent({ framework, port: 0, grpcPort: 0, allowedHosts: "any" });
    try {
      const grpcPort = agent.grpcTarget!.split(":").pop()!;
      const res = await h2Post(
        agent.grpcTarget!,
        `rebind.attacker.example:${grpcPort}`,
        "/lf.a2a.v1.A2AService/ListTasks",
        "application/json",
        new TextEncoder().encode("{}"),
      );
      expect(res.status).toBe(200);
      const card = await withHost(agent.url, "GET /.well-known/agent-card.json HTTP/1.1", "rebind.attacker.example");
      expect(card.status).toBe(200);
    } finally {
      await agent.close();
    }
  });
});
