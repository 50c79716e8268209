/**
 * One tenant per request (issue 28, item 2; the rule is docs/security.md's):
 * every A2A rpc x every place a tenant can travel (HTTP+JSON path, query and
 * body, JSON-RPC params, gRPC field). The context factory, the handler's
 * context and the handler's request all see the same effective tenant;
 * tenants that disagree are a 400 before any handler runs; a tenant or a
 * path id that decodes to NUL, a control character, "/", "." or ".." is a
 * 400 on every binding. Served in process (fetch handlers and connect-es's
 * router transport), so no sockets.
 */
import { describe, expect, test } from "vitest";
import { create } from "@bufbuild/protobuf";
import { createClient, createRouterTransport, ConnectError } from "@connectrpc/connect";
import { createFetchHandler, createJsonRpcHandler, fetchHandlerOf, RpcError, Code, type ContextInput } from "a2a-http";
import { A2AServiceRoutes, type A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { createA2AServiceAgent } from "../../../gen/a2a_http_agent.js";
import { A2AService, TaskState } from "../../../gen/a2a_pb.js";

const v = { "a2a-version": "1.0" };
const j = { ...v, "content-type": "application/json" };
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };
const task = { id: "t1", contextId: "c1", status: { state: TaskState.COMPLETED } };
const pushConfig = { taskId: "t1", id: "p1", url: "https://hooks.example/h" };

interface Rpc {
  readonly rpc: keyof A2AServiceHandlers;
  /** The JSON-RPC (and proto) method name. */
  readonly method: string;
  readonly http: "GET" | "POST" | "DELETE";
  /** The plain route, without a tenant. */
  readonly path: string;
  /** The HTTP body (POST routes) and the JSON-RPC params / gRPC request, without a tenant. */
  readonly body?: Record<string, unknown>;
  readonly params: Record<string, unknown>;
  readonly streaming?: boolean;
  readonly answer: unknown;
}

const rpcs: Rpc[] = [
  {
    rpc: "sendMessage",
    method: "SendMessage",
    http: "POST",
    path: "/message:send",
    body: { message },
    params: { message },
    answer: { payload: { case: "task", value: task } },
  },
  {
    rpc: "sendStreamingMessage",
    method: "SendStreamingMessage",
    http: "POST",
    path: "/message:stream",
    body: { message },
    params: { message },
    streaming: true,
    answer: { payload: { case: "task", value: task } },
  },
  { rpc: "getTask", method: "GetTask", http: "GET", path: "/tasks/t1", params: { id: "t1" }, answer: task },
  { rpc: "listTasks", method: "ListTasks", http: "GET", path: "/tasks", params: {}, answer: { tasks: [] } },
  { rpc: "cancelTask", method: "CancelTask", http: "POST", path: "/tasks/t1:cancel", body: {}, params: { id: "t1" }, answer: task },
  {
    rpc: "subscribeToTask",
    method: "SubscribeToTask",
    http: "GET",
    path: "/tasks/t1:subscribe",
    params: { id: "t1" },
    streaming: true,
    answer: { payload: { case: "task", value: task } },
  },
  {
    rpc: "createTaskPushNotificationConfig",
    method: "CreateTaskPushNotificationConfig",
    http: "POST",
    path: "/tasks/t1/pushNotificationConfigs",
    body: { url: pushConfig.url },
    params: { taskId: "t1", url: pushConfig.url },
    answer: pushConfig,
  },
  {
    rpc: "getTaskPushNotificationConfig",
    method: "GetTaskPushNotificationConfig",
    http: "GET",
    path: "/tasks/t1/pushNotificationConfigs/p1",
    params: { taskId: "t1", id: "p1" },
    answer: pushConfig,
  },
  {
    rpc: "listTaskPushNotificationConfigs",
    method: "ListTaskPushNotificationConfigs",
    http: "GET",
    path: "/tasks/t1/pushNotificationConfigs",
    params: { taskId: "t1" },
    answer: { configs: [] },
  },
  {
    rpc: "deleteTaskPushNotificationConfig",
    method: "DeleteTaskPushNotificationConfig",
    http: "DELETE",
    path: "/tasks/t1/pushNotificationConfigs/p1",
    params: { taskId: "t1", id: "p1" },
    answer: {},
  },
  {
    rpc: "getExtendedAgentCard",
    method: "GetExtendedAgentCard",
    http: "GET",
    path: "/extendedAgentCard",
    params: {},
    answer: { name: "x" },
  },
];

test("the matrix covers every rpc of the service", () => {
  expect(rpcs.map((r) => r.method).sort()).toEqual(A2AService.methods.map((m) => m.name).sort());
});

/** What one request showed: the factory's tenant(s), the handler context's, the request's. */
interface Seen {
  factory: (string | undefined)[];
  ctx: (string | undefined)[];
  req: string[];
}

function recorder() {
  const seen: Seen = { factory: [], ctx: [], req: [] };
  const handlers: Record<string, unknown> = {};
  for (const r of rpcs) {
    const record = (req: { tenant: string }, ctx: { tenant?: string }) => {
      seen.ctx.push(ctx.tenant);
      seen.req.push(req.tenant);
    };
    handlers[r.rpc] = r.streaming
      ? async function* (req: { tenant: string }, ctx: { tenant?: string }) {
          record(req, ctx);
          yield r.answer;
        }
      : (req: { tenant: string }, ctx: { tenant?: string }) => {
          record(req, ctx);
          return r.answer;
        };
  }
  const context = (input: ContextInput) => {
    seen.factory.push(input.tenant);
    return {};
  };
  return { seen, handlers: handlers as Partial<A2AServiceHandlers>, context };
}

function http(rec: ReturnType<typeof recorder>) {
  const handle = createFetchHandler(A2AServiceRoutes, rec.handlers, { profile: "a2a", context: rec.context });
  return async (method: string, path: string, body?: unknown) => {
    const init: RequestInit = { method, headers: body === undefined ? v : j };
    if (body !== undefined) init.body = JSON.stringify(body);
    const res = await handle(new Request("http://agent.test" + path, init));
    return { status: res.status, text: await res.text() };
  };
}

function jsonRpc(rec: ReturnType<typeof recorder>) {
  const handle = fetchHandlerOf(createJsonRpcHandler(A2AServiceRoutes, rec.handlers, { profile: "a2a", context: rec.context }));
  return async (method: string, params: unknown) => {
    const res = await handle(
      new Request("http://agent.test/", { method: "POST", headers: j, body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }) }),
    );
    return { status: res.status, text: await res.text() };
  };
}

function grpc(rec: ReturnType<typeof recorder>) {
  const transport = createRouterTransport(a2aServiceConnect(rec.handlers, { context: rec.context }));
  const client = createClient(A2AService, transport) as unknown as Record<string, (req: unknown, opts?: unknown) => unknown>;
  return async (r: Rpc, request: Record<string, unknown>) => {
    const schema = A2AService.method[lower(r.method) as keyof typeof A2AService.method].input;
    const msg = create(schema, toInit(request) as never);
    const call = client[lower(r.method)]!;
    try {
      if (r.streaming) for await (const _ of call(msg, { headers: v }) as AsyncIterable<unknown>) void _;
      else await call(msg, { headers: v });
      return { ok: true as const };
    } catch (e) {
      return { ok: false as const, error: ConnectError.from(e) };
    }
  };
}

const lower = (s: string) => s[0]!.toLowerCase() + s.slice(1);

/** The JSON params as protobuf-es init (role by number, parts' oneof). */
function toInit(p: Record<string, unknown>): Record<string, unknown> {
  if (!p["message"]) return p;
  return { ...p, message: { messageId: "m1", role: 1, parts: [{ content: { case: "text", value: "hi" } }] } };
}

function expectOne(seen: Seen, tenant: string | undefined) {
  expect(seen.factory.length, "the context factory ran").toBeGreaterThan(0);
  expect(seen.factory.at(-1), "the factory's (last) tenant").toBe(tenant);
  expect(seen.ctx, "the handler's context").toEqual([tenant]);
  expect(seen.req, "the handler's request").toEqual([tenant ?? ""]);
}

function expect400(status: number, text: string, seen: Seen, says = "tenant") {
  expect(status, text).toBe(400);
  expect(text).toContain(says);
  expect(seen.ctx, "no handler ran").toEqual([]);
}

describe.each(rpcs)("$method", (r) => {
  const query = (path: string, q: string) => path + (path.includes("?") ? "&" : "?") + q;

  test("HTTP+JSON path: /bob/... is bob everywhere", async () => {
    const rec = recorder();
    const res = await http(rec)(r.http, "/bob" + r.path, r.body);
    expect(res.status, res.text).toBe(200);
    expectOne(rec.seen, "bob");
  });

  test("HTTP+JSON: no tenant anywhere is none everywhere", async () => {
    const rec = recorder();
    const res = await http(rec)(r.http, r.path, r.body);
    expect(res.status, res.text).toBe(200);
    expectOne(rec.seen, undefined);
  });

  if (r.body === undefined) {
    test("HTTP+JSON query: ?tenant=bob is bob everywhere", async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, query(r.path, "tenant=bob"));
      expect(res.status, res.text).toBe(200);
      expectOne(rec.seen, "bob");
    });

    test("HTTP+JSON: path alice with ?tenant=bob is a 400", async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, query("/alice" + r.path, "tenant=bob"));
      expect400(res.status, res.text, rec.seen);
    });

    test("HTTP+JSON: path bob with ?tenant=bob agrees", async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, query("/bob" + r.path, "tenant=bob"));
      expect(res.status, res.text).toBe(200);
      expectOne(rec.seen, "bob");
    });
  } else {
    test('HTTP+JSON body: {"tenant":"bob"} is bob everywhere (the factory sees it before the handler)', async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, r.path, { ...r.body, tenant: "bob" });
      expect(res.status, res.text).toBe(200);
      expectOne(rec.seen, "bob");
    });

    test('HTTP+JSON: path alice with body {"tenant":"bob"} is a 400', async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, "/alice" + r.path, { ...r.body, tenant: "bob" });
      expect400(res.status, res.text, rec.seen);
    });

    test('HTTP+JSON: path bob with body {"tenant":"bob"} agrees', async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, "/bob" + r.path, { ...r.body, tenant: "bob" });
      expect(res.status, res.text).toBe(200);
      expectOne(rec.seen, "bob");
    });

    test("HTTP+JSON: a body route does not read the query, so ?tenant=bob names no tenant", async () => {
      const rec = recorder();
      const res = await http(rec)(r.http, query(r.path, "tenant=bob"), r.body);
      expect(res.status, res.text).toBe(200);
      expectOne(rec.seen, undefined);
    });
  }

  test("JSON-RPC params: tenant bob is bob everywhere", async () => {
    const rec = recorder();
    const res = await jsonRpc(rec)(r.method, { ...r.params, tenant: "bob" });
    expect(res.status, res.text).toBe(200);
    expect(res.text).not.toContain('"error"');
    expectOne(rec.seen, "bob");
  });

  test("JSON-RPC params: no tenant is none everywhere", async () => {
    const rec = recorder();
    const res = await jsonRpc(rec)(r.method, r.params);
    expect(res.text).not.toContain('"error"');
    expectOne(rec.seen, undefined);
  });

  test("gRPC field: tenant bob is bob everywhere", async () => {
    const rec = recorder();
    const res = await grpc(rec)(r, { ...r.params, tenant: "bob" });
    expect(res.ok, res.ok ? "" : res.error.message).toBe(true);
    expectOne(rec.seen, "bob");
  });

  test.each([
    ["NUL", "a\u0000b"],
    ["a control character", "a\u001bb"],
    ["a slash", "a/b"],
    ["a dot", "."],
    ["two dots", ".."],
  ])("a tenant with %s is a 400 on every binding", async (_what, bad) => {
    const h = recorder();
    // A dot segment never reaches the router through a Request (the URL
    // parser resolves it); as raw bytes it is refused before routing (hardening.test.ts).
    if (bad !== "." && bad !== "..") {
      const viaPath = await http(h)(r.http, "/" + encodeURIComponent(bad) + r.path, r.body);
      expect400(viaPath.status, viaPath.text, h.seen);
    }
    if (r.body === undefined) {
      const q = await http(h)(r.http, query(r.path, "tenant=" + encodeURIComponent(bad)));
      expect400(q.status, q.text, h.seen);
    } else {
      const b = await http(h)(r.http, r.path, { ...r.body, tenant: bad });
      expect400(b.status, b.text, h.seen);
    }
    const rpc = await jsonRpc(h)(r.method, { ...r.params, tenant: bad });
    expect(rpc.text).toContain('"code":-32602');
    expect(rpc.text).toContain("tenant");
    const g = await grpc(h)(r, { ...r.params, tenant: bad });
    expect(g.ok).toBe(false);
    if (!g.ok) expect(g.error.code).toBe(3 /* INVALID_ARGUMENT */);
    expect(h.seen.ctx, "no handler ran").toEqual([]);
  });
});

describe("path ids", () => {
  const idRoutes = rpcs.filter((r) => r.path.includes("t1"));

  test.each(idRoutes.flatMap((r) => ["%00", "%1F", "%7F", "%2F", "a%2Fb"].map((id) => [r.method, r, id] as const)))(
    "%s: an id that decodes to %s is a 400",
    async (_m, r, id) => {
      const rec = recorder();
      const res = await http(rec)(r.http, r.path.replace("t1", id), r.body);
      expect400(res.status, res.text, rec.seen, "path variable");
    },
  );

  test.each(idRoutes.map((r) => [r.method, r] as const))("%s: JSON-RPC and gRPC refuse the same ids", async (_m, r) => {
    const rec = recorder();
    const field = "id" in r.params ? "id" : "taskId";
    const rpc = await jsonRpc(rec)(r.method, { ...r.params, [field]: "a/b" });
    expect(rpc.text).toContain('"code":-32602');
    const g = await grpc(rec)(r, { ...r.params, [field]: "a\u0000b" });
    expect(g.ok).toBe(false);
    expect(rec.seen.ctx).toEqual([]);
  });

  test("ordinary ids still pass (UUIDs, dots inside, spaces, non-ASCII)", async () => {
    const rec = recorder();
    const call = http(rec);
    for (const id of ["0b9f1c2e-1f7a-4a57-9b7a-0c1f4d6b8e21", "a.b", "...", "a b", "ünï"]) {
      const res = await call("GET", "/tasks/" + encodeURIComponent(id));
      expect(res.status, `${id}: ${res.text}`).toBe(200);
    }
  });
});

describe("the attack of issue 28: alice's token, bob's tenant, on the task engine", () => {
  // The factory lets a token act for its own tenant or for none; every task
  // of a tenant is shared by its users (owner ""), as in a team workspace.
  const tokens: Record<string, string> = { "Bearer alice": "alice", "Bearer bob": "bob" };
  const context = (input: ContextInput) => {
    const who = tokens[input.headers.get("authorization") ?? ""];
    if (who === undefined) throw new RpcError(Code.UNAUTHENTICATED, "no valid token");
    if (input.tenant !== undefined && input.tenant !== who)
      throw new RpcError(Code.PERMISSION_DENIED, `${who} may not act for ${input.tenant}`);
    return { owner: "" };
  };

  async function setup() {
    const card = { name: "x", capabilities: {}, defaultInputModes: ["text/plain"], skills: [] };
    const agent = createA2AServiceAgent(async (_input, t) => void t.complete({ parts: [{ content: { case: "text", value: "ok" } }] }), {
      card: card as never,
    });
    const handle = createFetchHandler(A2AServiceRoutes, agent, { profile: "a2a", context });
    const send = async (who: string, method: string, path: string, body?: unknown) => {
      const headers: Record<string, string> = { ...(body === undefined ? v : j), authorization: `Bearer ${who}` };
      const res = await handle(
        new Request("http://agent.test" + path, { method, headers, ...(body === undefined ? {} : { body: JSON.stringify(body) }) }),
      );
      return { status: res.status, text: await res.text() };
    };
    const made = await send("bob", "POST", "/bob/message:send", { message });
    expect(made.status, made.text).toBe(200);
    const id = JSON.parse(made.text).task.id as string;
    return { agent, send, id };
  }

  test("bob's task is bob's; alice reads and cancels none of it through the query or the body", async () => {
    const { agent, send, id } = await setup();
    try {
      expect((await send("bob", "GET", `/bob/tasks/${id}`)).status).toBe(200);
      expect((await send("alice", "GET", "/tasks?tenant=bob")).status).toBe(403);
      expect((await send("alice", "GET", `/tasks/${id}?tenant=bob`)).status).toBe(403);
      expect((await send("alice", "POST", `/tasks/${id}:cancel`, { tenant: "bob" })).status).toBe(403);
      expect((await send("alice", "GET", `/alice/tasks/${id}?tenant=bob`)).status).toBe(400);
      expect((await send("alice", "POST", `/alice/tasks/${id}:cancel`, { tenant: "bob" })).status).toBe(400);
      // Alice's own tenant has no such task.
      expect((await send("alice", "GET", `/alice/tasks/${id}`)).status).toBe(404);
    } finally {
      await agent.close();
    }
  });
});
