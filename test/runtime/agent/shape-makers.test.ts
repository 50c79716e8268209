/**
 * The task, artifact and part messages the engine makes and copies for every
 * update: object literals when the schema's are A2A v1.0's, and then equal to
 * what create() (or a copy by Object.assign) makes, field for field (in any
 * order); inits it does not take go through create(); a schema that differs
 * keeps create()'s shape.
 */
import { clone, create, createFileRegistry, protoInt64, type DescMessage } from "@bufbuild/protobuf";
import {
  FieldDescriptorProtoSchema,
  FieldDescriptorProto_Label,
  FieldDescriptorProto_Type,
  FileDescriptorProtoSchema,
  OneofDescriptorProtoSchema,
  type DescriptorProto,
  type FileDescriptorProto,
} from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import * as v03 from "../../../gen/a2a-v0_3_pb.js";
import { ArtifactSchema, MessageSchema, PartSchema, TaskSchema, TaskStatusSchema, file_a2a } from "../../../gen/a2a_pb.js";
import { sameValue } from "../../../packages/runtime/src/agent/literal-check.js";
import { shapeMakers } from "../../../packages/runtime/src/agent/message-makers.js";

const schemas = { task: TaskSchema, message: MessageSchema, artifact: ArtifactSchema, part: PartSchema };

/** The same own fields, values deeply equal; in any order (nothing reads a message by its order: literal-check.ts). */
function expectSame(a: object, b: object): void {
  expect(Object.keys(a).sort()).toEqual(Object.keys(b).sort());
  expect(a).toStrictEqual(b);
}

describe("the engine's task and artifact messages", () => {
  const shape = shapeMakers(schemas);
  const status = create(TaskStatusSchema, { state: 2, timestamp: { seconds: protoInt64.parse(5), nanos: 6 } });
  const message = create(MessageSchema, { messageId: "m", parts: [{ content: { case: "text", value: "hi" } }] });

  it("are what create() makes, field for field", () => {
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

/** The four schemas shapeMakers takes, of any proto. */
type Schemas = Record<keyof typeof schemas, DescMessage>;

/** A2A v1.0's Task, Message, Artifact and Part from a copy of a2a.proto's descriptor changed by `edit`. */
function changed(edit: (file: FileDescriptorProto, message: (name: string) => DescriptorProto) => void): Schemas {
  const file = clone(FileDescriptorProtoSchema, file_a2a.proto);
  edit(file, (name) => file.messageType.find((m) => m.name === name)!);
  const registry = createFileRegistry(file, (name) => file_a2a.dependencies.find((d) => d.proto.name === name));
  const get = (name: string): DescMessage => registry.getMessage(`lf.a2a.v1.${name}`)!;
  return { task: get("Task"), message: get("Message"), artifact: get("Artifact"), part: get("Part") };
}

const fieldOf = (message: DescriptorProto, name: string) => message.field.find((f) => f.name === name)!;

/** Whether shapeMakers took the object literals (the fallback leaves every artifact init to create()). */
const literals = (s: Schemas) => shapeMakers(s).artifactOf({ parts: [] }) !== undefined;

describe("the engine's check that a schema is A2A v1.0's", () => {
  it("compares fields deeply, not the order of an object's fields (a list's items in order)", () => {
    expect(sameValue({ a: 1, b: { c: [1, 2] } }, { b: { c: [1, 2] }, a: 1 })).toBe(true);
    expect(sameValue({ a: [1, 2] }, { a: [2, 1] })).toBe(false);
    expect(sameValue({ a: 1 }, { a: 1, b: undefined })).toBe(false);
    expect(sameValue({ a: 1, b: undefined }, { a: 1, c: undefined })).toBe(false);
    expect(sameValue({ a: 1 }, Object.assign(Object.create({ z: 0 }), { a: 1 }))).toBe(false);
  });

  it("takes A2A v1.0's, also rebuilt from its descriptor", () => {
    expect(literals(schemas)).toBe(true);
    expect(literals(changed(() => {}))).toBe(true);
  });

  it("refuses the v0.3 schemas", () => {
    expect(literals({ task: v03.TaskSchema, message: v03.MessageSchema, artifact: v03.ArtifactSchema, part: v03.PartSchema })).toBe(false);
  });

  it("refuses a message field added to any of the four, which a copy must keep", () => {
    const withExtra = (name: string) =>
      changed((_, message) =>
        message(name).field.push(
          create(FieldDescriptorProtoSchema, {
            name: "extra",
            jsonName: "extra",
            number: 99,
            label: FieldDescriptorProto_Label.OPTIONAL,
            type: FieldDescriptorProto_Type.MESSAGE,
            typeName: ".google.protobuf.Struct",
          }),
        ),
      );
    for (const name of ["Task", "Message", "Artifact", "Part"]) expect(literals(withExtra(name)), name).toBe(false);
    const s = withExtra("Message");
    const m = create(s.message, { messageId: "m", extra: { k: 1 } } as never);
    expect(shapeMakers(s).messageIn(m as never, "t", "c")).toStrictEqual({ ...m, taskId: "t", contextId: "c" });
  });

  it("refuses a field of the same name and kind made optional (explicit presence: create() leaves it out)", () => {
    // The list of a2a.proto's field names and kinds this check replaced took this schema, and artifact() gave `name: ""`.
    const s = changed((_, message) => {
      const artifact = message("Artifact");
      artifact.oneofDecl.push(create(OneofDescriptorProtoSchema, { name: "_name" }));
      const name = fieldOf(artifact, "name");
      name.proto3Optional = true;
      name.oneofIndex = artifact.oneofDecl.length - 1;
    });
    expect(literals(s)).toBe(false);
    expect(Object.keys(shapeMakers(s).artifact([]))).not.toContain("name");
  });

  it("refuses a field of the same name of another kind (another zero value)", () => {
    const s = changed((_, message) => {
      fieldOf(message("Part"), "filename").type = FieldDescriptorProto_Type.INT32;
    });
    expect(literals(s)).toBe(false);
    expect(shapeMakers(s).textPart("x")).toStrictEqual(create(s.part, { content: { case: "text", value: "x" } } as never));
  });

  it("refuses a repeated field made singular, a field renamed and a field removed", () => {
    const edits: ((message: (name: string) => DescriptorProto) => void)[] = [
      (message) => {
        fieldOf(message("Artifact"), "extensions").label = FieldDescriptorProto_Label.OPTIONAL;
      },
      (message) => {
        Object.assign(fieldOf(message("Artifact"), "description"), { name: "summary", jsonName: "summary" });
      },
      (message) => {
        const part = message("Part");
        part.field = part.field.filter((f) => f.name !== "media_type");
      },
      (message) => {
        const task = message("Task");
        task.field = task.field.filter((f) => f.name !== "history");
      },
    ];
    for (const edit of edits) expect(literals(changed((_, message) => edit(message)))).toBe(false);
  });

  it("refuses a different default (proto2, where defaults live on a message's prototype)", () => {
    const s = changed((file, message) => {
      file.syntax = "proto2";
      for (const m of file.messageType) for (const f of m.field) f.proto3Optional = false;
      fieldOf(message("Part"), "media_type").defaultValue = "text/plain";
    });
    expect(literals(s)).toBe(false);
    expect(shapeMakers(s).textPart("x")).toStrictEqual(create(s.part, { content: { case: "text", value: "x" } } as never));
  });
});
