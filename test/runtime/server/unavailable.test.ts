/**
 * An agent whose store is away (StoreUnavailableError, issue 39 item 4):
 * HTTP+JSON answers 503 with Retry-After and the google.rpc.RetryInfo
 * detail; JSON-RPC a server error whose data carries the RetryInfo; and the
 * generated client, on either binding, waits and tries GetTask again.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StoreUnavailableError } from "a2a-http/agent";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { startBoth } from "./serve-both.js";

const RETRY_INFO = "type.googleapis.com/google.rpc.RetryInfo";

describe("an agent whose store cannot be reached", () => {
  let origin: string;
  let close: () => Promise<void>;
  let failures = 0;
  beforeAll(async () => {
    ({ origin, close } = await startBoth("express", {
      getTask: async () => {
        if (failures-- > 0) throw new StoreUnavailableError(false, new Error("connect ECONNREFUSED 127.0.0.1:5432"));
        return { id: "t1", contextId: "c1", status: { state: 3 } } as never;
      },
    }));
  });
  afterAll(async () => {
    await close();
  });

  it("HTTP+JSON: 503, Retry-After, RetryInfo, and no word of the database", async () => {
    failures = 1;
    const res = await fetch(`${origin}/tasks/t1`, { headers: { "a2a-version": "1.0" } });
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("1");
    const text = await res.text();
    expect(text).not.toMatch(/ECONNREFUSED|5432/);
    const body = JSON.parse(text) as { error: { status: string; details: { "@type": string; retryDelay?: string }[] } };
    expect(body.error.status).toBe("UNAVAILABLE");
    expect(body.error.details).toContainEqual({ "@type": RETRY_INFO, retryDelay: "1s" });
  });

  it("JSON-RPC: the error's data carries the RetryInfo", async () => {
    failures = 1;
    const res = await fetch(`${origin}/jsonrpc`, {
      method: "POST",
      headers: { "content-type": "application/json", "a2a-version": "1.0" },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "GetTask", params: { id: "t1" } }),
    });
    const body = (await res.json()) as { error: { data: { "@type": string }[] } };
    expect(body.error.data).toContainEqual({ "@type": RETRY_INFO, retryDelay: "1s" });
  });

  it("the generated client tries GetTask again on both bindings, and gets the task", async () => {
    for (const [transport, baseUrl] of [
      ["http+json", origin],
      ["jsonrpc", `${origin}/jsonrpc`],
    ] as const) {
      failures = 2;
      const task = await createA2AServiceClient({ baseUrl, transport, retry: { maxDelayMs: 50 } }).getTask({ id: "t1" });
      expect(task.id).toBe("t1");
      expect(failures).toBe(-1);
    }
  });
});
