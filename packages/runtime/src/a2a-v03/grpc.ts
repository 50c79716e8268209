// A2A v0.3's gRPC binding (`a2a.v1.A2AService` of a2a-v0_3.proto) on the
// v1.0 handlers: each v0.3 rpc is a v1.0 rpc whose request and answer are
// translated through ProtoJSON (the v0.3 message as ProtoJSON, v0.3's
// ProtoJSON to v1.0's by proto-json.ts, the HTTP+JSON dialect's own
// translation, then v1.0's message; answers the other way). The generated
// v0.3 connect binding serves the handlers this makes, beside the v1.0
// service on the same port: it checks what every binding checks (the
// version, REQUIRED fields, the element cap, the context factory) and turns
// RpcErrors into gRPC statuses. The handlers see a v1.0 request with
// `a2aDialect` "0.3", as on the other bindings (push configs made so are
// marked v0.3, push.ts).
import {
  create,
  fromJson,
  toJson,
  type DescMessage,
  type DescMethodServerStreaming,
  type DescMethodUnary,
  type DescService,
  type JsonValue,
  type Message,
  type MessageInitShape,
  type MessageShape,
} from "@bufbuild/protobuf";
import { A2AErrors } from "../a2a.js";
import { badRequest, type RpcError } from "../errors.js";
import type { HandlerContext } from "../route-binding.js";
import { checkPathValue } from "../tenant.js";
import { checkRequired } from "../transcoding/required.js";
import { withV03CardFields } from "./card.js";
import { A2A_V03, copyPresent, servesV03, type JsonObject } from "./common.js";
import {
  createPushConfigIn,
  emptyOut,
  pushConfigListOut,
  pushConfigOut,
  sendRequestIn,
  sendResponseOut,
  streamResponseOut,
  taskOut,
} from "./proto-json.js";

/** The services {@link a2aV03GrpcHandlers} joins: A2A v1.0's and v0.3's, as their generated `_pb` files export them. */
export interface A2AV03GrpcServices<V1 extends DescService = DescService, V03 extends DescService = DescService> {
  /** `lf.a2a.v1.A2AService` (a2a.proto): the service the handlers implement. */
  readonly v1: V1;
  /** `a2a.v1.A2AService` (a2a-v0_3.proto): the service served to v0.3 clients. */
  readonly v03: V03;
}

/** Handlers of a service's rpcs, by local name, as a generated connect binding (`<service>Connect`) takes them. */
export type GrpcHandlersOf<S extends DescService> = {
  [K in keyof S["method"]]?: S["method"][K] extends DescMethodUnary<infer I, infer O>
    ? (request: MessageShape<I>, context: HandlerContext) => Promise<MessageShape<O>>
    : S["method"][K] extends DescMethodServerStreaming<infer I, infer O>
      ? (request: MessageShape<I>, context: HandlerContext) => AsyncIterable<MessageShape<O>>
      : (request: Message, context: HandlerContext) => unknown;
};

const V1_SERVICE = "lf.a2a.v1.A2AService";
const V03_SERVICE = "a2a.v1.A2AService";

/** How one v0.3 rpc is done: the v1.0 rpc (local name), its request from the v0.3 request's ProtoJSON, and the answer's translation. */
interface Mapping {
  readonly v1: string;
  readonly request: (json: JsonObject) => JsonObject;
  readonly answer: (json: JsonValue) => JsonValue;
}

/** An INVALID_PARAMS error for a malformed resource name, naming its field. */
function badName(field: string, value: string, form: string): RpcError {
  const description = `${JSON.stringify(value)} is not ${form}`;
  return A2AErrors.invalidParams(`${field}: ${description}`, [badRequest([{ field, description }])]);
}

const stringAt = (json: JsonObject, field: string): string => (typeof json[field] === "string" ? (json[field] as string) : "");

const TASK_NAME = /^tasks\/([^/]+)$/;
const CONFIG_NAME = /^tasks\/([^/]+)\/pushNotificationConfigs\/([^/]+)$/;

/** The task id of a `tasks/{id}` name (field `field`), which must be one, with an id a path may hold (tenant.ts). */
function taskIdOf(name: string, field: string): string {
  const m = TASK_NAME.exec(name);
  if (m === null) throw badName(field, name, "a task's name, tasks/{id}");
  checkPathValue(field, m[1]!);
  return m[1]!;
}

/** `{taskId, id}` of a `tasks/{id}/pushNotificationConfigs/{configId}` name. */
function configOf(name: string, field: string): JsonObject {
  const m = CONFIG_NAME.exec(name);
  if (m === null) throw badName(field, name, "a push config's name, tasks/{id}/pushNotificationConfigs/{configId}");
  checkPathValue(field, m[1]!);
  checkPathValue(field, m[2]!);
  return { taskId: m[1]!, id: m[2]! };
}

/**
 * CreateTaskPushNotificationConfigRequest `{parent, configId, config: {name,
 * pushNotificationConfig}}`: the task is `parent`'s (else, without one, the
 * config's name's); a config name, when given, must name the same task.
 */
function createConfigIn(json: JsonObject): JsonObject {
  const parent = stringAt(json, "parent");
  const config = json["config"];
  const name = typeof config === "object" && config !== null && !Array.isArray(config) ? stringAt(config, "name") : "";
  const named = name === "" ? undefined : /^tasks\/([^/]+)\/pushNotificationConfigs\/[^/]*$/.exec(name)?.[1];
  if (name !== "" && named === undefined) {
    throw badName("config.name", name, "a push config's name, tasks/{id}/pushNotificationConfigs/{configId}");
  }
  if (parent === "" && named !== undefined) {
    checkPathValue("config.name", named);
    return createPushConfigIn(named, json);
  }
  const taskId = taskIdOf(parent, "parent");
  if (named !== undefined && named !== taskId) {
    throw badName("config.name", name, `a push config of the parent's task (${JSON.stringify(taskId)})`);
  }
  return createPushConfigIn(taskId, json);
}

/** v0.3's rpcs by local name. GetAgentCard is v1.0's extended card (v0.3 maps `agent/getAuthenticatedExtendedCard` to it), listing gRPC. */
const MAPPINGS: Readonly<Record<string, Mapping>> = {
  sendMessage: { v1: "sendMessage", request: sendRequestIn, answer: sendResponseOut },
  sendStreamingMessage: { v1: "sendStreamingMessage", request: sendRequestIn, answer: streamResponseOut },
  getTask: {
    v1: "getTask",
    request: (r) => copyPresent(r, { id: taskIdOf(stringAt(r, "name"), "name") }, ["historyLength"]),
    answer: taskOut,
  },
  cancelTask: { v1: "cancelTask", request: (r) => ({ id: taskIdOf(stringAt(r, "name"), "name") }), answer: taskOut },
  taskSubscription: { v1: "subscribeToTask", request: (r) => ({ id: taskIdOf(stringAt(r, "name"), "name") }), answer: streamResponseOut },
  createTaskPushNotificationConfig: { v1: "createTaskPushNotificationConfig", request: createConfigIn, answer: pushConfigOut },
  getTaskPushNotificationConfig: {
    v1: "getTaskPushNotificationConfig",
    request: (r) => configOf(stringAt(r, "name"), "name"),
    answer: pushConfigOut,
  },
  listTaskPushNotificationConfig: {
    v1: "listTaskPushNotificationConfigs",
    request: (r) => copyPresent(r, { taskId: taskIdOf(stringAt(r, "parent"), "parent") }, ["pageSize", "pageToken"]),
    answer: pushConfigListOut,
  },
  deleteTaskPushNotificationConfig: {
    v1: "deleteTaskPushNotificationConfig",
    request: (r) => configOf(stringAt(r, "name"), "name"),
    answer: emptyOut,
  },
  getAgentCard: { v1: "getExtendedAgentCard", request: () => ({}), answer: (card) => withV03CardFields(card, { grpc: true }) },
};

/** The handler's context for the v1.0 rpc: the binding's, with that rpc and the v0.3 dialect (getters and the factory's fields kept). */
function v03Context(ctx: HandlerContext, rpc: string): HandlerContext {
  return Object.create(ctx, {
    rpc: { value: rpc, enumerable: true },
    a2aDialect: { value: A2A_V03, enumerable: true },
  }) as HandlerContext;
}

type AnyHandler = (request: Message, context: HandlerContext) => unknown;

/**
 * The handlers of A2A v0.3's gRPC service (`a2a.v1.A2AService`) over the
 * handlers of v1.0's (`lf.a2a.v1.A2AService`, e.g. an agent of
 * `create<Service>Agent`), for the generated v0.3 connect binding, served
 * beside the v1.0 one on the same port:
 *
 *     import { A2AService } from "./gen/a2a_pb.js";
 *     import { A2AService as A2AServiceV03 } from "./gen/a2a-v0_3_pb.js";
 *     import { a2aServiceConnect as a2aServiceV03Connect } from "./gen/a2a-v0_3_http_connect.js";
 *     const v03 = a2aV03GrpcHandlers(agent, { v1: A2AService, v03: A2AServiceV03 });
 *     connectNodeAdapter({ routes: (router) => { a2aServiceConnect(agent)(router); if (v03) a2aServiceV03Connect(v03)(router); } });
 *
 * Each takes the v0.3 request, translates it to the v1.0 request (v0.3's
 * HTTP+JSON translation, on their ProtoJSON; resource names such as
 * `tasks/{id}` become ids, a malformed one is INVALID_PARAMS naming its
 * field), checks v1.0's REQUIRED fields, calls the v1.0 handler with
 * `a2aDialect` "0.3" in its context, and translates its answer (each event of
 * a stream) back. Errors pass through as they are thrown. A v1.0 rpc missing
 * from the handlers leaves its v0.3 rpc out (the binding answers
 * UNIMPLEMENTED). Undefined when the handlers serve no v0.3 (an agent made
 * with `a2aV03: false`). Also pass `a2aV03Grpc: true` to the card handler,
 * so that v0.3 clients find the gRPC interface in the card.
 */
export function a2aV03GrpcHandlers<V1 extends DescService, V03 extends DescService>(
  v1Handlers: object,
  services: A2AV03GrpcServices<V1, V03>,
): GrpcHandlersOf<V03> | undefined {
  const { v1, v03 } = services;
  if (v1.typeName !== V1_SERVICE) throw new TypeError(`a2aV03GrpcHandlers: services.v1 is ${v1.typeName}, not ${V1_SERVICE}`);
  if (v03.typeName !== V03_SERVICE) throw new TypeError(`a2aV03GrpcHandlers: services.v03 is ${v03.typeName}, not ${V03_SERVICE}`);
  if (!servesV03(true, v1.typeName, undefined, v1Handlers)) return undefined;
  const h = v1Handlers as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const method of v03.methods) {
    const m = Object.hasOwn(MAPPINGS, method.localName) ? MAPPINGS[method.localName] : undefined;
    const target = m === undefined ? undefined : v1.methods.find((x) => x.localName === m.v1);
    if (m === undefined || target === undefined || target.methodKind !== method.methodKind) {
      throw new TypeError(`a2aV03GrpcHandlers: no v1.0 rpc for ${v03.typeName}.${method.name}`);
    }
    const fn = h[m.v1];
    if (typeof fn !== "function") continue;
    const call = fn as AnyHandler;
    const requestIn = (request: Message): Message => {
      const json = m.request(toJson(method.input, request) as JsonObject);
      return readV1Request(target.input, json);
    };
    const answerOut = (answer: unknown): Message => {
      const json = toJson(target.output, create(target.output, answer as MessageInitShape<DescMessage>));
      return fromJson(method.output, m.answer(json), { ignoreUnknownFields: true });
    };
    out[method.localName] =
      method.methodKind === "server_streaming"
        ? async function* (request: Message, ctx: HandlerContext) {
            const events = call.call(v1Handlers, requestIn(request), v03Context(ctx, m.v1)) as AsyncIterable<unknown>;
            for await (const event of events) yield answerOut(event);
          }
        : async (request: Message, ctx: HandlerContext) =>
            answerOut(await call.call(v1Handlers, requestIn(request), v03Context(ctx, m.v1)));
  }
  return out as GrpcHandlersOf<V03>;
}

/** The v1.0 request from its ProtoJSON, with its REQUIRED fields checked as every binding checks them. */
function readV1Request(schema: DescMessage, json: JsonObject): Message {
  let message: Message;
  try {
    message = fromJson(schema, json, { ignoreUnknownFields: true });
  } catch (e) {
    throw A2AErrors.invalidParams(`${schema.typeName}: ${e instanceof Error ? e.message : String(e)}`);
  }
  checkRequired(schema, message);
  return message;
}
