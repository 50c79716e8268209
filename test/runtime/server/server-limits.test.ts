/**
 * Issue 28 items 5 and 8: the example's gRPC port has bounds (largest
 * message, concurrent streams, idle sessions closed) and Fastify times out a
 * trickled body with a 408, as Express and Hono do (docs/security.md).
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import http2 from "node:http2";
import net from "node:net";
import { create, fromBinary } from "@bufbuild/protobuf";
import { ConnectError, createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { gzipSync } from "node:zlib";
import { A2AService, Role, SendMessageRequestSchema } from "../../../gen/a2a_pb.js";
import { startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { DEFAULT_GRPC_LIMITS, grpcServerOptions } from "../../../packages/runtime/src/connect/server-limits.js";
import { fastifyOptions } from "../../../packages/runtime/src/server/fastify.js";

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
      create(SendMessageRequestSchema, {
        message: { messageId: `m-${text.length}`, role: Role.USER, parts: [{ content: { case: "text", value: text } }] },
      });
    const headers = { "a2a-version": "1.0" };
    await expect(grpc.sendMessage(req("small"), { headers })).resolves.toBeDefined();
    const e = await grpc.sendMessage(req("x".repeat(5000)), { headers }).then(
      () => undefined,
      (x: unknown) => x,
    );
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
      socket.write(
        `POST /message:send HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\nA2A-Version: 1.0\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{`,
      );
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

describe("the example's gRPC port counts a binary message's elements before connect-es decodes it (withRequestBounds)", () => {
  let agent: RunningAgent;
  beforeAll(async () => {
    agent = await startExampleAgent({ framework: "express", port: 0 });
  });
  afterAll(async () => {
    await agent?.close();
  });
  const headers = { "a2a-version": "1.0" };
  /** A SendMessage whose data part is a list of `n` null Values (4 bytes each on the wire). */
  const nulls = (n: number) =>
    create(SendMessageRequestSchema, {
      message: {
        messageId: `m-${n}`,
        role: Role.USER,
        parts: [
          {
            content: {
              case: "data",
              value: {
                kind: {
                  case: "listValue",
                  value: { values: Array.from({ length: n }, () => ({ kind: { case: "nullValue" as const, value: 0 as const } })) },
                },
              },
            },
          },
        ],
      },
    });
  const codeOf = (p: Promise<unknown>) =>
    p.then(
      () => 0,
      (e: unknown) => (e instanceof ConnectError ? e.code : -1),
    );

  /** One h2c POST of `body` to SendMessage with the headers given; the HTTP status, grpc-status and time taken. */
  function post(
    body: Uint8Array,
    extra: Record<string, string>,
    untilHeaders = false,
  ): Promise<{ status: number; grpcStatus: string | undefined; ms: number }> {
    const session = http2.connect(`http://${agent.grpcTarget}`);
    const started = performance.now();
    return new Promise((ok, fail) => {
      const req = session.request({
        ":method": "POST",
        ":path": "/lf.a2a.v1.A2AService/SendMessage",
        te: "trailers",
        ...headers,
        ...extra,
      });
      let status = 0;
      let grpcStatus: string | undefined;
      req.on("response", (h) => {
        status = Number(h[":status"]);
        grpcStatus ??= h["grpc-status"] as string | undefined;
        if (untilHeaders) session.destroy(), ok({ status, grpcStatus, ms: performance.now() - started });
      });
      req.on("trailers", (t) => (grpcStatus ??= t["grpc-status"] as string | undefined));
      req.on("data", () => {});
      req.on("close", () => (session.close(), ok({ status, grpcStatus, ms: performance.now() - started })));
      req.on("error", fail);
      req.end(body);
    });
  }
  /** SendMessageRequest{message{message_id "m", role USER, parts[{data: Value{list_value{values: n x null}}}]}} in protobuf's wire format. */
  function nullsOnTheWire(n: number): Uint8Array {
    const varint = (v: number) => {
      const out: number[] = [];
      for (; v > 127; v = Math.floor(v / 128)) out.push((v & 127) | 128);
      out.push(v);
      return out;
    };
    const field = (tag: number, payload: Uint8Array) => Uint8Array.from([tag, ...varint(payload.length), ...payload]);
    const list = new Uint8Array(n * 4);
    for (let i = 0; i < n; i++) list.set([0x0a, 0x02, 0x08, 0x00], i * 4); // values: Value{null_value: 0}
    const head = [0x32, ...varint(list.length)]; // Value.list_value (6)
    const value = new Uint8Array(head.length + list.length);
    value.set(head);
    value.set(list, head.length);
    const part = field(0x22, value); // Part.data (4)
    const message = Uint8Array.from([0x0a, 0x01, 0x6d, 0x20, 0x01, ...field(0x2a, part)]); // message_id (1), role (4), parts (5)
    return field(0x12, message); // SendMessageRequest.message (2)
  }
  const envelope = (flags: number, bytes: Uint8Array) => {
    const frame = new Uint8Array(5 + bytes.length);
    frame[0] = flags;
    new DataView(frame.buffer).setUint32(1, bytes.length);
    frame.set(bytes, 5);
    return frame;
  };

  it("refuses 4 MiB of null Values (1M elements) with RESOURCE_EXHAUSTED without decoding them: gRPC, gzip-compressed, Connect", async () => {
    // Written by hand: protobuf-es takes seconds to build and encode 1M Values.
    const bytes = nullsOnTheWire(1_048_000);
    const small = fromBinary(SendMessageRequestSchema, nullsOnTheWire(3)).message!.parts[0]!.content;
    expect(small.case === "data" && small.value.kind.case === "listValue" && small.value.kind.value.values.length).toBe(3);
    const grpc = await post(envelope(0, bytes), { "content-type": "application/grpc" });
    expect(grpc.grpcStatus).toBe("8");
    // The count stops at the cap: far less than decoding, which protobuf-es alone takes over a second for
    // (timed here too, so that a loaded machine slows both).
    const decodeStarted = performance.now();
    fromBinary(SendMessageRequestSchema, bytes);
    const decodeMs = performance.now() - decodeStarted;
    expect(grpc.ms).toBeLessThan(decodeMs / 2);
    const gzipped = await post(envelope(1, gzipSync(bytes)), { "content-type": "application/grpc", "grpc-encoding": "gzip" });
    expect(gzipped.grpcStatus).toBe("8");
    expect(gzipped.ms).toBeLessThan(decodeMs / 2);
    const connect = await post(bytes, { "content-type": "application/proto", "connect-protocol-version": "1" });
    expect(connect.status).toBe(429);
    // Connect's JSON: walked as the JSON bindings walk a body (protobuf-es's fromJson would build 1M Values).
    const json = JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ data: new Array(700_000).fill(null) }] } });
    const connectJson = await post(new TextEncoder().encode(json), { "content-type": "application/json", "connect-protocol-version": "1" });
    expect(connectJson.status).toBe(429);
    const proto = await post(
      new TextEncoder().encode('{"message":{"messageId":"m","role":"ROLE_USER","parts":[{"data":{"__proto__":{"x":1}}}]}}'),
      {
        "content-type": "application/json",
        "connect-protocol-version": "1",
      },
    );
    expect(proto.status).toBe(400);
  });

  it("a body over readMaxBytes is left to connect-es, which refuses it (RESOURCE_EXHAUSTED) while the client is still sending", async () => {
    const json = JSON.stringify({ message: { messageId: "m", role: "ROLE_USER", parts: [{ text: "x".repeat(6 * 1024 * 1024) }] } });
    // connect-es answers and stops reading, but leaves the stream open while the client still sends: read the answer's head.
    const over = await post(new TextEncoder().encode(json), { "content-type": "application/json", "connect-protocol-version": "1" }, true);
    expect(over.status).toBe(429);
  });

  it("takes a message under the cap, and refuses one nested deeper than 100 with INVALID_ARGUMENT", async () => {
    const grpc = createClient(A2AService, createGrpcTransport({ baseUrl: `http://${agent.grpcTarget}` }));
    expect(await codeOf(grpc.sendMessage(nulls(40_000), { headers }))).toBe(0);
    // A list in a list in a list ... 120 deep: each level is a Value and a ListValue.
    let value: { kind: { case: "listValue"; value: { values: unknown[] } } | { case: "nullValue"; value: 0 } } = {
      kind: { case: "nullValue", value: 0 },
    };
    for (let i = 0; i < 60; i++) value = { kind: { case: "listValue", value: { values: [value] } } };
    const deep = create(SendMessageRequestSchema, {
      message: { messageId: "deep", role: Role.USER, parts: [{ content: { case: "data", value: value as never } }] },
    });
    expect(await codeOf(grpc.sendMessage(deep, { headers }))).toBe(3);
  });
});
