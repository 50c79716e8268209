// A2A v0.3's gRPC service (`a2a.v1.A2AService`) beside v1.0's on the example
// agent's gRPC port: a connect-es gRPC client of the v0.3 service, without
// `a2a-version` (as v0.3 clients send it), sends, streams, gets, cancels,
// subscribes and keeps push configs on the v1.0 engine; a v1.0 client reads
// the same tasks; errors keep their gRPC codes; the card lists the port to
// v0.3 clients as `http://host:port`, never preferred.
import http from "node:http";
import type { AddressInfo } from "node:net";
import { create, type MessageInitShape } from "@bufbuild/protobuf";
import { Code, ConnectError, createClient, type Client } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { BadRequestSchema, ErrorInfoSchema, a2aV03GrpcHandlers } from "a2a-http/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withV03CardFields } from "../../../packages/runtime/src/a2a-v03/card.js";
import { startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { createA2AServiceAgent } from "../../../gen/a2a_http_agent.js";
import { A2AService as A2AServiceV1, AgentCardSchema, TaskState as TaskStateV1 } from "../../../gen/a2a_pb.js";
import {
  A2AService,
  Role,
  TaskState,
  type MessageSchema,
  type SendMessageResponse,
  type StreamResponse,
  type Task,
} from "../../../gen/a2a-v0_3_pb.js";

const message = (text: string, extra: { taskId?: string; contextId?: string } = {}): MessageInitShape<typeof MessageSchema> => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  content: [{ part: { case: "text", value: text } }],
  ...extra,
});

const taskOf = (r: SendMessageResponse): Task => {
  expect(r.payload.case).toBe("task");
  return r.payload.value as Task;
};

const textsOf = (t: Task) => t.artifacts.flatMap((a) => a.parts.map((p) => (p.part.case === "text" ? p.part.value : `<${p.part.case}>`)));

/** The ConnectError a call fails with. */
async function failure(p: Promise<unknown>): Promise<ConnectError> {
  try {
    await p;
  } catch (e) {
    return ConnectError.from(e);
  }
  throw new Error("the call succeeded");
}

/** What one v0.3 stream yields, as [case, state or artifact text, final]. */
function summary(e: StreamResponse): [string, string, boolean?] {
  switch (e.payload.case) {
    case "task":
      return ["task", TaskState[e.payload.value.status!.state]];
    case "statusUpdate":
      return ["statusUpdate", TaskState[e.payload.value.status!.state], e.payload.value.final];
    case "artifactUpdate":
      return ["artifactUpdate", e.payload.value.artifact!.parts.map((p) => p.part.value).join("")];
    default:
      return [String(e.payload.case), ""];
  }
}

describe("v0.3 gRPC (a2a.v1.A2AService) on the example agent's gRPC port", () => {
  let agent: RunningAgent;
  let v03: Client<typeof A2AService>;
  let v1: Client<typeof A2AServiceV1>;
  const v1Headers = { headers: { "a2a-version": "1.0" } };

  beforeAll(async () => {
    agent = await startExampleAgent({ framework: "hono", port: 0, grpcPort: 0 });
    const transport = createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` });
    v03 = createClient(A2AService, transport);
    v1 = createClient(A2AServiceV1, transport);
  });
  afterAll(async () => {
    await agent?.close();
  });

  /** A task left WORKING ("/wait"), sent without blocking. */
  async function workingTask(): Promise<Task> {
    const task = taskOf(await v03.sendMessage({ request: message("/wait"), configuration: { blocking: false } }));
    expect([TaskState.SUBMITTED, TaskState.WORKING]).toContain(task.status?.state);
    return task;
  }

  it("SendMessage answers the completed task with the echo artifact, which a v1.0 client reads", async () => {
    const task = taskOf(await v03.sendMessage({ request: message("over v0.3 gRPC") }));
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect(task.id).not.toBe("");
    expect(task.contextId).not.toBe("");
    expect(textsOf(task)).toEqual(["echo: over v0.3 gRPC"]);
    expect(task.artifacts[0]?.artifactId).toBe(`${task.id}-echo`);
    // v0.3's Message keeps its parts in `content`, its role v0.3's enum.
    expect(task.history[0]?.content[0]?.part).toEqual({ case: "text", value: "over v0.3 gRPC" });
    expect(task.history[0]?.role).toBe(Role.USER);

    const same = await v1.getTask({ id: task.id }, v1Headers);
    expect(same.contextId).toBe(task.contextId);
    expect(same.status?.state).toBe(TaskStateV1.COMPLETED);
    expect(same.artifacts[0]?.parts[0]?.content).toEqual({ case: "text", value: "echo: over v0.3 gRPC" });
  });

  it("a message answer (no task) comes back as v0.3's msg", async () => {
    const r = await v03.sendMessage({ request: message("/message hi there") });
    expect(r.payload.case).toBe("msg");
    const m = r.payload.value as { role: Role; content: { part: { value: unknown } }[] };
    expect(m.role).toBe(Role.AGENT);
    expect(m.content[0]?.part.value).toBe("hi there");
  });

  it("SendStreamingMessage: the task, status updates with v0.3's final, the artifact, the last one final", async () => {
    const events: [string, string, boolean?][] = [];
    for await (const e of v03.sendStreamingMessage({ request: message("streamed") })) events.push(summary(e));
    expect(events[0]?.[0]).toBe("task");
    expect(events).toContainEqual(["statusUpdate", "WORKING", false]);
    expect(events).toContainEqual(["artifactUpdate", "echo: streamed"]);
    expect(events.at(-1)).toEqual(["statusUpdate", "COMPLETED", true]);
    // Only the last update is final.
    expect(events.filter((e) => e[2] === true)).toHaveLength(1);
  });

  it("GetTask by name, with history_length", async () => {
    const sent = taskOf(await v03.sendMessage({ request: message("history") }));
    const full = await v03.getTask({ name: `tasks/${sent.id}` });
    expect(full.id).toBe(sent.id);
    expect(full.history.length).toBeGreaterThanOrEqual(1);
    const one = await v03.getTask({ name: `tasks/${sent.id}`, historyLength: 1 });
    expect(one.history).toHaveLength(1);
    expect(textsOf(one)).toEqual(["echo: history"]);
  });

  it("CancelTask of a working task answers it TASK_STATE_CANCELLED (v0.3's spelling)", async () => {
    const task = await workingTask();
    const canceled = await v03.cancelTask({ name: `tasks/${task.id}` });
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.CANCELLED);
    expect((await v1.getTask({ id: task.id }, v1Headers)).status?.state).toBe(TaskStateV1.CANCELED);
  });

  it("TaskSubscription: the task first, then its updates until a final one", async () => {
    const task = await workingTask();
    const events: [string, string, boolean?][] = [];
    const stream = v03.taskSubscription({ name: `tasks/${task.id}` });
    const done = (async () => {
      for await (const e of stream) {
        events.push(summary(e));
        if (events.length === 1) await v03.cancelTask({ name: `tasks/${task.id}` });
      }
    })();
    await done;
    expect(events[0]).toEqual(["task", "WORKING"]);
    expect(events.at(-1)).toEqual(["statusUpdate", "CANCELLED", true]);
  });

  it("the four push config rpcs, on names; configs made over v0.3 get v0.3's notifications", async () => {
    // A webhook on loopback (the example agent allows local plain-http ones there).
    const bodies: unknown[] = [];
    const hook = http.createServer((req, res) => {
      let body = "";
      req.on("data", (c: Buffer) => (body += c.toString()));
      req.on("end", () => {
        bodies.push({ token: req.headers["x-a2a-notification-token"], body: JSON.parse(body) });
        res.end();
      });
    });
    await new Promise<void>((ok) => hook.listen(0, "127.0.0.1", ok));
    try {
      const hookUrl = `http://127.0.0.1:${(hook.address() as AddressInfo).port}/hook`;
      const task = await workingTask();
      const parent = `tasks/${task.id}`;
      const name = `${parent}/pushNotificationConfigs/c1`;
      const made = await v03.createTaskPushNotificationConfig({
        parent,
        configId: "c1",
        config: { name, pushNotificationConfig: { id: "c1", url: hookUrl, token: "tok-1" } },
      });
      expect(made.name).toBe(name);
      expect(made.pushNotificationConfig).toMatchObject({ id: "c1", url: hookUrl, token: "tok-1" });
      // A second one, named only by configId (the TCK's other clients' way), on the unroutable port 9.
      const second = await v03.createTaskPushNotificationConfig({
        parent,
        configId: "c2",
        config: { pushNotificationConfig: { url: "http://127.0.0.1:9/hook" } },
      });
      expect(second.name).toBe(`${parent}/pushNotificationConfigs/c2`);

      const got = await v03.getTaskPushNotificationConfig({ name });
      expect(got.name).toBe(name);
      expect(got.pushNotificationConfig?.url).toBe(hookUrl);
      const list = await v03.listTaskPushNotificationConfig({ parent });
      expect(list.configs.map((c) => c.name).sort()).toEqual([name, `${parent}/pushNotificationConfigs/c2`]);
      await v03.deleteTaskPushNotificationConfig({ name: `${parent}/pushNotificationConfigs/c2` });
      expect((await v03.listTaskPushNotificationConfig({ parent })).configs.map((c) => c.name)).toEqual([name]);
      // The v1.0 service sees the same config.
      expect((await v1.getTaskPushNotificationConfig({ taskId: task.id, id: "c1" }, v1Headers)).url).toBe(hookUrl);

      // Made by a v0.3 request: its notifications are the task in v0.3's JSON.
      await v03.cancelTask({ name: parent });
      const deadline = Date.now() + 10_000;
      while (bodies.length === 0 && Date.now() < deadline) await new Promise((ok) => setTimeout(ok, 50));
      expect(bodies.at(-1)).toMatchObject({ token: "tok-1", body: { kind: "task", id: task.id, status: { state: "canceled" } } });
    } finally {
      await new Promise<void>((ok) => hook.close(() => ok()));
    }
  });

  it("GetAgentCard: the extended card with v0.3's fields, the gRPC port among them", async () => {
    const card = await v03.getAgentCard({});
    expect(card.protocolVersion).toBe("0.3.0");
    expect(card.url).toBe(agent.jsonRpcUrl);
    expect(card.preferredTransport).toBe("JSONRPC");
    expect(card.additionalInterfaces.map((i) => [i.transport, i.url])).toEqual([
      ["HTTP+JSON", agent.url],
      ["JSONRPC", agent.jsonRpcUrl],
      ["GRPC", `http://${agent.grpcTarget}`],
    ]);
    expect(card.skills.map((s) => s.id)).toEqual(["echo", "extended-echo"]);
  });

  it("the well-known card lists the gRPC port to v0.3 requests only, as http://host:port", async () => {
    const v03Card = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json();
    expect(v03Card.preferredTransport).toBe("JSONRPC");
    expect(v03Card.additionalInterfaces).toContainEqual({ url: `http://${agent.grpcTarget}`, transport: "GRPC" });
    expect(v03Card.supportedInterfaces).toContainEqual({
      url: `http://${agent.grpcTarget}`,
      protocolBinding: "GRPC",
      protocolVersion: "0.3",
    });
    const v1Card = await (await fetch(`${agent.url}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } })).json();
    expect(v1Card.additionalInterfaces).toBeUndefined();
    expect(v1Card.supportedInterfaces.filter((i: { protocolBinding: string }) => i.protocolBinding === "GRPC")).toEqual([
      { url: agent.grpcTarget, protocolBinding: "GRPC", protocolVersion: "1.0" },
    ]);
  });

  it("an unknown task is NOT_FOUND with TASK_NOT_FOUND", async () => {
    const e = await failure(v03.getTask({ name: "tasks/no-such-task" }));
    expect(e.code).toBe(Code.NotFound);
    expect(e.findDetails(ErrorInfoSchema)[0]?.reason).toBe("TASK_NOT_FOUND");
    expect((await failure(v03.cancelTask({ name: "tasks/no-such-task" }))).code).toBe(Code.NotFound);
  });

  it("a malformed name is INVALID_ARGUMENT naming the field, before any handler", async () => {
    for (const name of ["task/x", "tasks/", "tasks/a/b", "", "tasks/.."]) {
      const e = await failure(v03.getTask({ name }));
      expect(e.code, name).toBe(Code.InvalidArgument);
      expect(e.findDetails(ErrorInfoSchema)[0]?.reason).toBe("INVALID_PARAMS");
      expect(e.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field).toBe("name");
    }
    const e = await failure(v03.getTaskPushNotificationConfig({ name: "tasks/x/pushNotificationConfigs/" }));
    expect(e.code).toBe(Code.InvalidArgument);
    expect(e.rawMessage).toMatch(/^name: /);
    const p = await failure(v03.listTaskPushNotificationConfig({ parent: "tasks" }));
    expect(p.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field).toBe("parent");
    const other = await failure(
      v03.createTaskPushNotificationConfig({
        parent: "tasks/a",
        configId: "c",
        config: { name: "tasks/b/pushNotificationConfigs/c", pushNotificationConfig: { url: "http://127.0.0.1:9/hook" } },
      }),
    );
    expect(other.findDetails(BadRequestSchema)[0]?.fieldViolations[0]?.field).toBe("config.name");
    // A message without parts: v1.0's REQUIRED field, as on every binding.
    const empty = await failure(v03.sendMessage({ request: { messageId: "m", role: Role.USER, content: [] } }));
    expect(empty.code).toBe(Code.InvalidArgument);
    expect(empty.findDetails(ErrorInfoSchema)[0]?.reason).toBe("INVALID_PARAMS");
  });

  it("the element cap holds on the v0.3 service too", async () => {
    const parts = Array.from({ length: 100_001 }, () => ({ part: { case: "text" as const, value: "" } }));
    const e = await failure(v03.sendMessage({ request: { messageId: "m", role: Role.USER, content: parts } }));
    expect(e.code).toBe(Code.ResourceExhausted);
    expect(e.rawMessage).toMatch(/more than 100000 elements/);
  });

  it("a v1.0 request on the v0.3 service is refused as the v0.3 binding refuses it: VERSION_NOT_SUPPORTED", async () => {
    const e = await failure(v03.getTask({ name: "tasks/x" }, v1Headers));
    expect(e.code).toBe(Code.FailedPrecondition);
    const info = e.findDetails(ErrorInfoSchema)[0];
    expect(info?.reason).toBe("VERSION_NOT_SUPPORTED");
    expect(info?.metadata).toMatchObject({ version: "1.0", supported: "0.3" });
    // And the v1.0 service still wants its version.
    expect((await failure(v1.getTask({ id: "x" }))).findDetails(ErrorInfoSchema)[0]?.reason).toBe("VERSION_NOT_SUPPORTED");
    expect((await failure(v1.getTask({ id: "x" }, v1Headers))).code).toBe(Code.NotFound);
  });
});

describe("a2aV03GrpcHandlers", () => {
  it("maps every v0.3 rpc, and is undefined for an agent with v0.3 off", () => {
    const card = () => create(AgentCardSchema, { name: "a" });
    const on = a2aV03GrpcHandlers(
      createA2AServiceAgent(async () => {}, { card }),
      { v1: A2AServiceV1, v03: A2AService },
    );
    expect(Object.keys(on ?? {}).sort()).toEqual(A2AService.methods.map((m) => m.localName).sort());
    const off = a2aV03GrpcHandlers(
      createA2AServiceAgent(async () => {}, { card, a2aV03: false }),
      { v1: A2AServiceV1, v03: A2AService },
    );
    expect(off).toBeUndefined();
  });

  it("refuses services that are not A2A v1.0's and v0.3's", () => {
    expect(() => a2aV03GrpcHandlers({}, { v1: A2AService, v03: A2AService })).toThrow(/services.v1 is a2a.v1.A2AService/);
    expect(() => a2aV03GrpcHandlers({}, { v1: A2AServiceV1, v03: A2AServiceV1 })).toThrow(/services.v03 is lf.a2a.v1.A2AService/);
  });

  it("leaves out a v0.3 rpc whose v1.0 handler is missing", () => {
    const h = a2aV03GrpcHandlers({ getTask: () => ({}) }, { v1: A2AServiceV1, v03: A2AService });
    expect(Object.keys(h ?? {})).toEqual(["getTask"]);
  });
});

describe("the card's v0.3 gRPC interface", () => {
  const v1Card = {
    name: "g",
    supportedInterfaces: [
      { url: "h:9", protocolBinding: "GRPC", protocolVersion: "1.0" },
      { url: "http://h/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "grpcs://s:443", protocolBinding: "GRPC", protocolVersion: "1.0" },
      { url: "t:9", protocolBinding: "GRPC", protocolVersion: "1.0", tenant: "acme" },
    ],
  };

  it("is listed only with the option, as http(s)://host:port, never preferred", () => {
    expect(withV03CardFields(v1Card)).toMatchObject({
      preferredTransport: "HTTP+JSON",
      additionalInterfaces: [{ url: "http://h/", transport: "HTTP+JSON" }],
    });
    expect(withV03CardFields(v1Card, { grpc: true })).toMatchObject({
      url: "http://h/",
      preferredTransport: "HTTP+JSON",
      additionalInterfaces: [
        { url: "http://h:9", transport: "GRPC" },
        { url: "http://h/", transport: "HTTP+JSON" },
        { url: "https://s:443", transport: "GRPC" },
      ],
    });
  });

  it("alone, gives no v0.3 fields (v0.3 needs a JSON-RPC or HTTP+JSON url)", () => {
    const grpcOnly = { name: "g", supportedInterfaces: [{ url: "h:9", protocolBinding: "GRPC", protocolVersion: "1.0" }] };
    expect(withV03CardFields(grpcOnly, { grpc: true })).toBe(grpcOnly);
  });
});
