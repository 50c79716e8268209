/**
 * A blocking send whose task cannot finish by the server's unary deadline
 * (issue 39 item 3): the deadline's error names the task it made (in its
 * message and a google.rpc.ResourceInfo), so that a client gets that task
 * rather than sending the message again and having the work done twice;
 * the task goes on and ends as its executor says. HTTP+JSON and JSON-RPC
 * (whose unary deadline is the server's `unaryTimeoutMs`).
 */
import { create } from "@bufbuild/protobuf";
import { describe, expect, it } from "vitest";
import { createHttpHandler, createJsonRpcHandler, fetchHandlerOf } from "a2a-http";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { A2AService, GetTaskRequestSchema, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { handlerContext, plainCard } from "./in-process.js";

const DEADLINE_MS = 150;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function agent(started: boolean) {
  return createAgentHandlers(
    A2AService,
    async (_input, task) => {
      // Stored before the deadline (`started`), or only after it.
      if (started) await task.working("on it");
      await sleep(DEADLINE_MS * 3);
      await task.complete("done");
    },
    { card: plainCard },
  );
}

const RESOURCE_INFO = "type.googleapis.com/google.rpc.ResourceInfo";
const message = { messageId: "m1", role: "ROLE_USER", parts: [{ text: "work" }] };

describe("a blocking send past the unary deadline", () => {
  for (const started of [true, false]) {
    const when = started ? "stored before the deadline" : "not yet stored at the deadline";
    it(`HTTP+JSON: 504 naming the task (${when}), which goes on to COMPLETED`, async () => {
      const handlers = agent(started);
      const handle = fetchHandlerOf(
        createHttpHandler(A2AServiceRoutes, handlers, { profile: "a2a", unaryTimeoutMs: DEADLINE_MS, onError: () => {} }),
      );
      const res = await handle(
        new Request("http://agent.test/message:send", {
          method: "POST",
          headers: { "content-type": "application/json", "a2a-version": "1.0" },
          body: JSON.stringify({ message }),
        }),
      );
      expect(res.status).toBe(504);
      const body = (await res.json()) as { error: { message: string; details: { "@type": string; resourceName?: string }[] } };
      const info = body.error.details.find((d) => d["@type"] === RESOURCE_INFO);
      const id = info?.resourceName?.replace(/^tasks\//, "") ?? "";
      expect(id).not.toBe("");
      expect(body.error.message).toContain(id);
      expect(body.error.message).toMatch(/GetTask/);
      await sleep(DEADLINE_MS * 4);
      const task = (await handlers.getTask!(create(GetTaskRequestSchema, { id }), handlerContext("getTask"))) as Task;
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      await handlers.close();
    });
  }

  it("JSON-RPC: the error's message and data name the task", async () => {
    const handlers = agent(true);
    const handle = fetchHandlerOf(
      createJsonRpcHandler(A2AServiceRoutes, handlers, { profile: "a2a", unaryTimeoutMs: DEADLINE_MS, onError: () => {} }),
    );
    const res = await handle(
      new Request("http://agent.test/", {
        method: "POST",
        headers: { "content-type": "application/json", "a2a-version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "SendMessage", params: { message } }),
      }),
    );
    const body = (await res.json()) as { error: { message: string; data?: { "@type": string; resourceName?: string }[] } };
    const info = body.error.data?.find((d) => d["@type"] === RESOURCE_INFO);
    const id = info?.resourceName?.replace(/^tasks\//, "") ?? "";
    expect(id).not.toBe("");
    expect(body.error.message).toContain(id);
    await handlers.close();
  });
});
