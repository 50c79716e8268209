// A JSON-RPC request object served in its span, when telemetry is on
// (telemetry.ts): one span per request object (a batch's each), named by the
// method it names, ended with its outcome's JSON-RPC error code.
import type { UniversalServerRequest } from "../server/request.js";
import { bindSpan, headerNamesOf, type Telemetry } from "../telemetry.js";
import type { JsonRpcBinding } from "./binding.js";
import type { Outcome } from "./call.js";

/** `serve` (the request object `item`'s), inside a span when `item` names a method of the binding. */
export function tracedOne(
  t: Telemetry,
  b: JsonRpcBinding,
  req: UniversalServerRequest,
  item: unknown,
  serve: () => Promise<Outcome>,
): Promise<Outcome> {
  const name = (item as { method?: unknown } | null)?.method;
  const method = typeof name === "string" ? (b.table.methods.get(name) ?? b.table.dialectMethods.get(name)?.method) : undefined;
  // Not a method: nothing to name a span by (the answer is the envelope's error).
  if (method === undefined) return serve();
  const span = t.serverCall({
    system: "jsonrpc",
    service: method.route.descriptor.parent.typeName,
    method: method.route.descriptor.name,
    header: (name) => req.header(name),
    headerNames: () => headerNamesOf(req.headers),
    httpMethod: req.method,
    streaming: method.streaming,
  });
  // The request object's handler context finds its span through the request (server/context.ts); a batch's run one at a time.
  bindSpan(req, span);
  return span.run(serve).then(
    (out) => {
      if (out.kind === "response") span.end(out.status ?? 200, "error" in out.response ? out.response.error.code : undefined);
      else span.end(out.kind === "stream" ? 200 : undefined);
      return out;
    },
    (e: unknown) => {
      span.fail(e);
      span.end();
      throw e;
    },
  );
}
