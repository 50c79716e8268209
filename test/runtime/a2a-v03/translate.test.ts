// The v0.3 <-> v1.0 translations one value at a time: parts of every kind,
// push configs with their authentication, the states, `final`, and the card.
import { describe, expect, it } from "vitest";
import {
  messageIn,
  pushConfigIdIn,
  pushConfigOut,
  sendParamsIn,
  setPushConfigIn,
  streamEventOut,
  taskOut,
} from "../../../packages/runtime/src/a2a-v03/spec-json.js";
import {
  sendRequestIn,
  streamResponseOut,
  taskOut as restTaskOut,
  createPushConfigIn,
} from "../../../packages/runtime/src/a2a-v03/proto-json.js";
import { isFinalV03, stateFromV03, stateToV03 } from "../../../packages/runtime/src/a2a-v03/common.js";
import { withV03CardFields } from "../../../packages/runtime/src/a2a-v03/card.js";

describe("v0.3 JSON-RPC JSON", () => {
  it("reads every part kind into v1.0's part, metadata kept", () => {
    const m = messageIn(
      {
        kind: "message",
        messageId: "m",
        role: "agent",
        referenceTaskIds: ["t0"],
        parts: [
          { kind: "text", text: "hi", metadata: { a: 1 } },
          { kind: "file", file: { bytes: "AAEC", mimeType: "application/octet-stream", name: "b.bin" } },
          { kind: "file", file: { uri: "https://x.test/f.png", mimeType: "image/png" } },
          { kind: "data", data: { k: [1, 2] } },
          { text: "no kind" },
        ],
      },
      "m",
    );
    expect(m).toEqual({
      messageId: "m",
      role: "ROLE_AGENT",
      referenceTaskIds: ["t0"],
      parts: [
        { text: "hi", metadata: { a: 1 } },
        { raw: "AAEC", mediaType: "application/octet-stream", filename: "b.bin" },
        { url: "https://x.test/f.png", mediaType: "image/png" },
        { data: { k: [1, 2] } },
        { text: "no kind" },
      ],
    });
  });

  it("turns blocking into returnImmediately and the push config's first scheme into v1.0's one", () => {
    const r = sendParamsIn({
      message: { messageId: "m", role: "user", parts: [] },
      configuration: {
        blocking: false,
        historyLength: 2,
        acceptedOutputModes: ["text/plain"],
        pushNotificationConfig: { url: "https://h.test/", token: "t", authentication: { schemes: ["Bearer", "Basic"], credentials: "c" } },
      },
      metadata: { x: "y" },
    });
    expect(r).toEqual({
      message: { messageId: "m", role: "ROLE_USER", parts: [] },
      configuration: {
        acceptedOutputModes: ["text/plain"],
        historyLength: 2,
        returnImmediately: true,
        taskPushNotificationConfig: { url: "https://h.test/", token: "t", authentication: { scheme: "Bearer", credentials: "c" } },
      },
      metadata: { x: "y" },
    });
    expect(sendParamsIn({ message: { messageId: "m", role: "user", parts: [] }, configuration: { blocking: true } }).configuration).toEqual(
      {},
    );
  });

  it("writes v1.0's answers with kinds, lower-case states and final", () => {
    const task = {
      id: "t",
      contextId: "c",
      status: { state: "TASK_STATE_INPUT_REQUIRED", message: { messageId: "q", role: "ROLE_AGENT", parts: [{ data: [1] }] } },
      artifacts: [{ artifactId: "a", parts: [{ raw: "AA", filename: "f" }] }],
    };
    expect(taskOut(task)).toEqual({
      kind: "task",
      id: "t",
      contextId: "c",
      status: {
        state: "input-required",
        message: { kind: "message", messageId: "q", role: "agent", parts: [{ kind: "data", data: { value: [1] } }] },
      },
      artifacts: [{ artifactId: "a", parts: [{ kind: "file", file: { bytes: "AA", name: "f" } }] }],
    });
    const update = (state: string) => streamEventOut({ statusUpdate: { taskId: "t", contextId: "c", status: { state } } });
    expect(update("TASK_STATE_WORKING")).toMatchObject({ kind: "status-update", final: false, status: { state: "working" } });
    expect(update("TASK_STATE_AUTH_REQUIRED")).toMatchObject({ final: true, status: { state: "auth-required" } });
    expect(update("TASK_STATE_REJECTED")).toMatchObject({ final: true, status: { state: "rejected" } });
    expect(pushConfigOut({ id: "p", taskId: "t", url: "u", authentication: { scheme: "Bearer" } })).toEqual({
      taskId: "t",
      pushNotificationConfig: { id: "p", url: "u", authentication: { schemes: ["Bearer"] } },
    });
  });

  it("names a config without an id after its task, which is what a get without pushNotificationConfigId finds", () => {
    expect(setPushConfigIn({ taskId: "t", pushNotificationConfig: { url: "https://h.test/" } })).toEqual({
      url: "https://h.test/",
      taskId: "t",
      id: "t",
    });
    expect(pushConfigIdIn({ id: "t" })).toEqual({ taskId: "t", id: "t" });
    expect(pushConfigIdIn({ id: "t", pushNotificationConfigId: "c" })).toEqual({ taskId: "t", id: "c" });
  });

  it("maps every state both ways", () => {
    for (const s of ["submitted", "working", "input-required", "completed", "canceled", "failed", "rejected", "auth-required", "unknown"]) {
      expect(stateToV03(stateFromV03(s, "s"))).toBe(s);
    }
    expect(() => stateFromV03("cancelled", "status.state")).toThrow(/status.state/);
    expect(isFinalV03("TASK_STATE_SUBMITTED")).toBe(false);
  });
});

describe("v0.3 HTTP+JSON ProtoJSON", () => {
  it("reads content, file and data parts, and the blocking flag", () => {
    expect(
      sendRequestIn({
        request: {
          messageId: "m",
          role: "ROLE_USER",
          content: [{ text: "a" }, { file: { fileWithUri: "https://x.test/a", mimeType: "text/plain" } }, { data: { data: { k: 1 } } }],
        },
        configuration: { blocking: false },
      }),
    ).toEqual({
      message: {
        messageId: "m",
        role: "ROLE_USER",
        parts: [{ text: "a" }, { url: "https://x.test/a", mediaType: "text/plain" }, { data: { k: 1 } }],
      },
      configuration: { returnImmediately: true },
    });
    // A configuration without blocking (ProtoJSON leaves false out) does not block; none at all does.
    expect(sendRequestIn({ message: { messageId: "m", role: "ROLE_USER", content: [] }, configuration: {} }).configuration).toEqual({
      returnImmediately: true,
    });
    expect(
      sendRequestIn({ message: { messageId: "m", role: "ROLE_USER", content: [] }, configuration: { blocking: true } }).configuration,
    ).toEqual({});
    expect(() => sendRequestIn({ message: { messageId: "m", role: "robot", content: [] } })).toThrow(
      /body.message.role: "robot" is not a role/,
    );
  });

  it("writes TASK_STATE_CANCELLED, content and final", () => {
    expect(
      restTaskOut({
        id: "t",
        contextId: "c",
        status: { state: "TASK_STATE_CANCELED" },
        history: [{ messageId: "m", role: "ROLE_USER", parts: [{ text: "x" }] }],
      }),
    ).toEqual({
      id: "t",
      contextId: "c",
      status: { state: "TASK_STATE_CANCELLED" },
      history: [{ messageId: "m", role: "ROLE_USER", content: [{ text: "x" }] }],
    });
    expect(streamResponseOut({ statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" } } })).toEqual({
      statusUpdate: { taskId: "t", contextId: "c", status: { state: "TASK_STATE_COMPLETED" }, final: true },
    });
  });

  it("takes a create-config body as the config or as the whole request; the id defaults to the task's", () => {
    const config = { pushNotificationConfig: { url: "https://h.test/", authentication: { schemes: ["Bearer"] } } };
    expect(createPushConfigIn("t", config)).toEqual({ url: "https://h.test/", taskId: "t", id: "t", authentication: { scheme: "Bearer" } });
    expect(createPushConfigIn("t", { parent: "tasks/t", configId: "c1", config })).toMatchObject({ id: "c1", taskId: "t" });
    expect(createPushConfigIn("t", { config: { pushNotificationConfig: { id: "c2", url: "u" } } })).toMatchObject({ id: "c2" });
    // The v0.3 TCK's body: proto names, an empty authentication (none).
    expect(
      createPushConfigIn("t", {
        parent: "tasks/t",
        config_id: "default",
        config: {
          name: "tasks/t/pushNotificationConfigs/default",
          push_notification_config: { id: "default", url: "https://h.test/", token: "", authentication: {} },
        },
      }),
    ).toEqual({ id: "default", url: "https://h.test/", token: "", taskId: "t" });
  });
});

describe("the card's v0.3 fields", () => {
  const v1 = {
    name: "a",
    supportedInterfaces: [
      { url: "http://h/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
      { url: "h:9", protocolBinding: "GRPC", protocolVersion: "1.0" },
      { url: "http://h/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      { url: "http://h/t", protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "t" },
    ],
    capabilities: { extendedAgentCard: true },
  };

  it("come from the JSON-RPC and HTTP+JSON interfaces without a tenant, JSON-RPC preferred", () => {
    expect(withV03CardFields(v1)).toMatchObject({
      protocolVersion: "0.3.0",
      url: "http://h/rpc",
      preferredTransport: "JSONRPC",
      additionalInterfaces: [
        { url: "http://h/", transport: "HTTP+JSON" },
        { url: "http://h/rpc", transport: "JSONRPC" },
      ],
      // No scheme to authenticate with: v0.3 clients are not offered the extended card.
      supportsAuthenticatedExtendedCard: false,
      defaultInputModes: [],
      skills: [],
    });
  });

  it("offer v0.3's authenticated extended card only with a security scheme to authenticate by", () => {
    const withScheme = { ...v1, securitySchemes: { bearer: { httpAuthSecurityScheme: { scheme: "Bearer" } } } };
    expect(withV03CardFields(withScheme)).toMatchObject({ supportsAuthenticatedExtendedCard: true });
  });

  it("leave a card alone that has a protocolVersion, or no interface v0.3 can use", () => {
    const own = { ...v1, protocolVersion: "0.3.0", url: "http://elsewhere/" };
    expect(withV03CardFields(own)).toBe(own);
    const grpcOnly = { name: "g", supportedInterfaces: [{ url: "h:9", protocolBinding: "GRPC", protocolVersion: "1.0" }] };
    expect(withV03CardFields(grpcOnly)).toBe(grpcOnly);
  });
});
