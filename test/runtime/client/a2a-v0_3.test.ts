import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createA2AServiceClient } from "../../../gen/a2a-v0_3_http_client.js";
import { Code, RpcError } from "a2a-http";
import { json, startRecorder, type Recorder } from "./recorder.js";

let server: Recorder;
beforeAll(async () => {
  server = await startRecorder(json(200, {}));
});
afterAll(() => server.close());

describe("the v0.3 A2A client (multi-segment names, body field)", () => {
  const client = () => createA2AServiceClient({ baseUrl: server.url });

  it("GetTask: {name=tasks/*}, version 0.3", async () => {
    await client().getTask({ name: "tasks/t 1", historyLength: 2 });
    const r = server.last();
    expect(r.method).toBe("GET");
    expect(r.url).toBe("/v1/tasks/t%201?historyLength=2");
    expect(r.headers["a2a-version"]).toBe("0.3");
  });

  it("a name outside the pattern is refused", async () => {
    const err = (await client()
      .getTask({ name: "t1" })
      .catch((e: unknown) => e)) as RpcError;
    expect(err).toBeInstanceOf(RpcError);
    expect(err.code).toBe(Code.INVALID_ARGUMENT);
    expect(err.message).toContain('field name "t1" does not match the pattern tasks/*');
  });

  it("CreateTaskPushNotificationConfig: the upstream typo template and body: config", async () => {
    await client().createTaskPushNotificationConfig({
      parent: "task/t1/pushNotificationConfigs",
      configId: "c 1",
      config: { name: "n", pushNotificationConfig: { url: "https://cb" } },
    });
    const r = server.last();
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/v1/task/t1/pushNotificationConfigs?configId=c%201");
    expect(JSON.parse(r.body)).toEqual({ name: "n", pushNotificationConfig: { url: "https://cb" } });
  });

  it("TaskSubscription goes as POST without a body", async () => {
    server.respond = (_r, res) => {
      res.writeHead(200, { "content-type": "text/event-stream" });
      res.end();
    };
    for await (const _ of client().taskSubscription({ name: "tasks/t1" })) void _;
    const r = server.last();
    expect(r.method).toBe("POST");
    expect(r.url).toBe("/v1/tasks/t1:subscribe");
    expect(r.body).toBe("");
    expect(r.headers["content-type"]).toBeUndefined();
  });
});
