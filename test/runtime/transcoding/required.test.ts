import { describe, expect, it } from "vitest";
import { create, getOption } from "@bufbuild/protobuf";
import { checkRequired, decodeRequest } from "../../../packages/runtime/src/transcoding/index.js";
import { field_behavior, FieldBehavior } from "../../../packages/runtime/src/gen/google/api/field_behavior_pb.js";
import {
  SendMessageRequestSchema,
  MessageSchema,
  GetTaskRequestSchema,
  TaskPushNotificationConfigSchema,
  ListTasksRequestSchema,
  AgentCardSchema,
} from "../../../gen/a2a_pb.js";
import {
  CreateBookRequestSchema,
  GetBookRequestSchema,
  MoveBookRequestSchema,
  ListBooksRequestSchema,
} from "../../../gen/acme/library/v1/library_pb.js";
import { a2a, invalid, lib, violations } from "./helpers.js";

const send = (body: unknown) => {
  const route = a2a("sendMessage");
  const m = decodeRequest(route, { variables: {}, query: "", body });
  checkRequired(route.input, m);
  return m;
};

describe("field_behavior survives in protoc-gen-es's embedded descriptors", () => {
  it("SendMessageRequest.message and Message.parts are REQUIRED at run time", () => {
    expect(getOption(SendMessageRequestSchema.field.message, field_behavior)).toContain(FieldBehavior.REQUIRED);
    expect(getOption(MessageSchema.field.parts, field_behavior)).toContain(FieldBehavior.REQUIRED);
    expect(getOption(MessageSchema.field.contextId, field_behavior)).not.toContain(FieldBehavior.REQUIRED);
    expect(getOption(GetBookRequestSchema.field.name, field_behavior)).toContain(FieldBehavior.REQUIRED);
  });
});

describe("checkRequired on A2A SendMessageRequest", () => {
  const ok = { message: { messageId: "m1", role: "ROLE_USER", parts: [{ text: "hi" }] } };

  it("a complete request passes", () => {
    expect(() => send(ok)).not.toThrow();
  });

  it("a missing message", () => {
    for (const body of [undefined, null, {}, { configuration: {} }]) {
      const e = invalid(() => send(body));
      expect(violations(e)).toEqual(["message"]);
      expect(e.message).toContain("message");
    }
  });

  it("every missing field of the message, by JSON path", () => {
    const e = invalid(() => send({ message: {} }));
    expect(violations(e)).toEqual(["message.messageId", "message.role", "message.parts"]);
    expect(e.details[0]).toMatchObject({
      "@type": "type.googleapis.com/google.rpc.BadRequest",
      fieldViolations: [
        { field: "message.messageId", description: expect.stringContaining("required") },
        { field: "message.role" },
        { field: "message.parts", description: expect.stringContaining("empty") },
      ],
    });
  });

  it("an empty required list, a default enum, an empty string", () => {
    expect(violations(invalid(() => send({ message: { ...ok.message, parts: [] } })))).toEqual(["message.parts"]);
    expect(violations(invalid(() => send({ message: { ...ok.message, role: "ROLE_UNSPECIFIED" } })))).toEqual(["message.role"]);
    expect(violations(invalid(() => send({ message: { ...ok.message, messageId: "" } })))).toEqual(["message.messageId"]);
  });

  it("recurses into set nested messages (push config inside configuration)", () => {
    const body = { ...ok, configuration: { taskPushNotificationConfig: { url: "" } } };
    // The REQUIRED url of the nested push config is reported by its path.
    const e = invalid(() => send(body));
    expect(violations(e)).toEqual(["configuration.taskPushNotificationConfig.url"]);
  });

  it("other A2A requests", () => {
    expect(violations(invalid(() => checkRequired(GetTaskRequestSchema, create(GetTaskRequestSchema))))).toEqual(["id"]);
    expect(() => checkRequired(GetTaskRequestSchema, create(GetTaskRequestSchema, { id: "t" }))).not.toThrow();
    expect(violations(invalid(() => checkRequired(TaskPushNotificationConfigSchema, create(TaskPushNotificationConfigSchema))))).toEqual([
      "url",
    ]);
    expect(() => checkRequired(ListTasksRequestSchema, create(ListTasksRequestSchema))).not.toThrow();
  });

  it("list elements are named with an index", () => {
    const card = create(AgentCardSchema, {
      name: "n",
      description: "d",
      version: "1",
      supportedInterfaces: [{ url: "u", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }, { url: "" }],
    });
    const v = violations(invalid(() => checkRequired(AgentCardSchema, card)));
    expect(v).toContain("supportedInterfaces[1].url");
    expect(v).toContain("supportedInterfaces[1].protocolBinding");
    expect(v.some((x) => x.startsWith("supportedInterfaces[0]"))).toBe(false);
  });
});

describe("checkRequired on library requests", () => {
  it("GetBook name, CreateBook book, MoveBook destinationShelf", () => {
    expect(violations(invalid(() => checkRequired(GetBookRequestSchema, create(GetBookRequestSchema))))).toEqual(["name"]);
    expect(violations(invalid(() => checkRequired(CreateBookRequestSchema, create(CreateBookRequestSchema, { parent: "p" }))))).toEqual([
      "book",
    ]);
    expect(() => checkRequired(CreateBookRequestSchema, create(CreateBookRequestSchema, { book: {} }))).not.toThrow();
    const move = decodeRequest(lib("moveBook"), { variables: { name: "shelves/1/books/2" }, query: "", body: {} });
    expect(violations(invalid(() => checkRequired(MoveBookRequestSchema, move)))).toEqual(["destinationShelf"]);
  });

  it("a path-bound REQUIRED field is satisfied by the path", () => {
    const m = decodeRequest(lib("getBook"), { variables: { name: "shelves/1/books/2" }, query: "", body: undefined });
    expect(() => checkRequired(GetBookRequestSchema, m)).not.toThrow();
  });

  it("a message without REQUIRED fields anywhere passes", () => {
    expect(() => checkRequired(ListBooksRequestSchema, create(ListBooksRequestSchema))).not.toThrow();
  });
});
