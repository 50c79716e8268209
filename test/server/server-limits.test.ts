/**
 * Issue 28 items 5 and 8: the example's gRPC port has bounds (largest
 * message, concurrent streams, idle sessions closed) and Fastify times out a
 * trickled body with a 408, as Express and Hono do (docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http2 from "node:http2";
import net from "node:net";
import { create } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { A2AService, Role, SendMessageRequestSchema } from "../../gen/a2a_pb.js";
import { startExampleAgent, type RunningAgent } from "../../example/server.js";
import { DEFAULT_GRPC_LIMITS, grpcServerOptions } from "../../packages/runtime/src/connect/server-limits.js";
import { fastifyOptions } from "../../packages/runtime/src/server/fastify.js";

describe("grpcServerOptions", () => {
  it("defaults to the HTTP body limit, 100 streams, 10 MB a session, 5 min idle", () => {
    const o = grpcServerOptions();
    expect(o).toEqual({
      http2: { maxSessionMemory: 10, settings: { maxConcurrentStreams: 100 } },
      adapter: { readMaxBytes: 4 * 1024 * 1024 },
      idleTimeoutMs: 300_000,
    });
    expect(DEFAULT_GRPC_LIMITS.readMaxBytes).toBe(4 * 1024 * 1024);
  });
  it("refuses a value that is not a positive integer", () => {
    expect(() => grpcServerOptions({ maxConcurrentStreams: 0 })).toThrow(/maxConcurrentStreams/);
    expect(() => grpcServerOptions({ readMaxBytes: 1.5 })).toThrow(/readMaxBytes/);
  });
});

describe("the example's gRPC port", () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startExampleAgent({
      framework: "express",
      port: 0,
      grpcLimits: { readMaxBytes: 2000, maxConcurrentStreams: 7, idleTimeoutMs: 300 },
    });
  });
  afterAll(async () => {
    await agent?.close();
  });

  it("refuses a message over readMaxBytes with RESOURCE_EXHAUSTED", async () => {
    const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` }));
    const req = (text: string) =>
      create(SendMessageRequestSchema, { message: { messageId: `m-${text.length}`, role: Role.USER, parts: [{ content: { case: "text", value: text } }] } });
    const headers = { "a2a-version": "1.0" };
    await expect(grpc.sendMessage(req("small"), { headers })).resolves.toBeDefined();
    const e = await grpc.sendMessage(req("x".repeat(5000)), { headers }).then(() => undefined, (x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code).toBe(8); // RESOURCE_EXHAUSTED
  });

  it("announces maxConcurrentStreams and closes an idle session", async () => {
    const session = http2.connect(`http://${agent.grpcTarget}`);
    const settings = await new Promise<http2.Settings>((ok) => session.once("remoteSettings", ok));
    expect(settings.maxConcurrentStreams).toBe(7);
    // Nothing is sent: the server closes the session once it has been idle for idleTimeoutMs.
    await new Promise<void>((ok) => session.once("close", () => ok()));
    expect(session.closed || session.destroyed).toBe(true);
  });
});

describe("Fastify times out a trickled body", () => {
  it("fastifyOptions sets Node's request timeout at creation (Fastify's default is none)", () => {
    const o = fastifyOptions({ profile: "a2a" });
    expect(o.requestTimeout).toBe(300_000);
    expect(o.http.requestTimeout).toBe(300_000);
    expect(o.http.headersTimeout).toBe(60_000);
    expect(fastifyOptions({ requestTimeoutMs: 1000 }).http.headersTimeout).toBe(1000);
    expect(() => fastifyOptions({ requestTimeoutMs: 0 })).toThrow(/requestTimeoutMs/);
  });

  it("the example on Fastify answers 408 to a body that never ends", async () => {
    const agent = await startExampleAgent({ framework: "fastify", port: 0, grpcPort: -1, requestTimeoutMs: 1000 });
    try {
      const { port } = new URL(agent.url);
      const socket = net.connect(Number(port), "127.0.0.1");
      socket.write(`POST /message:send HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`);
      // One byte at a time, forever: only the server's timeout ends this.
      const trickle = setInterval(() => socket.write(" "), 100);
      let answer = "";
      socket.on("data", (d: Buffer) => (answer += d.toString("latin1")));
      await new Promise<void>((ok) => socket.once("close", () => ok()));
      clearInterval(trickle);
      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 408 Request Timeout");
    } finally {
      await agent.close();
    }
  });
});
