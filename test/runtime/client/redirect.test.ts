/**
 * Issue 28 item 7: the client follows redirects itself. Same-origin ones are
 * followed; one to another origin is refused (FAILED_PRECONDITION naming both
 * origins) and the other origin gets nothing; with the `redirects` option
 * allowing it, the hop goes without X-API-Key, Authorization or any other
 * header but the protocol's. Two servers on 127.0.0.1 (two ports: two origins).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { Code, RpcError } from "../../../packages/runtime/src/errors.js";

interface Seen {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage["headers"];
  readonly body: string;
}

function listen(answer: (req: IncomingMessage, body: string) => { status: number; headers?: Record<string, string>; body?: string }) {
  const seen: Seen[] = [];
  const server = createServer((req, res) => {
    let body = "";
    req.setEncoding("utf8");
    req.on("data", (c: string) => (body += c));
    req.on("end", () => {
      seen.push({ method: req.method!, url: req.url!, headers: req.headers, body });
      const a = answer(req, body);
      res.writeHead(a.status, { "content-type": "application/json", ...a.headers });
      res.end(a.body ?? "");
    });
  });
  return { server, seen };
}

const TASK = JSON.stringify({ id: "t1", contextId: "c1", status: { state: "TASK_STATE_COMPLETED" } });
const SEND = JSON.stringify({ task: JSON.parse(TASK) });
let other: { server: Server; seen: Seen[] };
let agent: { server: Server; seen: Seen[] };
const url = (s: Server) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;

beforeAll(async () => {
  other = listen((req) => ({ status: 200, body: req.url!.includes(":send") ? SEND : TASK }));
  agent = listen((req) => {
    const u = new URL(req.url!, "http://x");
    // /moved/... redirects within the agent; /jr/... to the other origin.
    if (u.pathname.startsWith("/moved")) return { status: 307, headers: { location: u.pathname.slice("/moved".length) + u.search } };
    if (u.pathname.includes("/jr")) return { status: 307, headers: { location: `${url(other.server)}${u.pathname.replace("/jr", "")}` } };
    return {
      status: 200,
      body: u.pathname.includes(":send") ? SEND : u.pathname === "/" ? '{"jsonrpc":"2.0","id":1,"result":' + TASK + "}" : TASK,
    };
  });
  for (const s of [other.server, agent.server]) await new Promise<void>((ok) => s.listen(0, "127.0.0.1", ok));
});
afterAll(async () => {
  for (const s of [other?.server, agent?.server]) await new Promise<void>((ok) => (s ? s.close(() => ok()) : ok()));
});

const creds = { "x-api-key": "secret-key", authorization: "Bearer secret-token", "x-custom": "mine" };
const message = { messageId: "m1", role: 1, parts: [{ content: { case: "text" as const, value: "hi" } }] };

async function failure(p: Promise<unknown>): Promise<RpcError> {
  const e = await p.then(
    () => undefined,
    (x: unknown) => x,
  );
  expect(e).toBeInstanceOf(RpcError);
  return e as RpcError;
}

describe("client redirects", () => {
  it("follows a same-origin 307 with its body and headers", async () => {
    agent.seen.length = 0;
    const client = createA2AServiceClient({ baseUrl: `${url(agent.server)}/moved`, headers: creds });
    const sent = await client.sendMessage({ message });
    expect(sent.payload.case).toBe("task");
    expect(agent.seen.map((s) => s.url)).toEqual(["/moved/message:send", "/message:send"]);
    expect(agent.seen[1]!.headers["x-api-key"]).toBe("secret-key");
    expect(JSON.parse(agent.seen[1]!.body).message.messageId).toBe("m1");
  });

  it("refuses a redirect to another origin by default, and the other origin gets nothing", async () => {
    other.seen.length = 0;
    const e = await failure(createA2AServiceClient({ baseUrl: `${url(agent.server)}/jr`, headers: creds }).sendMessage({ message }));
    expect(e.code).toBe(Code.FAILED_PRECONDITION);
    expect(e.httpStatus).toBe(307);
    expect(e.message).toContain(url(other.server));
    expect(other.seen).toHaveLength(0);
  });

  it("with an allowing function, crosses without credentials (307 keeps the body)", async () => {
    other.seen.length = 0;
    const allowed: string[] = [];
    const client = createA2AServiceClient({
      baseUrl: `${url(agent.server)}/jr`,
      headers: creds,
      redirects: (target) => (allowed.push(target.origin), true),
    });
    const sent = await client.sendMessage({ message });
    expect(sent.payload.case).toBe("task");
    expect(allowed).toEqual([url(other.server)]);
    expect(other.seen).toHaveLength(1);
    const h = other.seen[0]!.headers;
    expect(h["x-api-key"]).toBeUndefined();
    expect(h["authorization"]).toBeUndefined();
    expect(h["x-custom"]).toBeUndefined();
    expect(h["a2a-version"]).toBe("1.0");
    expect(JSON.parse(other.seen[0]!.body).message.messageId).toBe("m1");
  });

  it("a function that says no refuses the hop", async () => {
    other.seen.length = 0;
    const client = createA2AServiceClient({ baseUrl: `${url(agent.server)}/jr`, headers: creds, redirects: () => false });
    expect((await failure(client.sendMessage({ message }))).code).toBe(Code.FAILED_PRECONDITION);
    expect(other.seen).toHaveLength(0);
  });

  it('"none" refuses even a same-origin redirect', async () => {
    const client = createA2AServiceClient({ baseUrl: `${url(agent.server)}/moved`, redirects: "none" });
    const e = await failure(client.sendMessage({ message }));
    expect(e.code).toBe(Code.FAILED_PRECONDITION);
    expect(e.message).toContain("none");
  });

  it("the JSON-RPC transport follows the same rule", async () => {
    other.seen.length = 0;
    const client = createA2AServiceClient({ baseUrl: `${url(agent.server)}/jr`, transport: "jsonrpc", headers: creds });
    expect((await failure(client.getTask({ id: "t1" }))).code).toBe(Code.FAILED_PRECONDITION);
    expect(other.seen).toHaveLength(0);
  });
});
