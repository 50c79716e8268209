/**
 * Our v0.3 client against our v0.3 server, over every rpc of the v0.3
 * service, on HTTP+JSON and on JSON-RPC, on the network (127.0.0.1): what the
 * client sends is what the handler gets, what the handler answers (messages,
 * stream events, A2A errors) is what the client gets.
 */
import { create, toJson, type DescMethod, type MessageInitShape } from "@bufbuild/protobuf";
import { getRequestListener } from "@hono/node-server";
import { Hono } from "hono";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { A2AErrors, RpcError, a2aErrorReason, type HandlerContext } from "a2a-http";
import type { A2AServiceHandlers } from "../../../gen/a2a-v0_3_http.js";
import { createA2AServiceClient } from "../../../gen/a2a-v0_3_http_client.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a-v0_3_http_hono.js";
import { A2AService, Role, TaskState, type MessageSchema } from "../../../gen/a2a-v0_3_pb.js";

type Rpc = keyof typeof A2AService.method;
type Init<M extends DescMethod, K extends "input" | "output"> = MessageInitShape<M[K]>;

/** One rpc's request and answer (for a stream, its events). */
type Case<M extends DescMethod> = {
  readonly request: Init<M, "input">;
} & (M["methodKind"] extends "server_streaming" ? { readonly events: Init<M, "output">[] } : { readonly answer: Init<M, "output"> });

type Cases = { readonly [R in Rpc]: Case<(typeof A2AService.method)[R]> };

const message: MessageInitShape<typeof MessageSchema> = {
  messageId: "m-1",
  contextId: "ctx-1",
  taskId: "t-1",
  role: Role.USER,
  content: [{ part: { case: "text", value: "héllo / wörld?&=" } }],
  metadata: { k: "v", n: 1 },
  extensions: ["https://ext.example/x"],
};
const task = {
  id: "t-1",
  contextId: "ctx-1",
  status: { state: TaskState.WORKING, update: message, timestamp: { seconds: 1_700_000_000n, nanos: 5_000_000 } },
  history: [message],
  metadata: { a: [1, "two"] },
};
const pushConfig = {
  name: "tasks/t-1/pushNotificationConfigs/c 1",
  pushNotificationConfig: {
    id: "c 1",
    url: "https://cb.example/hook",
    token: "tok",
    authentication: { schemes: ["Bearer"], credentials: "s" },
  },
};

const cases: Cases = {
  sendMessage: {
    request: {
      request: message,
      configuration: { acceptedOutputModes: ["text/plain"], historyLength: 3, blocking: true },
      metadata: { m: true },
    },
    answer: { payload: { case: "task", value: task } },
  },
  sendStreamingMessage: {
    request: { request: message },
    events: [
      { payload: { case: "task", value: task } },
      {
        payload: {
          case: "statusUpdate",
          value: { taskId: "t-1", contextId: "ctx-1", status: { state: TaskState.COMPLETED }, final: true },
        },
      },
    ],
  },
  getTask: { request: { name: "tasks/t-1", historyLength: 2 }, answer: task },
  cancelTask: { request: { name: "tasks/t-1" }, answer: { ...task, status: { state: TaskState.CANCELLED } } },
  taskSubscription: {
    request: { name: "tasks/t-1" },
    events: [
      {
        payload: {
          case: "artifactUpdate",
          value: { taskId: "t-1", artifact: { artifactId: "a", parts: [{ part: { case: "text", value: "x" } }] } },
        },
      },
      { payload: { case: "msg", value: message } },
    ],
  },
  createTaskPushNotificationConfig: {
    // The v0.3 proto's template is `task/*/pushNotificationConfigs` (sic).
    request: { parent: "task/t-1/pushNotificationConfigs", configId: "c 1", config: pushConfig },
    answer: pushConfig,
  },
  getTaskPushNotificationConfig: { request: { name: "tasks/t-1/pushNotificationConfigs/c 1" }, answer: pushConfig },
  listTaskPushNotificationConfig: {
    request: { parent: "tasks/t-1", pageSize: 10, pageToken: "p/2" },
    answer: { configs: [pushConfig, { name: "tasks/t-1/pushNotificationConfigs/c2" }], nextPageToken: "p/3" },
  },
  getAgentCard: { request: {}, answer: { name: "v0.3 agent", url: "http://127.0.0.1/", version: "1", protocolVersion: "0.3.0" } },
  deleteTaskPushNotificationConfig: { request: { name: "tasks/t-1/pushNotificationConfigs/c 1" }, answer: {} },
};

const rpcs = Object.keys(A2AService.method) as Rpc[];

/** What a handler got: the rpc and its request as ProtoJSON. */
const seen: { rpc: string; request: unknown }[] = [];
/** When true, every handler throws TASK_NOT_FOUND (a stream after its first event). */
let failing = false;

function handlers(): A2AServiceHandlers {
  const out: Record<string, unknown> = {};
  for (const rpc of rpcs) {
    const method: DescMethod = A2AService.method[rpc];
    const c = cases[rpc] as { answer?: unknown; events?: unknown[] };
    const record = (request: object) => seen.push({ rpc, request: toJson(method.input, request as never) });
    out[rpc] =
      method.methodKind === "server_streaming"
        ? async function* (request: object, _ctx: HandlerContext) {
            record(request);
            for (const e of c.events!) {
              yield e;
              if (failing) throw A2AErrors.taskNotFound("t-1");
            }
          }
        : (request: object, _ctx: HandlerContext) => {
            record(request);
            if (failing) throw A2AErrors.taskNotFound("t-1");
            return c.answer;
          };
  }
  return out as unknown as A2AServiceHandlers;
}

let server: Server;
let url: string;
beforeAll(async () => {
  const app = new Hono();
  app.route("/rest", a2aServiceHono(handlers()));
  app.route("/jsonrpc", a2aServiceJsonRpcHono(handlers()));
  server = createServer(getRequestListener(app.fetch));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
});

const transports = [
  { transport: "http+json", path: "/rest" },
  { transport: "jsonrpc", path: "/jsonrpc" },
] as const;

type AnyClient = Record<Rpc, (request: object) => unknown>;

describe.each(transports)("our v0.3 client and our v0.3 server over $transport", ({ transport, path }) => {
  const client = () => createA2AServiceClient({ baseUrl: url + path, transport }) as unknown as AnyClient;

  it("the case table covers every rpc of the v0.3 service", () => {
    expect(Object.keys(cases).sort()).toEqual([...rpcs].sort());
  });

  it.each(rpcs)("%s: the request arrives as sent, the answer as given", async (rpc) => {
    failing = false;
    seen.length = 0;
    const method: DescMethod = A2AService.method[rpc];
    const c = cases[rpc] as { request: object; answer?: object; events?: object[] };
    const result = client()[rpc](c.request);
    let got: unknown[];
    let want: unknown[];
    if (method.methodKind === "server_streaming") {
      got = [];
      for await (const e of result as AsyncIterable<object>) got.push(toJson(method.output, e as never));
      want = c.events!.map((e) => toJson(method.output, create(method.output, e as never)));
    } else {
      got = [toJson(method.output, (await result) as never)];
      want = [toJson(method.output, create(method.output, c.answer as never))];
    }
    expect(seen).toEqual([{ rpc, request: toJson(method.input, create(method.input, c.request as never)) }]);
    expect(got).toEqual(want);
  });

  it.each(rpcs)("%s: an A2A error arrives with its reason", async (rpc) => {
    failing = true;
    seen.length = 0;
    const method: DescMethod = A2AService.method[rpc];
    const c = cases[rpc] as { request: object };
    let error: unknown;
    try {
      const result = client()[rpc](c.request);
      if (method.methodKind === "server_streaming") for await (const _ of result as AsyncIterable<object>) void _;
      else await result;
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(RpcError);
    expect([(error as RpcError).message, a2aErrorReason(error)]).toEqual(["task not found", "TASK_NOT_FOUND"]);
    expect(seen.map((s) => s.rpc)).toEqual([rpc]);
  });
});
