/**
 * The checks every edge runtime passes (bun.test.ts, deno.test.ts and
 * workerd.test.ts call `edgeSuite`): the example agent served by the runtime
 * through the generated Hono adapters, called from Node on HTTP+JSON and
 * JSON-RPC; and the generated client run inside the runtime against a Node
 * agent.
 */
import { afterAll, afterEach, beforeAll, describe, expect, test } from "vitest";
import { v03Rpc, v03TextMessage } from "../v03-rpc.js";
import { isRpcError } from "a2a-http";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { Role, TaskState, type StreamResponse, type Task } from "../../../gen/a2a_pb.js";
import { startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { probeHeader } from "./agent-app.js";
import { findRuntime, launch, until, type Launched, type RuntimeName } from "./harness.js";

const bindings = ["http+json", "jsonrpc"] as const;
type Binding = (typeof bindings)[number];

const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const stateOf = (e: StreamResponse) =>
  e.payload.case === "task" ? e.payload.value.status?.state : e.payload.case === "statusUpdate" ? e.payload.value.status?.state : undefined;

/** Sends `/wait` without waiting for its end: a task that stays WORKING until canceled. */
async function waitingTask(client: A2AServiceClient): Promise<Task> {
  const sent = await client.sendMessage({ message: text("/wait"), configuration: { returnImmediately: true } });
  if (sent.payload.case !== "task") throw new Error(`expected a task, got ${sent.payload.case}`);
  expect(sent.payload.value.status?.state).toBe(TaskState.WORKING);
  return sent.payload.value;
}

export function edgeSuite(name: RuntimeName): void {
  const runtime = findRuntime(name);
  if (runtime.binary === undefined) {
    if (runtime.skip) {
      // Printed too: the default reporter shows only a count of skipped tests.
      console.warn(`test/e2e/edge: ${name} skipped: ${runtime.reason}`);
      test.skip(`${name} (skipped: ${runtime.reason})`, () => {});
    } else test(`${name} is installed (CI=true)`, () => expect.fail(runtime.reason));
    return;
  }
  const binary = runtime.binary;

  let edge: Launched;
  let nodeAgent: RunningAgent;
  beforeAll(async () => {
    const [launched, started] = await Promise.allSettled([
      launch(name, binary),
      startExampleAgent({ framework: "hono", port: 0, grpcPort: -1 }),
    ]);
    // Whichever started is stopped by afterAll, even when the other failed.
    if (launched.status === "fulfilled") edge = launched.value;
    if (started.status === "fulfilled") nodeAgent = started.value;
    for (const r of [launched, started]) if (r.status === "rejected") throw r.reason;
  }, 60_000);
  afterAll(() => Promise.all([edge?.stop(), nodeAgent?.close()]));
  // What the runtime logged (workerd's uncaught exceptions, say) explains most failures.
  afterEach(({ task }) => {
    if (task.result?.state === "fail" && edge)
      console.error(`--- ${name} output (last 3000 characters) ---\n${edge.output().slice(-3000)}`);
  });

  describe(`the example agent on ${name}`, () => {
    const clientOf = (binding: Binding) =>
      binding === "jsonrpc"
        ? createA2AServiceClient({ baseUrl: `${edge.agentUrl}/jsonrpc`, transport: "jsonrpc" })
        : createA2AServiceClient({ baseUrl: edge.agentUrl });

    test("serves /healthz and /readyz without A2A-Version, no-store", async () => {
      for (const path of ["/healthz", "/readyz"]) {
        const answer = await fetch(`${edge.agentUrl}${path}`);
        expect([path, answer.status, answer.headers.get("cache-control")]).toEqual([path, 200, "no-store"]);
        expect(await answer.json()).toEqual({ status: "ok" });
      }
    });

    test("serves the agent card, v1.0's alone to a v1.0 request and with v0.3's fields to a v0.3 one", async () => {
      type Card = { name: string; supportedInterfaces: { url: string; protocolBinding: string }[]; url?: string; protocolVersion?: string };
      const answer = await fetch(`${edge.agentUrl}/.well-known/agent-card.json`, { headers: { "A2A-Version": "1.0" } });
      expect(answer.status).toBe(200);
      expect(answer.headers.get("content-type")).toMatch(/^application\/json/);
      expect(answer.headers.get("vary")).toBe("A2A-Version");
      const card = (await answer.json()) as Card;
      expect(card.name).toBe("Echo agent");
      expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url])).toEqual([
        ["HTTP+JSON", edge.agentUrl],
        ["JSONRPC", `${edge.agentUrl}/jsonrpc`],
      ]);
      expect(card.protocolVersion).toBeUndefined();
      // Without a version (a v0.3 client): the same card with v0.3's fields (docs/a2a.md, "v0.3 clients").
      const old = (await (await fetch(`${edge.agentUrl}/.well-known/agent-card.json`)).json()) as Card;
      expect(old).toMatchObject({ protocolVersion: "0.3.0", url: `${edge.agentUrl}/jsonrpc` });
      // And a v0.3 client's message/send on the same endpoint.
      const v03 = await v03Rpc<{ kind: string }>(`${edge.agentUrl}/jsonrpc`, "message/send", {
        message: v03TextMessage("edge-v03", "old"),
      });
      expect(v03.result.kind).toBe("task");
    });

    for (const binding of bindings) {
      test(`unary calls on ${binding}`, async () => {
        const client = clientOf(binding);
        const sent = await client.sendMessage({ message: text("hello") });
        expect(sent.payload.case).toBe("task");
        const task = sent.payload.value as Task;
        expect(task.status?.state).toBe(TaskState.COMPLETED);
        expect(task.artifacts[0]?.parts[0]?.content.value).toBe("echo: hello");
        expect((await client.getTask({ id: task.id })).status?.state).toBe(TaskState.COMPLETED);
        const reply = await client.sendMessage({ message: text("/message hi") });
        expect(reply.payload.case).toBe("message");
      });

      test(`a task answered at once (returnImmediately) on ${binding} still runs to its end`, async () => {
        const client = clientOf(binding);
        // Three steps of 50 ms (agent-app.ts), all after the answer: a Worker drops such work unless the engine hands it to waitUntil.
        const sent = await client.sendMessage({ message: text("/work 3"), configuration: { returnImmediately: true } });
        const id = (sent.payload.value as Task).id;
        const state = await until(`${name} finishing the task`, 3000, async () => {
          const s = (await client.getTask({ id })).status?.state;
          return s === TaskState.COMPLETED || s === TaskState.FAILED ? s : undefined;
        });
        expect(state).toBe(TaskState.COMPLETED);
      });

      test(`an SSE stream on ${binding} waits 2 s for another request's event`, async () => {
        const client = clientOf(binding);
        const task = await waitingTask(client);
        const states: (TaskState | undefined)[] = [];
        const t0 = Date.now();
        let failure: unknown;
        const reading = (async () => {
          for await (const event of client.subscribeToTask({ id: task.id })) states.push(stateOf(event));
        })().catch((e: unknown) => (failure = e));
        await sleep(2000);
        // Still open, with nothing but the subscription's first answer (the task as it is).
        if (failure) throw failure;
        expect(states).toEqual([TaskState.WORKING]);
        await client.cancelTask({ id: task.id });
        await reading;
        if (failure) throw failure;
        expect(states.at(-1)).toBe(TaskState.CANCELED);
        expect(Date.now() - t0).toBeGreaterThanOrEqual(2000);
      });

      test(`the handler notices within 1 s that a ${binding} stream's client went away`, async () => {
        const client = clientOf(binding);
        const probe = `${binding}-${crypto.randomUUID()}`;
        const abort = new AbortController();
        const stream = client.sendStreamingMessage({ message: text("/wait") }, { signal: abort.signal, headers: { [probeHeader]: probe } });
        const iterator = stream[Symbol.asyncIterator]();
        // Once the task is WORKING the stream has nothing more to send, so no
        // failing write can tell the server: the runtime must notice the
        // closed connection itself.
        while (stateOf((await iterator.next()).value as StreamResponse) !== TaskState.WORKING);
        await sleep(300);
        const t0 = Date.now();
        abort.abort();
        await iterator.next().catch(() => {});
        await until(`${name} handler noticing the abort`, 1000, async () => {
          const aborted = (await (await fetch(`${edge.agentUrl}/__edge/aborted`)).json()) as string[];
          return aborted.includes(probe) ? true : undefined;
        });
        expect(Date.now() - t0).toBeLessThanOrEqual(1000);
      });
    }

    // Bun closes a connection idle for 10 s (its idleTimeout) and proxies do
    // likewise: the keep-alive comments (every 5 s, 0.5 s on Workers) must
    // keep a silent stream open (Bun ends one after 10-13 s). Both bindings at once, to wait only once.
    test("an SSE stream stays open through 14 s of silence on both bindings", async () => {
      await Promise.all(
        bindings.map(async (binding) => {
          const client = clientOf(binding);
          const task = await waitingTask(client);
          const states: (TaskState | undefined)[] = [];
          let failure: unknown;
          const reading = (async () => {
            for await (const event of client.subscribeToTask({ id: task.id })) states.push(stateOf(event));
          })().catch((e: unknown) => (failure = e));
          await sleep(14_000);
          if (failure) throw new Error(`${binding}: the silent stream ended: ${String(failure)}`);
          expect(states).toEqual([TaskState.WORKING]);
          await client.cancelTask({ id: task.id });
          await reading;
          if (failure) throw failure;
          expect(states.at(-1)).toBe(TaskState.CANCELED);
        }),
      );
    }, 30_000);

    test("errors are google.rpc.Status on HTTP+JSON and A2A error codes on JSON-RPC", async () => {
      const answer = await fetch(`${edge.agentUrl}/tasks/no-such-task`, { headers: { "A2A-Version": "1.0" } });
      expect(answer.status).toBe(404);
      expect(await answer.json()).toMatchObject({
        error: {
          code: 404,
          status: "NOT_FOUND",
          details: [{ "@type": "type.googleapis.com/google.rpc.ErrorInfo", reason: "TASK_NOT_FOUND", domain: "a2a-protocol.org" }],
        },
      });
      const rpc = await fetch(`${edge.agentUrl}/jsonrpc`, {
        method: "POST",
        headers: { "content-type": "application/json", "A2A-Version": "1.0" },
        body: JSON.stringify({ jsonrpc: "2.0", id: 7, method: "GetTask", params: { id: "no-such-task" } }),
      });
      expect(await rpc.json()).toMatchObject({ jsonrpc: "2.0", id: 7, error: { code: -32001 } });
      // The generated client turns both into the same RpcError.
      for (const binding of bindings) {
        const e = await clientOf(binding)
          .getTask({ id: "no-such-task" })
          .catch((x: unknown) => x);
        expect(isRpcError(e) && [e.status, e.reason]).toEqual(["NOT_FOUND", "TASK_NOT_FOUND"]);
      }
    });
  });

  describe(`the generated client on ${name}`, () => {
    test("calls a Node agent on HTTP+JSON and JSON-RPC", async () => {
      const calls = {
        sent: { state: "COMPLETED", artifact: "echo: hello" },
        got: "COMPLETED",
        error: { status: "NOT_FOUND", reason: "TASK_NOT_FOUND" },
      };
      const results = (await edge.runClient(nodeAgent.url)) as Record<string, { streamed: string[] }>;
      expect(results).toMatchObject({ card: "Echo agent", httpJson: calls, jsonRpc: calls });
      for (const binding of ["httpJson", "jsonRpc"]) {
        // The stream: the task, its status updates and artifact, ending COMPLETED.
        expect(results[binding]!.streamed[0]).toBe("task");
        expect(results[binding]!.streamed).toContain("artifactUpdate");
        expect(results[binding]!.streamed.at(-1)).toBe("statusUpdate");
      }
    });
  });
}
