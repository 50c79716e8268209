/**
 * The messages the engine makes for every event: object literals when the
 * schema's are A2A v1.0's, and then equal to what create() makes, field for
 * field; for a schema that differs, create()'s shape.
 */
import { create, protoInt64 } from "@bufbuild/protobuf";
import { TimestampSchema } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import {
  MessageSchema,
  StreamResponseSchema,
  TaskArtifactUpdateEventSchema,
  TaskStatusSchema,
  TaskStatusUpdateEventSchema,
  ArtifactSchema,
  TaskSchema,
} from "../../../gen/a2a_pb.js";
import { eventMakers } from "../../../packages/runtime/src/agent/message-makers.js";

const schemas = {
  status: TaskStatusSchema,
  statusUpdate: TaskStatusUpdateEventSchema,
  artifactUpdate: TaskArtifactUpdateEventSchema,
  stream: StreamResponseSchema,
};

/** The same own fields, values deeply equal; in any order (nothing reads a message by its order: literal-check.ts). */
function expectSame(a: object, b: object): void {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  expect(a).toStrictEqual(b);
}

describe("the engine's event messages", () => {
  const made = eventMakers(schemas);
  const message = create(MessageSchema, { messageId: "m" }) as never;
  const timestamp = create(TimestampSchema, { seconds: protoInt64.parse(5), nanos: 6 });
  const artifact = create(ArtifactSchema, { artifactId: "a" });

  it("are what create() makes, field for field", () => {
    expectSame(made.timestamp(protoInt64.parse(5), 6), timestamp);
    expectSame(made.status(2, message, timestamp), create(TaskStatusSchema, { state: 2, message, timestamp }));
    expectSame(made.status(2, undefined, timestamp), create(TaskStatusSchema, { state: 2, timestamp }));
    const status = made.status(3, undefined, timestamp) as never;
    expectSame(made.statusUpdate("t", "c", status), create(TaskStatusUpdateEventSchema, { taskId: "t", contextId: "c", status }));
    expectSame(
      made.artifactUpdate("t", "c", artifact, true, false),
      create(TaskArtifactUpdateEventSchema, { taskId: "t", contextId: "c", artifact, append: true, lastChunk: false }),
    );
    const update = made.statusUpdate("t", "c", status) as never;
    expectSame(made.stream("statusUpdate", update), create(StreamResponseSchema, { payload: { case: "statusUpdate", value: update } }));
  });

  it("keep the schema's own shape when it is not A2A v1.0's", () => {
    // A status update schema with other fields (here the artifact update's, standing in for a newer one).
    const other = eventMakers({ ...schemas, statusUpdate: TaskArtifactUpdateEventSchema });
    const status = made.status(3, undefined, timestamp) as never;
    const got = other.statusUpdate("t", "c", status);
    expect(Object.keys(got)).toEqual(["$typeName", "taskId", "contextId", "append", "lastChunk", "status"]);
    expect(got.$typeName).toBe(TaskArtifactUpdateEventSchema.typeName);
    // The others are still the literals.
    const task = create(TaskSchema, { id: "t" });
    expectSame(other.stream("task", task), create(StreamResponseSchema, { payload: { case: "task", value: task } }));
  });
});
