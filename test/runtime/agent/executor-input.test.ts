/**
 * What an executor is handed: its input and its task updater have the same
 * own fields, in the same order, as object literals would, `task` and
 * `signal` own enumerable getters (the engine defines shared getters rather
 * than writing `get x()` in a literal, which V8 makes slowly); a spread copy
 * keeps every field.
 */
import { handlerContext } from "./in-process.js";
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { A2AService, AgentCardSchema, SendMessageRequestSchema, Role } from "../../../gen/a2a_pb.js";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";

describe("the executor's input and task updater", () => {
  it("have the fields of the literals they were, task and signal as own enumerable getters", async () => {
    let seen: { input: Record<string, unknown>; task: Record<string, unknown> } | undefined;
    const card = create(AgentCardSchema, { name: "t", capabilities: { streaming: true }, defaultInputModes: ["text/plain"] });
    const agent = createAgentHandlers(
      A2AService,
      (input, task) => {
        seen = { input: input as never, task: task as never };
        return task.complete("done");
      },
      { card },
    );
    const ctx = handlerContext();
    const req = create(SendMessageRequestSchema, {
      message: { messageId: "m", role: Role.USER, parts: [{ content: { case: "text", value: "hi" } }] },
    });
    await agent.sendMessage!(req, ctx);
    const { input, task } = seen!;
    expect(Object.keys(input)).toEqual([
      "message",
      "text",
      "task",
      "continued",
      "taskId",
      "contextId",
      "tenant",
      "owner",
      "signal",
      "context",
    ]);
    expect(Object.keys(task)).toEqual([
      "taskId",
      "contextId",
      "signal",
      "reply",
      "working",
      "artifact",
      "complete",
      "fail",
      "reject",
      "askForInput",
      "askForAuth",
      "status",
    ]);
    for (const [o, k] of [
      [input, "task"],
      [input, "signal"],
      [task, "signal"],
    ] as const) {
      const d = Object.getOwnPropertyDescriptor(o, k)!;
      expect(d.get).toBeTypeOf("function");
      expect(d.enumerable && d.configurable).toBe(true);
    }
    expect(input.text).toBe("hi");
    expect(input.signal).toBeInstanceOf(AbortSignal);
    expect(task.signal).toBe(input.signal);
    const t = input.task as { id: string; history: unknown[] };
    expect(t.id).toBe(input.taskId);
    expect(input.task).not.toBe(t); // a copy per read
    const copy = { ...input };
    expect((copy.task as { id: string }).id).toBe(input.taskId);
    expect(copy.signal).toBe(input.signal);
    await agent.close();
  });
});
