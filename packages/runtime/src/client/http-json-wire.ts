// HTTP+JSON on the wire (google.api.http): each call takes the binding of its
// rpc that fits the request, with path, query and body filled from the
// request's ProtoJSON; a non-2xx answer is a google.rpc.Status; a stream is
// server-sent events whose `event: error` (or a bare `{"error": ...}`) is one.
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import type { EventSourceMessage } from "eventsource-parser";
import { A2A_MEDIA_TYPE, JSON_MEDIA_TYPE, isA2ASubscribeMethod } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import { answerJson, jsonOrUndefined, readBounded } from "./body.js";
import type { ClientField, ClientRoute } from "../route-binding.js";
import type { ClientOptions, ClientProfile } from "./options.js";
import { appendQuery, choosePlan, compileBinding, type BindingPlan } from "./plan.js";
import { rpcErrorFromResponse, rpcErrorFromStatusJson } from "./status.js";
import { SSE_MEDIA_TYPE, type ClientWire, type RpcWire } from "./wire-client.js";
import { isJsonObject } from "../json-object.js";

export function httpJsonWire(options: ClientOptions, profile: ClientProfile): ClientWire {
  const a2a = profile.profile === "a2a";
  const baseUrl = options.baseUrl.replace(/\/+$/, "");
  const maxResponseSize = options.maxResponseSize;
  return {
    contentType: a2a ? A2A_MEDIA_TYPE : JSON_MEDIA_TYPE,
    acceptUnary: a2a ? `${A2A_MEDIA_TYPE}, ${JSON_MEDIA_TYPE}` : JSON_MEDIA_TYPE,
    acceptStream: SSE_MEDIA_TYPE,
    rpc(bindings) {
      const first = bindings[0]!;
      const rpc = first.rpc;
      const plans = bindings.map((b) => compileBinding(b, clientMethod(b, a2a)));
      /** A top-level `"error"` key in a stream event is an error unless the output has such a field. */
      const outputHasErrorField = first.output.fields.some((f) => f.jsonName === "error" || f.name === "error");
      /** The answer's JSON as the output message's: the response_body field's value goes into that field. */
      const asOutput = (chosen: BindingPlan, json: JsonValue): JsonValue =>
        chosen.responseJsonName === undefined ? json : { [chosen.responseJsonName]: json };
      const streamError = (json: unknown, data: string, status: number): RpcError =>
        rpcErrorFromStatusJson(json, undefined) ??
        new RpcError(Code.UNKNOWN, `${rpc}: stream error: ${data.slice(0, 200)}`, [], { httpStatus: status });

      const wire: RpcWire<BindingPlan> = {
        request(json: JsonObject) {
          const { plan: chosen, path } = choosePlan(rpc, plans, json);
          let body: string | undefined;
          let url = baseUrl + path;
          if (chosen.body === "*") {
            body = JSON.stringify(json);
          } else {
            if (chosen.body !== "") {
              const { jsonName, field } = chosen.body;
              body = JSON.stringify(json[jsonName] ?? defaultJson(field));
              delete json[jsonName];
            }
            const query: string[] = [];
            appendQuery(rpc, first.input, json, "", query);
            if (query.length > 0) url += `?${query.join("&")}`;
          }
          return { binding: chosen.binding, method: chosen.method, url, body, key: chosen };
        },
        answerError: (res) => rpcErrorFromResponse(res, maxResponseSize),
        answer(text, status, chosen) {
          // An empty body is the empty message (google.protobuf.Empty answers with none).
          if (/^\s*$/.test(text)) return {};
          return asOutput(chosen, answerJson(rpc, text, status, "the response") as JsonValue);
        },
        event(e: EventSourceMessage, status, chosen) {
          if (e.event === "error") throw streamError(jsonOrUndefined(e.data), e.data, status);
          if (e.data === "") return undefined;
          const json = answerJson(rpc, e.data, status, "a stream event") as JsonValue;
          if (!outputHasErrorField && isJsonObject(json) && json["error"] !== undefined) {
            throw streamError(json, e.data, status);
          }
          return asOutput(chosen, json);
        },
        notAStream: async (res) => {
          throw await notAStream(rpc, res);
        },
      };
      return wire as RpcWire<unknown>;
    },
  };
}

/** The error for a 2xx answer to a streaming call that is not an event stream (an HTML page, JSON, nothing). */
async function notAStream(rpc: string, res: Response): Promise<RpcError> {
  let snippet = "";
  try {
    snippet = (await readBounded(res, 4096, "the body")).replace(/\s+/g, " ").trim().slice(0, 200);
  } catch {
    res.body?.cancel().catch(() => {});
  }
  const type = res.headers.get("content-type");
  return new RpcError(
    Code.INTERNAL,
    `${rpc}: expected a text/event-stream answer, got HTTP ${res.status} with ${type === null ? "no Content-Type" : `Content-Type ${type}`}${snippet === "" ? "" : `: ${snippet}`}`,
    [],
    { httpStatus: res.status },
  );
}

/** The HTTP method the client sends for a binding. */
function clientMethod(b: ClientRoute, a2a: boolean): string {
  // A2A: a subscribe rpc's proto says GET, the spec text POST, and every SDK
  // server takes POST (Java only POST); ours take both.
  if (a2a && b.method === "GET" && isA2ASubscribeMethod(b.descriptor.name)) return "POST";
  // A custom rule of kind "*" takes any method.
  if (b.method === "*") return b.body === "" ? "GET" : "POST";
  return b.method;
}

/** The JSON a body field has when it is unset. */
function defaultJson(field: ClientField): JsonValue {
  switch (field.fieldKind) {
    case "list":
      return [];
    case "map":
    case "message":
      return field.fieldKind === "message" && /^google\.protobuf\.(?!Struct$|Empty$|Any$)/.test(field.message.typeName) ? null : {};
    case "enum":
      return field.enum.values[0]?.name ?? 0;
    case "scalar":
      switch (field.scalar) {
        case 9 /* STRING */:
        case 12 /* BYTES */:
          return "";
        case 8 /* BOOL */:
          return false;
        case 3 /* INT64 */:
        case 4 /* UINT64 */:
        case 6 /* FIXED64 */:
        case 16 /* SFIXED64 */:
        case 18 /* SINT64 */:
          return "0";
        default:
          return 0;
      }
  }
}
