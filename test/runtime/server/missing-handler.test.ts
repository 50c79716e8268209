/**
 * A handler the agent has not written (a proto changed, the handlers did
 * not): under the A2A profile the answer is UNIMPLEMENTED with the ErrorInfo
 * every A2A error carries (reason UNSUPPORTED_OPERATION, the method named),
 * on HTTP+JSON, JSON-RPC and gRPC alike, as the generated stubs answer.
 */
import http2 from "node:http2";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ConnectError, createClient, Code as ConnectCode } from "@connectrpc/connect";
import { connectNodeAdapter, createGrpcTransport } from "@connectrpc/connect-node";
import { ErrorInfoSchema } from "a2a-http/connect";
import { A2AService } from "../../../gen/a2a_pb.js";
import { a2aServiceConnect } from "../../../gen/a2a_http_connect.js";
import { startBoth } from "./serve-both.js";

const ERROR_INFO = "type.googleapis.com/google.rpc.ErrorInfo";

describe("a missing handler under the A2A profile", () => {
  let origin: string;
  let close: () => Promise<void>;
  let h2: http2.Http2Server;
  const sessions = new Set<http2.ServerHttp2Session>();
  beforeAll(async () => {
    ({ origin, close } = await startBoth("express", { getTask: async () => ({}) as never }));
    h2 = http2.createServer(connectNodeAdapter({ routes: a2aServiceConnect({}) }));
    h2.on("session", (session) => sessions.add(session));
    await new Promise<void>((r) => h2.listen(0, "127.0.0.1", r));
  });
  afterAll(async () => {
    await close();
    // The client's session would keep the server open.
    for (const s of sessions) s.destroy();
    await new Promise<void>((r) => h2.close(() => r()));
  });

  it("HTTP+JSON: 501 with ErrorInfo UNSUPPORTED_OPERATION naming the method", async () => {
    const res = await fetch(`${origin}/tasks`, { headers: { "a2a-version": "1.0" } });
    expect(res.status).toBe(501);
    const body = (await res.json()) as {
      error: { status: string; details: { "@type": string; reason: string; metadata: Record<string, string> }[] };
    };
    expect(body.error.status).toBe("UNIMPLEMENTED");
    expect(body.error.details[0]).toMatchObject({
      "@type": ERROR_INFO,
      reason: "UNSUPPORTED_OPERATION",
      metadata: { method: "ListTasks" },
    });
  });

  it("JSON-RPC: the error's data carries the same ErrorInfo", async () => {
    const res = await fetch(`${origin}/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} }),
    });
    const body = (await res.json()) as { error: { data: { "@type": string; reason: string; metadata: Record<string, string> }[] } };
    expect(body.error.data).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ "@type": ERROR_INFO, reason: "UNSUPPORTED_OPERATION", metadata: { method: "ListTasks" } }),
      ]),
    );
  });

  it("gRPC: UNIMPLEMENTED with ErrorInfo", async () => {
    const client = createClient(A2AService, createGrpcTransport({ baseUrl: `http://127.0.0.1:${(h2.address() as AddressInfo).port}` }));
    const e = await client.listTasks({}, { headers: { "a2a-version": "1.0" } }).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(ConnectError);
    expect((e as ConnectError).code).toBe(ConnectCode.Unimplemented);
    const info = (e as ConnectError).findDetails(ErrorInfoSchema)[0];
    expect(info?.reason).toBe("UNSUPPORTED_OPERATION");
    expect(info?.metadata).toEqual({ method: "ListTasks" });
  });
});
