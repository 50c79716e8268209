import { create, toJson } from "@bufbuild/protobuf";
import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { ListTasksResponseSchema, Role, SendMessageResponseSchema, TaskSchema, TaskState } from "../../../gen/a2a_pb.js";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { Code, RpcError } from "a2a-http";
import { json, startRecorder, type Recorder } from "./recorder.js";

let server: Recorder;
beforeAll(async () => {
  server = await startRecorder();
});
afterAll(() => server.close());
beforeEach(() => {
  server.respond = json(200, {});
});

const message = { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text" as const, value: "hi" } }] };
const messageJson = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] };

interface Case {
  rpc: keyof A2AServiceClient;
  call: (c: A2AServiceClient) => Promise<unknown>;
  method: string;
  /** The path and query without the tenant prefix. */
  url: string;
  body?: unknown;
  stream?: boolean;
}

const drain = async (it: AsyncIterable<unknown>) => {
  const out: unknown[] = [];
  for await (const m of it) out.push(m);
  return out;
};

const cases: Case[] = [
  {
    rpc: "sendMessage",
    call: (c) => c.sendMessage({ message, configuration: { historyLength: 2 } }),
    method: "POST",
    url: "/message:send",
    body: { message: messageJson, configuration: { historyLength: 2 } },
  },
  {
    rpc: "sendStreamingMessage",
    call: (c) => drain(c.sendStreamingMessage({ message })),
    method: "POST",
    url: "/message:stream",
    body: { message: messageJson },
    stream: true,
  },
  { rpc: "getTask", call: (c) => c.getTask({ id: "task-1" }), method: "GET", url: "/tasks/task-1" },
  {
    rpc: "getTask",
    call: (c) => c.getTask({ id: "task-1", historyLength: 0 }),
    method: "GET",
    url: "/tasks/task-1?historyLength=0",
  },
  { rpc: "listTasks", call: (c) => c.listTasks({}), method: "GET", url: "/tasks" },
  {
    rpc: "listTasks",
    call: (c) =>
      c.listTasks({
        contextId: "ctx 1",
        status: TaskState.WORKING,
        pageSize: 10,
        pageToken: "p/q+r",
        historyLength: 0,
        statusTimestampAfter: timestampFromDate(new Date("2026-01-02T03:04:05.123Z")),
        includeArtifacts: false,
      }),
    method: "GET",
    url:
      "/tasks?contextId=ctx%201&status=TASK_STATE_WORKING&pageSize=10&pageToken=p%2Fq%2Br&historyLength=0" +
      "&statusTimestampAfter=2026-01-02T03%3A04%3A05.123Z&includeArtifacts=false",
  },
  { rpc: "cancelTask", call: (c) => c.cancelTask({ id: "task-1" }), method: "POST", url: "/tasks/task-1:cancel", body: {} },
  {
    rpc: "cancelTask",
    call: (c) => c.cancelTask({ id: "task-1", metadata: { reason: "user" } }),
    method: "POST",
    url: "/tasks/task-1:cancel",
    body: { metadata: { reason: "user" } },
  },
  {
    rpc: "subscribeToTask",
    call: (c) => drain(c.subscribeToTask({ id: "task-1" })),
    method: "POST",
    url: "/tasks/task-1:subscribe",
    stream: true,
  },
  {
    rpc: "createTaskPushNotificationConfig",
    call: (c) => c.createTaskPushNotificationConfig({ taskId: "task-1", id: "cfg", url: "https://cb.example/x", token: "tok" }),
    method: "POST",
    url: "/tasks/task-1/pushNotificationConfigs",
    body: { id: "cfg", url: "https://cb.example/x", token: "tok" },
  },
  {
    rpc: "getTaskPushNotificationConfig",
    call: (c) => c.getTaskPushNotificationConfig({ taskId: "task-1", id: "cfg" }),
    method: "GET",
    url: "/tasks/task-1/pushNotificationConfigs/cfg",
  },
  {
    rpc: "listTaskPushNotificationConfigs",
    call: (c) => c.listTaskPushNotificationConfigs({ taskId: "task-1", pageSize: 5, pageToken: "n" }),
    method: "GET",
    url: "/tasks/task-1/pushNotificationConfigs?pageSize=5&pageToken=n",
  },
  { rpc: "getExtendedAgentCard", call: (c) => c.getExtendedAgentCard({}), method: "GET", url: "/extendedAgentCard" },
  {
    rpc: "deleteTaskPushNotificationConfig",
    call: (c) => c.deleteTaskPushNotificationConfig({ taskId: "task-1", id: "cfg" }),
    method: "DELETE",
    url: "/tasks/task-1/pushNotificationConfigs/cfg",
  },
];

describe.each([
  { label: "without tenant", tenant: undefined, prefix: "" },
  { label: "with tenant", tenant: "acme", prefix: "/acme" },
  { label: "with an escaped tenant", tenant: "a b/ü", prefix: "/a%20b%2F%C3%BC" },
])("A2A client on the wire, $label", ({ tenant, prefix }) => {
  it.each(cases.map((c, i) => ({ ...c, name: `${c.rpc} #${i}` })))("$name", async (c) => {
    if (c.stream) {
      server.respond = (_r, res) => {
        res.writeHead(200, { "content-type": "text/event-stream" });
        res.end('data: {"task":{"id":"task-1"}}\n\n');
      };
    }
    const client = createA2AServiceClient({ baseUrl: server.url + "/", ...(tenant ? { tenant } : {}) });
    await c.call(client);
    const r = server.last();
    expect(r.method).toBe(c.method);
    expect(r.url).toBe(prefix + c.url);
    expect(r.headers["a2a-version"]).toBe("1.0");
    expect(r.headers["accept"]).toBe(c.stream ? "text/event-stream" : "application/a2a+json, application/json");
    if (c.body === undefined) {
      expect(r.body).toBe("");
      expect(r.headers["content-type"]).toBeUndefined();
    } else {
      expect(r.headers["content-type"]).toBe("application/a2a+json");
      expect(JSON.parse(r.body)).toEqual(c.body);
    }
  });
});

describe("A2A client: ids on the wire", () => {
  const ids: [string, string][] = [
    ["a/b", "a%2Fb"],
    ["a:b", "a%3Ab"],
    ["a b", "a%20b"],
    ["ü", "%C3%BC"],
    ["%", "%25"],
    ["!'()*", "%21%27%28%29%2A"],
    ["a+b&c=d?e#f", "a%2Bb%26c%3Dd%3Fe%23f"],
    ["...", "..."],
    ["~._-", "~._-"],
  ];
  it.each(ids)("GetTask id %j goes as %s", async (id, wire) => {
    const client = createA2AServiceClient({ baseUrl: server.url });
    await client.getTask({ id });
    expect(server.last().url).toBe(`/tasks/${wire}`);
    await client.cancelTask({ id });
    expect(server.last().url).toBe(`/tasks/${wire}:cancel`);
    await client.getTaskPushNotificationConfig({ taskId: id, id });
    expect(server.last().url).toBe(`/tasks/${wire}/pushNotificationConfigs/${wire}`);
  });

  it.each([".", ".."])("refuses the id %j before sending anything", async (id) => {
    const client = createA2AServiceClient({ baseUrl: server.url });
    const before = server.requests.length;
    const err = await client.getTask({ id }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(RpcError);
    expect((err as RpcError).code).toBe(Code.INVALID_ARGUMENT);
    expect((err as RpcError).httpStatus).toBe(0);
    expect((err as RpcError).message).toMatch(/getTask: field id "\.{1,2}" has a "\." or "\.\." path segment/);
    const tenantErr = await createA2AServiceClient({ baseUrl: server.url, tenant: id })
      .listTasks({})
      .catch((e: unknown) => e);
    expect((tenantErr as RpcError).message).toMatch(/field tenant/);
    expect(server.requests.length).toBe(before);
  });

  it("names the rpc and the missing field when no binding fits", async () => {
    const client = createA2AServiceClient({ baseUrl: server.url });
    const err = (await client.getTask({}).catch((e: unknown) => e)) as RpcError;
    expect(err).toBeInstanceOf(RpcError);
    expect(err.code).toBe(Code.INVALID_ARGUMENT);
    expect(err.message).toContain("getTask");
    expect(err.message).toContain("field id is not set");
  });

  it("keeps a tenant the request sets over the client's", async () => {
    const client = createA2AServiceClient({ baseUrl: server.url, tenant: "default" });
    await client.getTask({ id: "t", tenant: "other" });
    expect(server.last().url).toBe("/other/tasks/t");
  });
});

describe("A2A client: responses", () => {
  it("decodes the response message, ignoring unknown fields", async () => {
    server.respond = json(
      200,
      { task: { id: "t1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123456789Z" } }, extra: 1 },
      "application/a2a+json; charset=utf-8",
    );
    const client = createA2AServiceClient({ baseUrl: server.url });
    const res = await client.sendMessage({ message });
    expect(res.payload.case).toBe("task");
    expect(toJson(SendMessageResponseSchema, res)).toEqual({
      task: { id: "t1", status: { state: "TASK_STATE_COMPLETED", timestamp: "2026-01-02T03:04:05.123456789Z" } },
    });
  });

  it.each([
    [200, ""],
    [201, ""],
    [204, ""],
    [200, "{}"],
    [201, '{"id":"cfg"}'],
  ])("accepts %i with body %j", async (status, body) => {
    server.respond = (_r, res) => {
      res.writeHead(status, body ? { "content-type": "application/json" } : {});
      res.end(body);
    };
    const client = createA2AServiceClient({ baseUrl: server.url });
    const cfg = await client.createTaskPushNotificationConfig({ taskId: "t", url: "https://x" });
    expect(cfg.id).toBe(body.includes("cfg") ? "cfg" : "");
    await expect(client.deleteTaskPushNotificationConfig({ taskId: "t", id: "c" })).resolves.toBeDefined();
  });

  it("reads a ListTasks answer with every field printed", async () => {
    server.respond = json(200, { tasks: [], nextPageToken: "", pageSize: 50, totalSize: 0 });
    const client = createA2AServiceClient({ baseUrl: server.url });
    const res = await client.listTasks({});
    expect(res).toEqual(create(ListTasksResponseSchema, { pageSize: 50 }));
  });

  it("sends application/json when told to", async () => {
    const client = createA2AServiceClient({ baseUrl: server.url, contentType: "application/json" });
    server.respond = json(200, { id: "t" });
    expect((await client.cancelTask({ id: "t" })).id).toBe("t");
    expect(server.last().headers["content-type"]).toBe("application/json");
    await client.getTask({ id: "t" });
    expect(server.last().headers["content-type"]).toBeUndefined();
  });

  it("returns a message of the right type", async () => {
    server.respond = json(200, { id: "t", contextId: "c" });
    const client = createA2AServiceClient({ baseUrl: server.url });
    expect(await client.getTask({ id: "t" })).toEqual(create(TaskSchema, { id: "t", contextId: "c" }));
  });
});
