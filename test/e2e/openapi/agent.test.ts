// The example agent serves its OpenAPI document and a docs page, and what it
// answers validates (ajv, JSON Schema 2020-12) against the schemas that
// document gives for that operation and status: with every object component
// closed (unevaluatedProperties: false), so an answer with a field the
// document does not know fails too.
import { Validator } from "@seriousme/openapi-schema-validator";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { startExampleAgent, type Framework, type RunningAgent } from "../../../example/server.js";
import { componentValidators, type Doc } from "../../plugin/openapi/helpers.js";

const frameworks: Framework[] = ["express", "fastify", "hono"];

describe.each(frameworks)("%s: /openapi.json and /docs", (framework) => {
  let agent: RunningAgent;
  beforeAll(async () => void (agent = await startExampleAgent({ framework, port: 0, grpcPort: -1 })));
  afterAll(() => agent.close());

  test("the document is valid OpenAPI 3.1 and names this server", async () => {
    const res = await fetch(`${agent.url}/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const doc = (await res.json()) as Doc;
    expect(doc["servers"]).toEqual([{ url: agent.url, description: "this example agent" }]);
    const result = await new Validator().validate(doc);
    expect(result.errors ?? []).toEqual([]);
  });

  test("the docs page and its assets come from this server", async () => {
    const page = await fetch(`${agent.url}/docs`);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    const html = await page.text();
    const sources = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!);
    expect(sources.length).toBeGreaterThan(2);
    for (const s of sources) {
      expect(s.startsWith("/docs/"), s).toBe(true);
      expect((await fetch(agent.url + s)).status, s).toBe(200);
    }
    expect((await fetch(`${agent.url}/docs/..%2Fpackage.json`)).status).toBe(404);
    expect((await fetch(`${agent.url}/docs/index.html`)).status).toBe(404);
  });
});

describe("the example agent's answers validate against the document", () => {
  let agent: RunningAgent;
  let doc: Doc;
  let validate: ReturnType<typeof componentValidators>;
  beforeAll(async () => {
    agent = await startExampleAgent({ framework: "express", port: 0, grpcPort: -1 });
    doc = (await (await fetch(`${agent.url}/openapi.json`)).json()) as Doc;
    validate = componentValidators(doc, true);
  });
  afterAll(() => agent.close());

  const operation = (id: string): { method: string; path: string; op: Doc } => {
    for (const [path, item] of Object.entries(doc["paths"] as Record<string, Doc>)) {
      for (const [method, op] of Object.entries(item)) if (op?.operationId === id) return { method, path, op };
    }
    throw new Error(`no operation ${id}`);
  };

  /** Calls an operation as the document describes it, and checks the answer against its response schema. */
  async function call(id: string, params: Record<string, string>, body?: unknown, query = ""): Promise<{ status: number; json: any }> {
    const { method, path, op } = operation(id);
    const url = agent.url + path.replace(/\{([^}]+)\}/g, (_, n: string) => encodeURIComponent(params[n] ?? "")) + query;
    const res = await fetch(url, {
      method: method.toUpperCase(),
      headers: { "A2A-Version": "1.0", ...(body === undefined ? {} : { "Content-Type": "application/a2a+json" }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const response = (op["responses"][String(res.status)] ?? op["responses"].default) as Doc;
    const resolved = response["$ref"] ? doc["components"].responses[String(response["$ref"]).split("/").pop()!] : response;
    const type = res.headers.get("content-type")!.split(";")[0]!;
    const media = resolved.content[type];
    expect(media, `${id}: ${res.status} ${type} is not in the document (${Object.keys(resolved.content)})`).toBeDefined();
    if (type === "text/event-stream") {
      const text = await res.text();
      const events = text.split(/\n\n/).filter((e) => e.includes("data:"));
      expect(events.length).toBeGreaterThan(0);
      const data = events.map((e) => JSON.parse(/^data: (.*)$/m.exec(e)![1]!));
      for (const d of data) expect(validate(media["x-event-data-schema"], d), JSON.stringify(d)).toEqual([]);
      return { status: res.status, json: data };
    }
    const json = await res.json();
    expect(validate(media.schema, json), `${id} ${res.status}: ${JSON.stringify(json)}`).toEqual([]);
    return { status: res.status, json };
  }

  const message = (text: string) => ({ message: { messageId: crypto.randomUUID(), role: "ROLE_USER", parts: [{ text }] } });

  test("unary calls, success and errors", async () => {
    const sent = await call("SendMessage", {}, message("hello"));
    expect(sent.status).toBe(200);
    const taskId = sent.json.task.id as string;
    expect((await call("GetTask", { id: taskId })).json.id).toBe(taskId);
    expect((await call("GetTask_2", { tenant: "acme", id: "nope" })).status).toBe(404);
    const list = await call("ListTasks", {}, undefined, "?pageSize=5&includeArtifacts=true");
    expect(list.json.tasks.length).toBeGreaterThan(0);
    expect((await call("SendMessage", {}, message("/message hi"))).json.message).toBeDefined();
    const waiting = (await call("SendMessage", {}, { ...message("/wait"), configuration: { returnImmediately: true } })).json.task
      .id as string;
    expect((await call("CancelTask", { id: waiting }, {})).json.status.state).toBe("TASK_STATE_CANCELED");
    expect((await call("CancelTask", { id: waiting }, {})).status).toBe(400);
    expect((await call("SendMessage", {}, {})).status).toBe(400);
    expect((await call("GetExtendedAgentCard", {})).status).toBe(200);
  });

  test("push notification configs", async () => {
    const taskId = (await call("SendMessage", {}, { ...message("/wait"), configuration: { returnImmediately: true } })).json.task
      .id as string;
    const created = await call("CreateTaskPushNotificationConfig", { task_id: taskId }, { url: "https://example.com/hook" });
    expect(created.status).toBe(200);
    const id = created.json.id as string;
    expect((await call("GetTaskPushNotificationConfig", { task_id: taskId, id })).json.id).toBe(id);
    expect((await call("ListTaskPushNotificationConfigs", { task_id: taskId })).json.configs).toHaveLength(1);
    expect((await call("DeleteTaskPushNotificationConfig", { task_id: taskId, id })).json).toEqual({});
  });

  test("streams: every event validates", async () => {
    const stream = await call("SendStreamingMessage", {}, message("stream me"));
    expect(stream.json.length).toBeGreaterThan(1);
    // Subscribe to a task that waits, then cancel it: the stream ends with the CANCELED update.
    for (const id of ["SubscribeToTask", "SubscribeToTask_post"]) {
      const waiting = (await call("SendMessage", {}, { ...message("/wait"), configuration: { returnImmediately: true } })).json.task
        .id as string;
      const subscribed = call(id, { id: waiting }, id.endsWith("_post") ? {} : undefined);
      await new Promise((r) => setTimeout(r, 200));
      expect((await call("CancelTask", { id: waiting }, {})).status).toBe(200);
      const events = (await subscribed).json as any[];
      expect(events.at(-1).statusUpdate.status.state).toBe("TASK_STATE_CANCELED");
    }
  });
});
