/**
 * The A2A JS SDK's gRPC client (ClientFactory + GrpcTransportFactory, on
 * @grpc/grpc-js) against the example agent's gRPC binding: the generated
 * connect-es adapter on @connectrpc/connect-node over h2c, with and without a
 * tenant. Errors must arrive as the SDK's typed errors, which it builds from
 * the ErrorInfo in `grpc-status-details-bin`, with the gRPC status of the
 * spec's table. Also a connect-es client over the Connect protocol, on the
 * same server, to show that gRPC-Web and Connect come along.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { toJson } from "@bufbuild/protobuf";
import { createClient, ConnectError, Code as ConnectCode } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport } from "@connectrpc/connect-node";
import {
  CancelTaskRequest,
  DeleteTaskPushNotificationConfigRequest,
  GetTaskPushNotificationConfigRequest,
  GetTaskRequest,
  ListTaskPushNotificationConfigsRequest,
  ListTasksRequest,
  SendMessageRequest,
  SubscribeToTaskRequest,
  TaskPushNotificationConfig,
  TaskState,
} from "@a2a-js/sdk";
import type { StreamResponse as SdkStreamResponse, Task as SdkTask } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, ServiceParameters, withA2AExtensions, withA2AVersion, type Client } from "@a2a-js/sdk/client";
import { GrpcTransportFactory } from "@a2a-js/sdk/client/grpc";
import {
  RequestMalformedError,
  TaskNotCancelableError,
  TaskNotFoundError,
  UnsupportedOperationError,
  VersionNotSupportedError,
} from "@a2a-js/sdk/errors";
import { ErrorInfoSchema } from "a2a-http/connect";
import { A2AService, AgentCardSchema } from "../../../gen/a2a_pb.js";
import { startOurGrpcServer, type OurGrpcServer } from "./harness/our-grpc-server.js";
import { rejection, streamFailure } from "./harness/util.js";
import { artifactTexts, drain, isMessage, withFailingStream } from "./harness/sdk-shapes.js";

/** A SendMessageRequest the SDK's protobuf encoder takes (ts-proto wants every field: fromJSON fills them). */
function send(text: string, extra: Record<string, unknown> = {}, configuration?: Record<string, unknown>) {
  return SendMessageRequest.fromJSON({
    message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }], ...extra },
    ...(configuration ? { configuration } : {}),
  });
}

/** The gRPC status code the SDK's typed error carries. */
const grpcStatus = (e: unknown) => (e as { status?: number }).status;

describe.each([
  { label: "no tenant", tenant: "" },
  { label: "tenant acme", tenant: "acme" },
])("SDK gRPC client -> our connect-es server ($label)", ({ tenant }) => {
  let server: OurGrpcServer;
  let client: Client;

  beforeAll(async () => {
    server = await startOurGrpcServer({ tenant, wrap: withFailingStream });
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new GrpcTransportFactory()],
        preferredTransports: ["GRPC"],
      }),
    );
    client = await factory.createFromAgentCard(toJson(AgentCardSchema, server.card) as never);
  });
  afterAll(async () => {
    await server?.close();
  });

  async function completed(text = "hello"): Promise<SdkTask> {
    const res = await client.sendMessage(send(text));
    expect(isMessage(res)).toBe(false);
    expect((res as SdkTask).status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
    return res as SdkTask;
  }

  it("SendMessage: a task, and a Message answer; A2A-Version travels as metadata", async () => {
    const task = await completed("hello there");
    expect(artifactTexts(task)).toEqual(["echo: hello there"]);
    expect(isMessage(await client.sendMessage(send("/message hi")))).toBe(true);
    const seen = server.requests.findLast((r) => r.path === "/lf.a2a.v1.A2AService/SendMessage");
    expect(seen?.headers["content-type"]).toBe("application/grpc");
    expect(seen?.headers["a2a-version"]).toBe("1.0");
  });

  it("SendStreamingMessage: Task first, terminal status last", async () => {
    const events = await drain(client.sendMessageStream(send("/work 2")));
    expect(events[0]!.payload?.$case).toBe("task");
    const last = events.at(-1)!;
    expect(last.payload?.$case === "statusUpdate" && last.payload.value.status?.state).toBe(TaskState.TASK_STATE_COMPLETED);
  });

  it("GetTask and ListTasks", async () => {
    const contextId = crypto.randomUUID();
    const task = (await client.sendMessage(send("one", { contextId }))) as SdkTask;
    const got = await client.getTask(GetTaskRequest.fromJSON({ id: task.id, historyLength: 0 }));
    expect(got.id).toBe(task.id);
    expect(got.history).toEqual([]);
    const listed = await client.listTasks(ListTasksRequest.fromJSON({ contextId, includeArtifacts: true }));
    expect(listed.tasks.map((t) => t.id)).toEqual([task.id]);
    expect(listed.tasks.map(artifactTexts)).toEqual([["echo: one"]]);
  });

  it("CancelTask and SubscribeToTask: Task first, the cancel ends the stream", async () => {
    const task = (await client.sendMessage(send("/wait", {}, { returnImmediately: true }))) as SdkTask;
    const it = client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id }))[Symbol.asyncIterator]();
    const first = await it.next();
    expect((first.value as SdkStreamResponse).payload?.$case).toBe("task");
    const canceled = await client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id }));
    expect(canceled.status?.state).toBe(TaskState.TASK_STATE_CANCELED);
    const rest: SdkStreamResponse[] = [];
    for (let r = await it.next(); !r.done; r = await it.next()) rest.push(r.value);
    const states = rest.flatMap((e) => (e.payload?.$case === "statusUpdate" ? [e.payload.value.status?.state] : []));
    expect(states.at(-1)).toBe(TaskState.TASK_STATE_CANCELED);
  });

  it("push config create / get / list / delete", async () => {
    const task = await completed();
    const created = await client.createTaskPushNotificationConfig(
      TaskPushNotificationConfig.fromJSON({ taskId: task.id, id: "cfg-1", url: "http://127.0.0.1:9/hook", token: "t" }),
    );
    expect(created.id).toBe("cfg-1");
    expect(
      (await client.getTaskPushNotificationConfig(GetTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "cfg-1" }))).token,
    ).toBe("t");
    const listed = await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }));
    expect(listed.configs.map((c) => c.id)).toEqual(["cfg-1"]);
    await client.deleteTaskPushNotificationConfig(DeleteTaskPushNotificationConfigRequest.fromJSON({ taskId: task.id, id: "cfg-1" }));
    expect(
      (await client.listTaskPushNotificationConfig(ListTaskPushNotificationConfigsRequest.fromJSON({ taskId: task.id }))).configs,
    ).toEqual([]);
  });

  it("GetExtendedAgentCard", async () => {
    const card = await client.getAgentCard();
    expect(card.skills.map((s) => s.id)).toContain("extended-echo");
  });

  it("A2A-Extensions travel as metadata", async () => {
    await client.sendMessage(send("/message x"), {
      serviceParameters: ServiceParameters.create(withA2AExtensions("https://example.com/ext/a")),
    });
    const seen = server.requests.findLast((r) => r.path === "/lf.a2a.v1.A2AService/SendMessage");
    expect(seen?.headers["a2a-extensions"]).toBe("https://example.com/ext/a");
  });

  it.runIf(tenant !== "")("the tenant is the request field and scopes the tasks", async () => {
    const task = await completed();
    const e = await rejection(client.getTask(GetTaskRequest.fromJSON({ id: task.id, tenant: "other" })));
    expect(e).toBeInstanceOf(TaskNotFoundError);
  });

  describe("errors: gRPC status with the ErrorInfo detail, as the SDK's typed errors", () => {
    it("GetTask of an unknown task: TaskNotFoundError, NOT_FOUND (5)", async () => {
      const e = await rejection(client.getTask(GetTaskRequest.fromJSON({ id: "no-such-task" })));
      expect(e).toBeInstanceOf(TaskNotFoundError);
      expect(grpcStatus(e)).toBe(5);
    });

    it("CancelTask of a completed task: TaskNotCancelableError, FAILED_PRECONDITION (9)", async () => {
      const task = await completed();
      const e = await rejection(client.cancelTask(CancelTaskRequest.fromJSON({ id: task.id })));
      expect(e).toBeInstanceOf(TaskNotCancelableError);
      expect(grpcStatus(e)).toBe(9);
    });

    it("SubscribeToTask of a completed task: UnsupportedOperationError before any event", async () => {
      const task = await completed();
      const { error, before } = await streamFailure(client.resubscribeTask(SubscribeToTaskRequest.fromJSON({ id: task.id })));
      expect(before).toEqual([]);
      expect(error).toBeInstanceOf(UnsupportedOperationError);
    });

    it("an error after the stream started arrives as the stream's status", async () => {
      const { error, before } = await streamFailure(client.sendMessageStream(send("/boom")));
      expect(before.map((e) => (e as SdkStreamResponse).payload?.$case)).toEqual(["task"]);
      expect(error).toBeInstanceOf(UnsupportedOperationError);
    });

    it("a negative historyLength: RequestMalformedError, INVALID_ARGUMENT (3)", async () => {
      const e = await rejection(client.getTask(GetTaskRequest.fromJSON({ id: "x", historyLength: -1 })));
      expect(e).toBeInstanceOf(RequestMalformedError);
      expect(grpcStatus(e)).toBe(3);
    });

    it("A2A-Version 2.0, and none (0.3): VersionNotSupportedError (a bare SDK transport, which sends what it is told)", async () => {
      const transport = await new GrpcTransportFactory().create(server.target, toJson(AgentCardSchema, server.card) as never);
      const v2 = { serviceParameters: ServiceParameters.create(withA2AVersion("2.0")) };
      expect(await rejection(transport.getTask(GetTaskRequest.fromJSON({ id: "x" }), v2))).toBeInstanceOf(VersionNotSupportedError);
      expect(await rejection(transport.getTask(GetTaskRequest.fromJSON({ id: "x" })))).toBeInstanceOf(VersionNotSupportedError);
    });
  });
});

describe("connect-es clients on the same gRPC server", () => {
  let server: OurGrpcServer;
  beforeAll(async () => {
    server = await startOurGrpcServer();
  });
  afterAll(async () => {
    await server?.close();
  });

  it.each([
    ["gRPC", () => createGrpcTransport({ baseUrl: server.baseUrl })],
    ["Connect", () => createConnectTransport({ baseUrl: server.baseUrl, httpVersion: "2" })],
  ])("%s: a call, and TASK_NOT_FOUND with its ErrorInfo detail", async (_name, transport) => {
    const client = createClient(A2AService, transport());
    const res = await client.sendMessage(
      { message: { messageId: "m", role: 1, parts: [{ content: { case: "text", value: "hi" } }] } },
      { headers: { "a2a-version": "1.0" } },
    );
    expect(res.payload.case).toBe("task");
    const e = (await rejection(client.getTask({ id: "nope" }, { headers: { "a2a-version": "1.0" } }))) as ConnectError;
    expect(e).toBeInstanceOf(ConnectError);
    expect(e.code).toBe(ConnectCode.NotFound);
    expect((e.details[0] as { type: string }).type).toBe("google.rpc.ErrorInfo");
    expect(e.findDetails(ErrorInfoSchema)).toMatchObject([
      { reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org", metadata: { taskId: "nope" } },
    ]);
  });

  it("a missing REQUIRED field is INVALID_ARGUMENT with a BadRequest detail, and the handler is not called", async () => {
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: server.baseUrl }));
    const e = (await rejection(client.sendMessage({}, { headers: { "a2a-version": "1.0" } }))) as ConnectError;
    expect(e.code).toBe(ConnectCode.InvalidArgument);
    expect(e.details.map((d) => (d as { type: string }).type)).toEqual(["google.rpc.ErrorInfo", "google.rpc.BadRequest"]);
  });

  it("no A2A-Version is 0.3: FAILED_PRECONDITION, VERSION_NOT_SUPPORTED", async () => {
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: server.baseUrl }));
    const e = (await rejection(client.getTask({ id: "x" }))) as ConnectError;
    expect(e.code).toBe(ConnectCode.FailedPrecondition);
    expect(e.findDetails(ErrorInfoSchema)[0]?.reason).toBe("VERSION_NOT_SUPPORTED");
  });
});
