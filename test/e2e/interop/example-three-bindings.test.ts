/**
 * example/server.ts serves one handler object over all three bindings and
 * lists them in its card: a task made over one binding is seen over the other
 * two, by our client (HTTP+JSON and JSON-RPC, picked from the card) and a
 * connect-es gRPC client.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { pickTransport } from "a2a-http";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { A2AService, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { negativeValuesJoined, startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { frameworks } from "./harness/our-server.js";
import { userMessage } from "./harness/util.js";

describe.each(frameworks)("the example agent on %s", (framework) => {
  let agent: RunningAgent;
  let card: { supportedInterfaces: { url: string; protocolBinding: string; tenant?: string }[] };
  beforeAll(async () => {
    agent = await startExampleAgent({ framework, port: 0, tenant: "acme" });
    card = await (await fetch(`${agent.url}/.well-known/agent-card.json`)).json();
  });
  afterAll(async () => {
    await agent?.close();
  });

  it("lists HTTP+JSON, JSONRPC and GRPC, each with the tenant", () => {
    expect(card.supportedInterfaces.map((i) => [i.protocolBinding, i.url, i.tenant])).toEqual([
      ["HTTP+JSON", agent.url, "acme"],
      ["JSONRPC", agent.jsonRpcUrl, "acme"],
      ["GRPC", agent.grpcTarget, "acme"],
    ]);
  });

  it("a task sent over HTTP+JSON is found over JSON-RPC and gRPC (one handler object)", async () => {
    const rest = createA2AServiceClient(pickTransport(card, ["HTTP+JSON"]));
    const rpc = createA2AServiceClient(pickTransport(card, ["JSONRPC"]));
    const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` }));
    const sent = await rest.sendMessage({ message: userMessage("three ways") });
    const task = sent.payload.value as Task;
    expect(task.status?.state).toBe(TaskState.COMPLETED);
    expect((await rpc.getTask({ id: task.id })).id).toBe(task.id);
    const viaGrpc = await grpc.getTask({ id: task.id, tenant: "acme" }, { headers: { "a2a-version": "1.0" } });
    expect(viaGrpc.artifacts[0]?.parts[0]?.content.value).toBe("echo: three ways");
    // The JSON-RPC stream of the same agent.
    const events = [];
    for await (const e of rpc.sendStreamingMessage({ message: userMessage("streamed") })) events.push(e.payload.case);
    expect(events[0]).toBe("task");
    expect(events.at(-1)).toBe("statusUpdate");
  });
});

describe("the example agent's flags", () => {
  it("`--grpc-port -1` is read as `--grpc-port=-1` (node's parseArgs refuses a value starting with '-')", () => {
    expect(negativeValuesJoined(["--grpc-port", "-1", "--port", "0"])).toEqual(["--grpc-port=-1", "--port", "0"]);
    expect(negativeValuesJoined(["--grpc-port=-1", "--migrate", "-h"])).toEqual(["--grpc-port=-1", "--migrate", "-h"]);
  });
});
