/**
 * The task, artifact and part messages the engine makes and copies for every
 * update: object literals when the schema's are A2A v1.0's, and then equal to
 * what create() (or a copy by Object.assign) makes, field for field and in
 * the same order; inits it does not take go through create(); a schema that
 * differs keeps create()'s shape.
 */
import { create, protoInt64 } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { ArtifactSchema, MessageSchema, PartSchema, TaskSchema, TaskStatusSchema } from "../../../gen/a2a_pb.js";
import { shapeMakers } from "../../../packages/runtime/src/agent/engine.js";

const schemas = { task: TaskSchema, message: MessageSchema, artifact: ArtifactSchema, part: PartSchema };

/** The same own fields in the same order, values deeply equal. */
function expectSame(a: object, b: object): void {
  expect(Object.keys(a)).toEqual(Object.keys(b));
  expect(a).toStrictEqual(b);
}

describe("the engine's task and artifact messages", () => {
  const shape = shapeMakers(schemas);
  const status = create(TaskStatusSchema, { state: 2, timestamp: { seconds: protoInt64.parse(5), nanos: 6 } });
  const message = create(MessageSchema, { messageId: "m", parts: [{ content: { case: "text", value: "hi" } }] });

  it("are what create() makes, field for field and in the same order", () => {
    expectSame(shape.task("t", "c", status, [message]), create(TaskSchema, { id: "t", contextId: "c", status, history: [message] }));
    expectSame(shape.textPart("x"), create(PartSchema, { content: { case: "text", value: "x" } }));
    const parts = [shape.textPart("x")];
    expectSame(shape.artifact(parts), create(ArtifactSchema, { parts: parts as never }));
  });

  it("copy a task or an artifact with all its fields", () => {
    const task = create(TaskSchema, { id: "t", contextId: "c", status, history: [message], metadata: { k: 1 } });
    expectSame(shape.copyTask(task), { ...task });
    expect(shape.copyTask(task)).not.toBe(task);
    const bare = shape.task("t", "c", status, []);
    expectSame(shape.copyTask(bare), { ...bare });
    // Without a status, or with unknown fields: copied whole.
    const noStatus = create(TaskSchema, { id: "t" });
    expectSame(shape.copyTask(noStatus), { ...noStatus });
    const unknown = Object.assign(create(TaskSchema, { id: "t", status }), {
      $unknown: [{ no: 99, wireType: 0, data: new Uint8Array([1]) }],
    });
    expectSame(shape.copyTask(unknown as never), { ...unknown });
    const artifact = create(ArtifactSchema, {
      artifactId: "a",
      name: "n",
      parts: [{ content: { case: "text", value: "x" } }],
      metadata: { k: 1 },
    });
    expectSame(shape.copyArtifact(artifact as never), { ...artifact });
  });

  it("copy a message into a task and context with all its fields", () => {
    const full = create(MessageSchema, {
      messageId: "m",
      contextId: "x",
      role: 1,
      parts: [{ content: { case: "text", value: "hi" } }],
      extensions: ["e"],
      referenceTaskIds: ["r"],
      metadata: { k: 1 },
    });
    for (const m of [message, full]) {
      const got = shape.messageIn(m, "t", "c");
      expectSame(got, { ...m, taskId: "t", contextId: "c" });
      expect(Object.keys(got)).toEqual(Object.keys(m));
    }
    const unknown = Object.assign(create(MessageSchema, { messageId: "m" }), {
      $unknown: [{ no: 99, wireType: 0, data: new Uint8Array([1]) }],
    });
    expectSame(shape.messageIn(unknown, "t", "c"), { ...unknown, taskId: "t", contextId: "c" });
  });

  it("take the usual artifact inits as create() does", () => {
    const inits: unknown[] = [
      { artifactId: "out", parts: [{ content: { case: "text", value: "chunk" } }] },
      { parts: [] },
      {
        artifactId: "a",
        name: "n",
        description: "d",
        extensions: ["e"],
        metadata: { k: "v" },
        parts: [{ content: { case: "url", value: "https://x/y" }, mediaType: "text/html", filename: "f" }],
      },
      { parts: [{}, { content: { case: undefined } }, { content: null, mediaType: null, metadata: { a: [1] } }] },
      { artifactId: null, name: undefined, parts: [create(PartSchema, { content: { case: "text", value: "made" } })] },
    ];
    for (const init of inits) {
      const got = shape.artifactOf(init);
      expect(got).toBeDefined();
      expectSame(got!, create(ArtifactSchema, init as never));
    }
  });

  it("leave other inits to create()", () => {
    const others: unknown[] = [
      create(ArtifactSchema, { artifactId: "a" }),
      { parts: [{ content: { case: "raw", value: new Uint8Array([1]) } }] },
      { parts: [{ content: { case: "data", value: { kind: { case: "stringValue", value: "x" } } } }] },
      { parts: [create(MessageSchema)] },
      { parts: "x" },
      { artifactId: "a" },
      "text",
    ];
    for (const init of others) expect(shape.artifactOf(init)).toBeUndefined();
  });

  it("keep the schema's own shape when it is not A2A v1.0's", () => {
    // An artifact schema with other fields (the message's, standing in for a newer one).
    const other = shapeMakers({ ...schemas, artifact: MessageSchema });
    expect(other.artifactOf({ parts: [] })).toBeUndefined();
    const got = other.artifact([]);
    expect(Object.keys(got)).toEqual(Object.keys(create(MessageSchema, { parts: [] })));
  });
});
