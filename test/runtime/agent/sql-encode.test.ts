/**
 * The SQL store's encoder (packages/runtime/src/agent/sql/encode.ts): what it
 * writes is what toBinary writes, byte for byte where its plans cover the
 * message, and reads back the same message where it hands a part to toBinary.
 */
import { describe, expect, it } from "vitest";
import { create, equals, fromBinary, toBinary, type DescMessage, type Message } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import {
  AgentCardSchema,
  MessageSchema,
  Role,
  SendMessageRequestSchema,
  StreamResponseSchema,
  TaskSchema,
  TaskState,
} from "../../../gen/a2a_pb.js";
import { encodeReusing } from "../../../packages/runtime/src/agent/sql/encode.js";

const same = (schema: DescMessage, m: Message) => {
  const bytes = encodeReusing(schema, m);
  expect(equals(schema, fromBinary(schema, bytes) as never, m as never)).toBe(true);
  return bytes;
};
const exact = (schema: DescMessage, m: Message) => expect(Buffer.from(same(schema, m))).toEqual(Buffer.from(toBinary(schema, m as never)));

const text = (value: string) => ({ content: { case: "text" as const, value } });
const message = (value: string, more: Record<string, unknown> = {}) =>
  create(MessageSchema, { messageId: `m-${value.length}`, contextId: "ctx", taskId: "t", role: Role.AGENT, parts: [text(value)], ...more });

describe("the SQL store's encoder", () => {
  it("writes toBinary's bytes: strings short and long, ASCII or not, lengths of one and more bytes, int64 below zero, bools, bytes, repeated strings", () => {
    for (const s of [
      "",
      "a",
      "é",
      "日本語のテキスト",
      "x".repeat(42),
      "x".repeat(43),
      "ü".repeat(42),
      "😀".repeat(30),
      "y".repeat(300),
      "z".repeat(20_000),
    ]) {
      exact(MessageSchema, message(s, { extensions: ["ext", s], referenceTaskIds: [s] }));
    }
    const history = Array.from({ length: 300 }, (_, i) => message(`step ${i} ${"é".repeat(i % 50)}`));
    const task = create(TaskSchema, {
      id: "t",
      contextId: "ctx",
      status: { state: TaskState.WORKING, message: history[0], timestamp: timestampFromMs(-1_500) },
      history,
      artifacts: [
        {
          artifactId: "a",
          name: "out",
          parts: [
            { content: { case: "raw", value: new Uint8Array([0, 1, 2, 255]) }, filename: "f.bin", mediaType: "application/octet-stream" },
            { content: { case: "url", value: "https://example.com/f" } },
            text("ok"),
          ],
        },
      ],
    });
    exact(TaskSchema, task);
    exact(
      StreamResponseSchema,
      create(StreamResponseSchema, {
        payload: {
          case: "artifactUpdate",
          value: { taskId: "t", contextId: "ctx", artifact: task.artifacts[0], append: true, lastChunk: false },
        },
      }),
    );
  });

  it("writes an optional field set to its zero value, and a negative int32, as toBinary does", () => {
    for (const historyLength of [0, 5, -1, 2 ** 31 - 1, -(2 ** 31)]) {
      exact(
        SendMessageRequestSchema,
        create(SendMessageRequestSchema, {
          message: message("hi"),
          configuration: { historyLength, returnImmediately: true, acceptedOutputModes: ["text/plain", ""] },
        }),
      );
    }
    exact(AgentCardSchema, create(AgentCardSchema, { name: "n", capabilities: { streaming: false, pushNotifications: true } }));
  });

  it("hands what protobuf-es holds in another shape (Struct, Value) and unknown fields to toBinary, and reads back the same", () => {
    const withData = create(MessageSchema, {
      messageId: "m",
      parts: [{ content: { case: "data", value: { kind: { case: "stringValue", value: "two" } } } }, text("and text")],
      metadata: { k: "v", n: 1 },
    });
    same(MessageSchema, withData);
    same(
      TaskSchema,
      create(TaskSchema, {
        id: "t",
        metadata: { where: "here" },
        history: [withData, message("plain")],
        status: { state: TaskState.COMPLETED },
      }),
    );
    // Field 99 (tag 792 as a varint: 0x98 0x06) unknown to the schema, value 1: toBinary writes it on, and so does the encoder.
    const bytes = new Uint8Array([...toBinary(MessageSchema, message("hi")), 0x98, 0x06, 0x01]);
    const unknown = fromBinary(MessageSchema, bytes);
    const back = fromBinary(MessageSchema, same(MessageSchema, unknown));
    expect(back.$unknown).toEqual(unknown.$unknown);
  });

  it("reuses: the same object is encoded once, and a task's next version keeps its messages' bytes", () => {
    const m = message("once");
    expect(encodeReusing(MessageSchema, m)).toBe(encodeReusing(MessageSchema, m));
    const t1 = create(TaskSchema, { id: "t", history: [m] });
    const t2 = { ...t1, history: [m, message("twice")] };
    exact(TaskSchema, t1);
    exact(TaskSchema, t2);
  });
});
