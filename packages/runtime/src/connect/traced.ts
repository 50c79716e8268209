// The gRPC binding's calls in their spans when telemetry is on (telemetry.ts):
// a SERVER span per call, child of the caller's trace context, ended with
// its status (a stream's, when the stream ends).
import type { HandlerContext as ConnectContext } from "@connectrpc/connect";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { bindSpan, headerNamesOf, spanOf, telemetry } from "../telemetry.js";

type Impl = (request: never, cctx: ConnectContext) => unknown;

/** `impl` (a unary or server-streaming method of the connect-es implementation), each call in its span. */
export function traced<F extends Impl>(route: RouteBinding, impl: F): F {
  const streaming = route.streaming === "server";
  return ((request: never, cctx: ConnectContext) => {
    const t = telemetry.on;
    if (t === undefined) return impl(request, cctx);
    const span = t.serverCall({
      system: "grpc",
      service: route.descriptor.parent.typeName,
      method: route.descriptor.name,
      header: (name) => cctx.requestHeader.get(name) ?? undefined,
      headerNames: () => headerNamesOf(cctx.requestHeader),
      streaming,
    });
    bindSpan(cctx, span);
    let out: unknown;
    try {
      out = span.handle(() => impl(request, cctx));
    } catch (e) {
      span.end();
      throw e;
    }
    if (out instanceof Promise) {
      const end = () => span.end();
      out.then(end, end);
      return out;
    }
    // A stream: the span ends when it does.
    span.end();
    return out;
  }) as F;
}

/** Ties the handler's context to the call's span (found through connect-es's context), with the tenant. */
export function bindContextSpan(cctx: ConnectContext, ctx: HandlerContext, tenant: string | undefined): void {
  if (telemetry.on === undefined) return;
  const span = spanOf(cctx);
  if (span === undefined) return;
  bindSpan(ctx, span);
  if (tenant !== undefined) span.annotate({ tenant });
}
