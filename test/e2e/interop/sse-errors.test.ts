/**
 * How the SDK's client and ours read the two forms of a stream error that
 * servers send (a2a-wire.md §6/§10): `event: error` + Status JSON (JS/Python
 * servers, and ours) and a data-only `{"error": ...}` event (Go/Java servers).
 * A raw node:http server on 127.0.0.1 plays the server, so the bytes are exact.
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Role } from "@a2a-js/sdk";
import type { Message as SdkMessage, SendMessageRequest as SdkSendMessageRequest, StreamResponse as SdkStreamResponse } from "@a2a-js/sdk";
import { ClientFactory, ClientFactoryOptions, RestTransportFactory, type Client } from "@a2a-js/sdk/client";
import { TaskNotFoundError } from "@a2a-js/sdk/errors";
import { RpcError } from "a2a-http";
import { createA2AServiceClient, type A2AServiceClient } from "../../../gen/a2a_http_client.js";
import { userMessage } from "./harness/util.js";

const taskEvent = { task: { id: "t1", contextId: "c1", status: { state: "TASK_STATE_WORKING" } } };
const statusBody = {
  error: {
    code: 404,
    status: "NOT_FOUND",
    message: "task not found: t1",
    details: [
      {
        "@type": "type.googleapis.com/google.rpc.ErrorInfo",
        reason: "TASK_NOT_FOUND",
        domain: "a2a-protocol.org",
        metadata: { taskId: "t1" },
      },
    ],
  },
};

/** The stream bodies, by the text of the message that asks for them. */
const streams: Record<string, string> = {
  "event-error": `data: ${JSON.stringify(taskEvent)}\n\nevent: error\ndata: ${JSON.stringify(statusBody)}\n\n`,
  "data-error": `data: ${JSON.stringify(taskEvent)}\n\ndata: ${JSON.stringify(statusBody)}\n\n`,
};

describe("stream errors in both forms", () => {
  let server: Server;
  let origin: string;
  let sdk: Client;
  let ours: A2AServiceClient;

  beforeAll(async () => {
    server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on("data", (c: Buffer) => chunks.push(c));
      req.on("end", () => {
        if (req.method === "GET" && req.url === "/.well-known/agent-card.json") {
          res.writeHead(200, { "Content-Type": "application/json" });
          res.end(
            JSON.stringify({
              name: "raw",
              description: "a raw SSE server",
              version: "1.0.0",
              supportedInterfaces: [{ url: origin, protocolBinding: "HTTP+JSON", protocolVersion: "1.0" }],
              capabilities: { streaming: true },
              defaultInputModes: ["text/plain"],
              defaultOutputModes: ["text/plain"],
              skills: [],
            }),
          );
          return;
        }
        if (req.method === "POST" && req.url === "/message:stream") {
          const body = JSON.parse(Buffer.concat(chunks).toString("utf8")) as { message: { parts: { text?: string }[] } };
          const which = body.message.parts[0]?.text ?? "";
          res.writeHead(200, { "Content-Type": "text/event-stream", "Cache-Control": "no-cache" });
          res.end(streams[which] ?? "");
          return;
        }
        res.writeHead(404, { "Content-Type": "text/plain" });
        res.end("not found");
      });
    });
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const factory = new ClientFactory(
      ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
        transports: [new RestTransportFactory()],
        preferredTransports: ["HTTP+JSON"],
      }),
    );
    sdk = await factory.createFromUrl(origin);
    ours = createA2AServiceClient({ baseUrl: origin });
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  const sdkSend = (text: string) =>
    ({
      message: {
        messageId: crypto.randomUUID(),
        role: Role.ROLE_USER,
        parts: [{ content: { $case: "text", value: text } }],
      } as unknown as SdkMessage,
    }) as SdkSendMessageRequest;

  async function sdkRun(text: string): Promise<{ events: SdkStreamResponse[]; error?: unknown }> {
    const events: SdkStreamResponse[] = [];
    try {
      for await (const e of sdk.sendMessageStream(sdkSend(text) as never)) events.push(e);
    } catch (error) {
      return { events, error };
    }
    return { events };
  }

  async function oursRun(text: string): Promise<{ cases: (string | undefined)[]; error?: unknown }> {
    const cases: (string | undefined)[] = [];
    try {
      for await (const e of ours.sendStreamingMessage({ message: userMessage(text) })) cases.push(e.payload.case);
    } catch (error) {
      return { cases, error };
    }
    return { cases };
  }

  it("event: error -> the SDK throws its typed error", async () => {
    const { events, error } = await sdkRun("event-error");
    expect(events.map((e) => e.payload?.$case)).toEqual(["task"]);
    expect(error).toBeInstanceOf(TaskNotFoundError);
  });

  it('data-only {"error": ...} -> the SDK yields an empty event and does not throw (SDK deviation)', async () => {
    const { events, error } = await sdkRun("data-error");
    expect(error).toBeUndefined();
    expect(events).toHaveLength(2);
    expect(events[0]?.payload?.$case).toBe("task");
    expect(events[1]?.payload).toBeUndefined();
  });

  it("event: error -> our client throws the decoded RpcError", async () => {
    const { cases, error } = await oursRun("event-error");
    expect(cases).toEqual(["task"]);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).reason).toBe("TASK_NOT_FOUND");
    expect((error as RpcError).httpStatus).toBe(404);
  });

  it('data-only {"error": ...} -> our client throws it too', async () => {
    const { cases, error } = await oursRun("data-error");
    expect(cases).toEqual(["task"]);
    expect(error).toBeInstanceOf(RpcError);
    expect((error as RpcError).reason).toBe("TASK_NOT_FOUND");
  });
});
