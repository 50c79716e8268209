/**
 * A client that goes away mid-stream closes the handler's iterator, over
 * JSON-RPC on each framework and over gRPC: the same guarantee as HTTP+JSON.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import type { A2AServiceHandlers } from "../../../gen/a2a_http.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { A2AService, TaskState } from "../../../gen/a2a_pb.js";
import { frameworks, startOurServer, type OurServer } from "./harness/our-server.js";
import { startOurGrpcServer, type OurGrpcServer } from "./harness/our-grpc-server.js";

/** SubscribeToTask that never ends by itself, and says when its iterator is closed. */
function endless(closed: { count: number }) {
  return (agent: A2AServiceHandlers): A2AServiceHandlers => ({
    ...agent,
    async *subscribeToTask(req) {
      try {
        for (;;) {
          yield { payload: { case: "statusUpdate", value: { taskId: req.id, status: { state: TaskState.WORKING } } } };
          await new Promise((r) => setTimeout(r, 5));
        }
      } finally {
        closed.count++;
      }
    },
  });
}

describe.each(frameworks)("JSON-RPC on %s: an aborted stream", (framework) => {
  const closed = { count: 0 };
  let server: OurServer;
  beforeAll(async () => {
    server = await startOurServer(framework, { wrap: endless(closed) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("closes the handler's iterator", async () => {
    const client = createA2AServiceClient({ baseUrl: server.jsonRpcUrl, transport: "jsonrpc" });
    const ctl = new AbortController();
    let seen = 0;
    await expect(
      (async () => {
        for await (const _ of client.subscribeToTask({ id: "t" }, { signal: ctl.signal })) if (++seen === 2) ctl.abort();
      })(),
    ).rejects.toMatchObject({ code: 1 /* CANCELLED */ });
    await vi.waitFor(() => expect(closed.count).toBe(1));
  });
});

describe("gRPC: an aborted stream", () => {
  const closed = { count: 0 };
  let server: OurGrpcServer;
  beforeAll(async () => {
    server = await startOurGrpcServer({ wrap: endless(closed) });
  });
  afterAll(async () => {
    await server?.close();
  });

  it("closes the handler's iterator", async () => {
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: server.baseUrl }));
    const ctl = new AbortController();
    let seen = 0;
    await expect(
      (async () => {
        for await (const _ of client.subscribeToTask({ id: "t" }, { signal: ctl.signal, headers: { "a2a-version": "1.0" } }))
          if (++seen === 2) ctl.abort();
      })(),
    ).rejects.toThrow();
    await vi.waitFor(() => expect(closed.count).toBe(1));
  });
});
