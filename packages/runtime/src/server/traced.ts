// The bindings' side of tracing (telemetry.ts's hook): a call's span ended
// with its answer, and the handler called inside it. Reached only when
// telemetry is on; nothing here imports OpenTelemetry.
import type { AnyHandler } from "./call-setup.js";
import type { Answer, UniversalServerRequest, UniversalServerResponse } from "./request.js";
import type { RouteBinding } from "../route-binding.js";
import { bindSpan, headerNamesOf, spanOf, type ServerSpan, type Telemetry } from "../telemetry.js";
import { Code, codeFromHttpStatus } from "../errors.js";

/**
 * An HTTP+JSON call (`serve`, the routed request `req` of route `r`) in its
 * SERVER span, bound to the request so that the handler's context finds it
 * (context.ts), ended with the answer.
 */
export function tracedHttp(t: Telemetry, r: RouteBinding, req: UniversalServerRequest, serve: () => Answer): Answer {
  const span = t.serverCall({
    system: "http",
    service: r.descriptor.parent.typeName,
    method: r.descriptor.name,
    header: (name) => req.header(name),
    headerNames: () => headerNamesOf(req.headers),
    httpMethod: req.method,
    route: r.template,
    streaming: r.streaming === "server",
  });
  bindSpan(req, span);
  return endWithAnswer(span, span.run(serve));
}

/** `answer`, the span ended when it is known: its HTTP status, and an error answer's google.rpc code. */
function endWithAnswer(span: ServerSpan, answer: Answer): Answer {
  if (answer instanceof Promise) return answer.then((res) => ended(span, res));
  return ended(span, answer);
}

function ended(span: ServerSpan, res: UniversalServerResponse): UniversalServerResponse {
  if (res.status >= 400 && typeof res.body === "string") span.fail(codeOfErrorBody(res.body, res.status));
  span.end(res.status);
  return res;
}

/** The google.rpc code of an error answer of HTTP+JSON: its body's `status` name, else its HTTP status's code. */
function codeOfErrorBody(body: string, httpStatus: number): Code {
  try {
    const name = (JSON.parse(body) as { error?: { status?: unknown } } | null)?.error?.status;
    const code = typeof name === "string" ? (Code as unknown as Record<string, unknown>)[name] : undefined;
    if (typeof code === "number") return code as Code;
  } catch {
    // Not JSON (an answer reshaped by a dialect): the status says enough.
  }
  return codeFromHttpStatus(httpStatus);
}

/** `fn` of `handlers`, called inside the span its handler context is bound to (when there is one). */
export function tracedHandler(fn: AnyHandler, handlers: object): AnyHandler {
  return (request, ctx) => {
    const span = spanOf(ctx);
    return span === undefined ? fn.call(handlers, request, ctx) : span.handle(() => fn.call(handlers, request, ctx));
  };
}
