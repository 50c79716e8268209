/**
 * The A2A JS SDK's client (ClientFactory + RestTransportFactory, built from
 * the agent card we serve at /.well-known/agent-card.json) against our
 * example agent on each generated adapter (Express, Fastify, Hono), with and
 * without a tenant: all 11 operations, streaming and resubscribe, and errors
 * arriving as the SDK's typed errors.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role, TaskState } from "@a2a-js/sdk";
import type { AgentCard as SdkAgentCard, Message as SdkMessage, StreamResponse as SdkStreamResponse, Task as SdkTask } from "@a2a-js/sdk";
import {
  ClientFactory,
  ClientFactoryOptions,
  DefaultAgentCardResolver,
  RestTransportFactory,
  ServiceParameters,
  withA2AExtensions,
  withA2AVersion,
  type Client,
} from "@a2a-js/sdk/client";
import {
  type A2AError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
  RequestMalformedError,
  PushNotificationNotSupportedError,
} from "@a2a-js/sdk/errors";
import { CARD_PATH, frameworks, startOurServer, type OurServer } from "./harness/our-server.js";
import { recordingFetch, rejection, streamFailure, type RecordingFetch } from "./harness/util.js";
import { artifactTexts, drain, isMessage, req, sdkMessage, withFailingStream } from "./harness/sdk-shapes.js";

const matrix = frameworks.flatMap((framework) => [
  { framework, label: "no tenant", tenant: "" },
  { framework, label: "tenant acme", tenant: "acme" },
  { framework, label: "tenant with reserved characters", tenant: "team a?b:c" }, // no "/": refused in a tenant (docs/security.md)
]);

describe.each(matrix)("SDK client -> our $framework server ($label)", ({ framework, tenant }) => {
  let server: OurServer;
  let rec: RecordingFetch;
  let factory: ClientFactory;
  let client: Client;

  beforeAll(async () => {
    server = await startOurServer(framework, { tenant, wrap: withFailingStream });
    rec = recordingFetch();
    factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory({ fetchImpl: rec.fetch })],
        preferredTransports: ["HTTP+JSON"],
        cardResolver: new DefaultAgentCardResolver({ fetchImpl: rec.fetch }),
      }),
    );
    client = await factory.createFromUrl(server.origin);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function completed(text = "hello"): Promise<SdkTask> {
    const res = await client.sendMessage(req({ message: sdkMessage(text) }));
    expect(isMessage(res)).toBe(false);
    const task = res as SdkTask;
    expect(task.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    return task;
  }

  /** A task our agent keeps WORKING until it is canceled. */
  async function waiting(): Promise<SdkTask> {
    const res = await client.sendMessage(req({ message: sdkMessage("/wait"), configuration: { returnImmediately: true } }));
    expect(isMessage(res)).toBe(false);
    const task = res as SdkTask;
    expect([TaskState.TASK_STATE_SUBMITTED, TaskState.TASK_STATE_WORKING]).toContain(task.status?.state);
    return task;
  }

  it("builds the client from the card we serve (ProtoJSON at /.well-known/agent-card.json)", () => {
    const cardCall = rec.calls.find((c) => c.url === server.origin + CARD_PATH);
    expect(cardCall?.status).toBe(200);
    expect(client.protocolVersion).toBe("1.0");
  });

  it("SendMessage: a completed task with the echo artifact", async () => {
    const task = await completed("hello there");
    expect(task.id).not.toBe("");
    expect(artifactTexts(task)).toEqual(["echo: hello there"]);
  });

  it("SendMessage: a Message answer", async () => {
    const res = await client.sendMessage(req({ message: sdkMessage("/message hi") }));
    expect(isMessage(res)).toBe(true);
    const part = (res as SdkMessage).parts[0]?.content;
    expect(part?.$case === "text" ? part.value : undefined).toBe("hi");
    expect((res as SdkMessage).role).toBe(Role.ROLE_AGENT);
  });

  it("SendStreamingMessage: Task first, artifact, terminal status last", async () => {
    const events = await drain(client.sendMessageStream(req({ message: sdkMessage("streamed") })));
    const kinds = events.map((e) => e.payload?.$case);
    expect(kinds[0]).toBe("task");
    expect(kinds).toContain("artifactUpdate");
    const last = events.at(-1)!;
    expect(last.payload?.$case).toBe("statusUpdate");
    if (last.payload?.$case === "statusUpdate") expect(last.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("SendStreamingMessage: a Message-only stream", async () => {
    const events = await drain(client.sendMessageStream(req({ message: sdkMessage("/message streamed") })));
    expect(events.map((e) => e.payload?.$case)).toEqual(["message"]);
  });

  it("SendStreamingMessage: several progress updates (/work 3)", async () => {
    const events = await drain(client.sendMessageStream(req({ message: sdkMessage("/work 3") })));
    const states = events.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states.filter((s) => s === TaskState.TASK_STATE_WORKING).length).toBeGreaterThanOrEqual(3);
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("GetTask, with historyLength", async () => {
    const task = await completed();
    const got = await client.getTask(req({ id: task.id }));
    expect(got.id).toBe(task.id);
    expect(got.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(got.history.length).toBeGreaterThan(0);
    const none = await client.getTask(req({ id: task.id, historyLength: 0 }));
    expect(none.history ?? []).toEqual([]);
  });

  it("ListTasks: context and status filters, pages, includeArtifacts", async () => {
    const contextId = crypto.randomUUID();
    const a = (await client.sendMessage(req({ message: sdkMessage("one", { contextId }) }))) as SdkTask;
    const b = (await client.sendMessage(req({ message: sdkMessage("/input", { contextId }) }))) as SdkTask;
    expect(b.status?.state).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    // Asked first: example/agent.ts's view() currently empties the stored task's
    // artifacts whenever it lists without includeArtifacts=true (reported to the lead).
    const withArtifacts = await client.listTasks(req({ contextId, includeArtifacts: true, status: TaskState.TASK_STATE_COMPLETED }));
    expect(withArtifacts.tasks.map(artifactTexts)).toEqual([["echo: one"]]);

    const all = await client.listTasks(req({ contextId }));
    expect(all.tasks.map((t) => t.id).sort()).toEqual([a.id, b.id].sort());
    expect(all.totalSize).toBe(2);

    const input = await client.listTasks(req({ contextId, status: TaskState.TASK_STATE_INPUT_REQUIRED }));
    expect(input.tasks.map((t) => t.id)).toEqual([b.id]);

    const page1 = await client.listTasks(req({ contextId, pageSize: 1 }));
    expect(page1.tasks).toHaveLength(1);
    expect(page1.nextPageToken).not.toBe("");
    const page2 = await client.listTasks(req({ contextId, pageSize: 1, pageToken: page1.nextPageToken }));
    expect(page2.tasks).toHaveLength(1);
    expect(page2.nextPageToken ?? "").toBe("");
    expect(new Set([page1.tasks[0]!.id, page2.tasks[0]!.id])).toEqual(new Set([a.id, b.id]));

    // The SDK sends includeArtifacts=false explicitly; only true brings artifacts.
    const without = await client.listTasks(req({ contextId, includeArtifacts: false, status: TaskState.TASK_STATE_COMPLETED }));
    expect(without.tasks.map(artifactTexts)).toEqual([[]]);
    const call = rec.calls.findLast((c) => c.url.includes("/tasks?"));
    expect(new URL(call!.url).searchParams.get("includeArtifacts")).toBe("false");
    expect(new URL(call!.url).searchParams.get("status")).toBe("TASK_STATE_COMPLETED");
  });

  it("CancelTask (the SDK sends an empty body): the task ends CANCELED", async () => {
    const task = await waiting();
    // The metadata is dropped by the SDK: the body goes out empty.
    const canceled = await client.cancelTask(req({ id: task.id, metadata: { reason: "test" } }));
    expect(canceled.id).toBe(task.id);
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const call = rec.calls.findLast((c) => c.url.endsWith(`/tasks/${task.id}:cancel`));
    expect(call?.method).toBe("POST");
    expect(call?.body ?? "").toBe("");
    expect(call?.status).toBe(200);
  });

  it("resubscribeTask (POST :subscribe, empty body): Task first, then the cancel ends the stream", async () => {
    const task = await waiting();
    const it = client.resubscribeTask(req({ id: task.id }))[Symbol.asyncIterator]();
    const first = await it.next();
    expect(first.done).toBe(false);
    const firstEvent = first.value as SdkStreamResponse;
    expect(firstEvent.payload?.$case).toBe("task");
    expect((firstEvent.payload?.value as SdkTask | undefined)?.id).toBe(task.id);

    await client.cancelTask(req({ id: task.id }));
    const rest: SdkStreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    const states = rest.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);

    const call = rec.calls.findLast((c) => c.url.endsWith(`/tasks/${task.id}:subscribe`));
    expect(call?.method).toBe("POST");
    expect(call?.status).toBe(200);
    expect(call?.responseType).toMatch(/^text\/event-stream/);
  });

  it("Create/Get/List/Delete TaskPushNotificationConfig", async () => {
    const task = await completed();
    const created = await client.createTaskPushNotificationConfig(
      req({
        taskId: task.id,
        id: "cfg-1",
        url: "http://127.0.0.1:9/hook",
        token: "secret",
        authentication: { scheme: "Bearer", credentials: "abc" },
      }),
    );
    expect(created.authentication?.scheme).toBe("Bearer");
    expect(created.id).toBe("cfg-1");
    expect(created.taskId).toBe(task.id);
    expect(created.url).toBe("http://127.0.0.1:9/hook");

    const got = await client.getTaskPushNotificationConfig(req({ taskId: task.id, id: "cfg-1" }));
    expect(got.token).toBe("secret");

    const listed = await client.listTaskPushNotificationConfig(req({ taskId: task.id }));
    expect(listed.configs.map((c) => c.id)).toEqual(["cfg-1"]);

    await expect(client.deleteTaskPushNotificationConfig(req({ taskId: task.id, id: "cfg-1" }))).resolves.toBeUndefined();
    expect((await client.listTaskPushNotificationConfig(req({ taskId: task.id }))).configs ?? []).toEqual([]);

    // We answer 200 for create and 200 {} for delete, where the SDK's own server says 201 and 204.
    const statuses = rec.calls
      .filter((c) => c.url.includes(`/tasks/${task.id}/pushNotificationConfigs`))
      .map((c) => `${c.method} ${c.status}`);
    expect(statuses).toEqual(["POST 200", "GET 200", "GET 200", "DELETE 200", "GET 200"]);
  });

  it("path values with reserved characters survive the SDK's encodeURIComponent and our decoding", async () => {
    const task = await completed();
    const id = "cfg?1 x:y!*'()%";
    const created = await client.createTaskPushNotificationConfig(req({ taskId: task.id, id, url: "http://127.0.0.1:9/hook" }));
    expect(created.id).toBe(id);
    expect((await client.getTaskPushNotificationConfig(req({ taskId: task.id, id }))).id).toBe(id);
    await client.deleteTaskPushNotificationConfig(req({ taskId: task.id, id }));
    expect((await client.listTaskPushNotificationConfig(req({ taskId: task.id }))).configs ?? []).toEqual([]);
    const get = rec.calls.find((c) => c.method === "GET" && c.url.includes("/pushNotificationConfigs/cfg%3F"));
    // encodeURIComponent leaves !*'() as they are (our client escapes them); our router takes both.
    expect(get?.url).toContain("/pushNotificationConfigs/cfg%3F1%20x%3Ay!*'()%25");
  });

  it("the SDK gates push-config calls on the card's capabilities: no request without pushNotifications", async () => {
    const card = await new DefaultAgentCardResolver().resolve(server.origin);
    const gated = await factory.createFromAgentCard({ ...card, capabilities: { ...card.capabilities!, pushNotifications: false } });
    const before = rec.calls.length;
    // (It throws synchronously, not as a rejected promise.)
    const e = await rejection(() => gated.createTaskPushNotificationConfig(req({ taskId: "t", id: "c", url: "http://127.0.0.1:9/hook" })));
    expect(e).toBeInstanceOf(PushNotificationNotSupportedError);
    expect(rec.calls.length).toBe(before);
  });

  it("GetExtendedAgentCard (client.getAgentCard with capabilities.extendedAgentCard)", async () => {
    const card: SdkAgentCard = await client.getAgentCard();
    expect(card.name).toBe("Echo agent");
    expect(card.skills.map((s) => s.id)).toContain("extended-echo");
    expect(card.supportedInterfaces[0]?.url).toBe(server.url);
    expect(card.supportedInterfaces[0]?.tenant ?? "").toBe(tenant);
    expect(rec.calls.some((c) => c.url.endsWith("/extendedAgentCard") && c.status === 200)).toBe(true);
  });

  it("A2A-Extensions from the SDK reach the server and do not break the call", async () => {
    const res = await client.sendMessage(req({ message: sdkMessage("/message ext") }), {
      serviceParameters: ServiceParameters.create(withA2AExtensions("https://example.com/ext/a", "https://example.com/ext/b")),
    });
    expect(isMessage(res)).toBe(true);
    const seen = server.requests.findLast((r) => r.method === "POST" && r.path.endsWith("/message:send"));
    expect(String(seen?.headers["a2a-extensions"])).toContain("https://example.com/ext/a");
  });

  describe("errors arrive as the SDK's typed errors", () => {
    it("GetTask of an unknown task: TaskNotFoundError (404)", async () => {
      const e = await rejection(client.getTask(req({ id: "no-such-task" })));
      expect(e).toBeInstanceOf(TaskNotFoundError);
      expect((e as { statusCode?: number }).statusCode).toBe(404);
    });

    it("CancelTask of a completed task: TaskNotCancelableError (400)", async () => {
      const task = await completed();
      const e = await rejection(client.cancelTask(req({ id: task.id })));
      expect(e).toBeInstanceOf(TaskNotCancelableError);
      expect((e as { statusCode?: number }).statusCode).toBe(400);
    });

    it("CancelTask of an unknown task: TaskNotFoundError", async () => {
      expect(await rejection(client.cancelTask(req({ id: "no-such-task" })))).toBeInstanceOf(TaskNotFoundError);
    });

    it("resubscribeTask of a completed task: UnsupportedOperationError before any event", async () => {
      const task = await completed();
      const { error, before } = await streamFailure(client.resubscribeTask(req({ id: task.id })));
      expect(before).toEqual([]);
      expect(error).toBeInstanceOf(UnsupportedOperationError);
    });

    it("resubscribeTask of an unknown task: TaskNotFoundError", async () => {
      const { error } = await streamFailure(client.resubscribeTask(req({ id: "no-such-task" })));
      expect(error).toBeInstanceOf(TaskNotFoundError);
    });

    it("SendMessage continuing a completed task: UnsupportedOperationError", async () => {
      const task = await completed();
      const e = await rejection(client.sendMessage(req({ message: sdkMessage("again", { taskId: task.id, contextId: task.contextId }) })));
      expect(e).toBeInstanceOf(UnsupportedOperationError);
    });

    it("SendStreamingMessage continuing an unknown task: TaskNotFoundError before the stream", async () => {
      const { error, before } = await streamFailure(
        client.sendMessageStream(req({ message: sdkMessage("x", { taskId: "no-such-task" }) })),
      );
      expect(before).toEqual([]);
      expect(error).toBeInstanceOf(TaskNotFoundError);
    });

    it("an error after the stream started (event: error) is thrown as a typed error", async () => {
      const { error, before } = await streamFailure(client.sendMessageStream(req({ message: sdkMessage("/boom") })));
      expect(before.map((e) => (e as SdkStreamResponse).payload?.$case)).toEqual(["task"]);
      expect(error).toBeInstanceOf(UnsupportedOperationError);
      expect((error as A2AError).message).toContain("broke on purpose");
    });

    it("GetTaskPushNotificationConfig of an unknown id: TaskNotFoundError", async () => {
      const task = await completed();
      expect(await rejection(client.getTaskPushNotificationConfig(req({ taskId: task.id, id: "nope" })))).toBeInstanceOf(TaskNotFoundError);
    });

    it("GetTask with a negative historyLength: RequestMalformedError (INVALID_PARAMS)", async () => {
      const e = await rejection(client.getTask(req({ id: "x", historyLength: -1 })));
      expect(e).toBeInstanceOf(RequestMalformedError);
    });

    it("an unsupported A2A-Version: VersionNotSupportedError (a bare SDK transport, which sends what it is told)", async () => {
      const card = await new DefaultAgentCardResolver().resolve(server.origin);
      const transport = await new RestTransportFactory().create(server.url, card);
      const v2 = { serviceParameters: ServiceParameters.create(withA2AVersion("2.0")) };
      expect(await rejection(transport.getTask(req({ id: "x" }), v2))).toBeInstanceOf(VersionNotSupportedError);
      // A bare transport sends no A2A-Version at all: that is 0.3, which we do not serve.
      expect(await rejection(transport.getTask(req({ id: "x" })))).toBeInstanceOf(VersionNotSupportedError);
      // 1.0.3 is 1.0 for us (Major.Minor); the SDK's own server would refuse it.
      const patch = { serviceParameters: ServiceParameters.create(withA2AVersion("1.0.3")) };
      expect(await rejection(transport.getTask(req({ id: "no-such-task" }), patch))).toBeInstanceOf(TaskNotFoundError);
    });
  });

  describe("on the wire", () => {
    it("every call goes to the card's interface URL, with the tenant prefix exactly when the card sets one", () => {
      const api = rec.calls.filter((c) => c.url !== server.origin + CARD_PATH && c.url.startsWith(server.url));
      expect(api.length).toBeGreaterThan(20);
      const prefix = tenant ? `${server.url}/${encodeURIComponent(tenant)}/` : `${server.url}/`;
      for (const c of api) {
        expect(c.url.startsWith(prefix)).toBe(true);
        if (!tenant) expect(c.url.startsWith(`${server.url}/acme/`)).toBe(false);
      }
    });

    it("the SDK sends Content-Type: application/json even on GET and DELETE; we accept it", () => {
      const bodiless = rec.calls.filter((c) => (c.method === "GET" || c.method === "DELETE") && c.url.startsWith(server.url));
      expect(bodiless.length).toBeGreaterThan(0);
      for (const c of bodiless) {
        expect(c.headers.get("content-type")).toBe("application/json");
        expect(c.status === 200 || c.status! >= 400).toBe(true);
      }
      expect(bodiless.some((c) => c.status === 200)).toBe(true);
    });

    it.runIf(tenant !== "")("the SDK also puts the tenant in POST bodies; the path tenant is the one used", () => {
      const send = rec.calls.find((c) => c.method === "POST" && c.url.endsWith("/message:send"));
      expect(JSON.parse(send!.body!).tenant).toBe(tenant);
      const stream = rec.calls.find((c) => c.method === "POST" && c.url.endsWith("/message:stream"));
      expect(JSON.parse(stream!.body!).tenant).toBe(tenant);
      const create = rec.calls.find((c) => c.method === "POST" && c.url.endsWith("/pushNotificationConfigs"));
      expect(JSON.parse(create!.body!).tenant).toBe(tenant);
    });
  });

  it.runIf(tenant !== "")("tenant scoping: a client without the tenant does not see the tenant's tasks", async () => {
    const task = await completed();
    const card = await new DefaultAgentCardResolver().resolve(server.origin);
    const iface = card.supportedInterfaces[0]!;
    const plain = await factory.createFromAgentCard({ ...card, supportedInterfaces: [{ ...iface, tenant: "" }] });
    expect(await rejection(plain.getTask(req({ id: task.id })))).toBeInstanceOf(TaskNotFoundError);
    const other = await factory.createFromAgentCard({ ...card, supportedInterfaces: [{ ...iface, tenant: "other" }] });
    expect(await rejection(other.getTask(req({ id: task.id })))).toBeInstanceOf(TaskNotFoundError);
    expect((await client.getTask(req({ id: task.id }))).id).toBe(task.id);
  });
});
