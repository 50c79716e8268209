/**
 * The element count of gRPC's binary messages on the wire (connect/wire-bounds.ts,
 * before connect-es decodes): it counts what checkMessage counts on the
 * decoded message, so a request is refused at the same size on every binding.
 */
import { describe, expect, test } from "vitest";
import { create, toBinary, type MessageInitShape } from "@bufbuild/protobuf";
import { type MessageSchema, type SendMessageConfigurationSchema, SendMessageRequestSchema, Role } from "../../../gen/a2a_pb.js";
import { checkMessage } from "../../../packages/runtime/src/transcoding/bounds.js";
import { checkWire } from "../../../packages/runtime/src/connect/wire-bounds.js";

/** The smallest maxElements a check takes. */
function smallestCap(check: (max: number) => void): number {
  for (let max = 1; max < 2000; max++) {
    try {
      check(max);
      return max;
    } catch {
      // over this cap
    }
  }
  return -1;
}

const nulls = (n: number) => Array.from({ length: n }, () => ({ kind: { case: "nullValue" as const, value: 0 as const } }));
const request = (
  message: MessageInitShape<typeof MessageSchema>,
  configuration?: MessageInitShape<typeof SendMessageConfigurationSchema>,
) => create(SendMessageRequestSchema, { message, ...(configuration && { configuration }) });

describe("checkWire counts as checkMessage does", () => {
  test.each([
    ["one text part", request({ messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] })],
    [
      "a Struct and a list in a data part, metadata, repeated strings",
      request(
        {
          messageId: "m",
          role: Role.USER,
          parts: [
            {
              content: {
                case: "data",
                value: {
                  kind: {
                    case: "structValue",
                    value: {
                      fields: {
                        a: { kind: { case: "numberValue", value: 1 } },
                        b: {
                          kind: {
                            case: "listValue",
                            value: { values: [{ kind: { case: "nullValue", value: 0 } }, { kind: { case: "stringValue", value: "x" } }] },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
            { content: { case: "text", value: "t" } },
          ],
          extensions: ["a", "b"],
          metadata: { fields: { k: { kind: { case: "boolValue", value: true } } } },
        },
        { acceptedOutputModes: ["text/plain", "x"] },
      ),
    ],
    [
      "300 null Values",
      request({
        messageId: "m",
        role: Role.USER,
        parts: [{ content: { case: "data", value: { kind: { case: "listValue", value: { values: nulls(300) } } } } }],
      }),
    ],
  ])("%s", (_, message) => {
    const bytes = toBinary(SendMessageRequestSchema, message);
    const decoded = smallestCap((max) => checkMessage(SendMessageRequestSchema, message, max));
    expect(smallestCap((max) => checkWire(SendMessageRequestSchema, bytes, max))).toBe(decoded);
  });

  test("unknown fields count (protobuf-es keeps each one), malformed bytes are left to the decoder", () => {
    // Field 99 (not in SendMessageRequest), varint 0, 5 times.
    const unknown = Uint8Array.from(Array.from({ length: 5 }, () => [0x98, 0x06, 0x00]).flat());
    expect(() => checkWire(SendMessageRequestSchema, unknown, 5)).toThrow(expect.objectContaining({ code: 8 }));
    expect(() => checkWire(SendMessageRequestSchema, unknown, 6)).not.toThrow();
    expect(() => checkWire(SendMessageRequestSchema, Uint8Array.of(0x12, 0x7f, 0x0a), 100)).not.toThrow();
  });

  test("messages nested more than 100 deep are INVALID_ARGUMENT", () => {
    let value: object = { kind: { case: "nullValue", value: 0 } };
    for (let i = 0; i < 60; i++) value = { kind: { case: "listValue", value: { values: [value] } } };
    const deep = request({ messageId: "m", role: Role.USER, parts: [{ content: { case: "data", value: value as never } }] });
    expect(() => checkWire(SendMessageRequestSchema, toBinary(SendMessageRequestSchema, deep))).toThrow(
      expect.objectContaining({ code: 3 }),
    );
  });
});
