/**
 * The gRPC binding of a service (and gRPC-Web and Connect with it) through
 * connect-es: the handler object becomes a connect-es service
 * implementation, served by `@connectrpc/connect-node` (or any connect-es
 * server adapter). connect-es does the HTTP/2 and the framing; this module
 * only adapts the context, checks what HTTP+JSON checks (REQUIRED fields,
 * the A2A version) and maps RpcError to ConnectError, the google.rpc details
 * (ErrorInfo first, BadRequest, ...) going out as the status details.
 *
 * Imported as `a2a-http/connect`, so that `@connectrpc/connect` is needed
 * only by those who serve gRPC.
 */
import { fromJson, type DescMessage, type DescService, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import { Code as ConnectCode, ConnectError, type HandlerContext as ConnectContext, type ServiceImpl } from "@connectrpc/connect";
import { A2A_DEFAULT_VERSIONS, A2A_TENANT, a2aVersionCheck, parseA2AExtensions, requestedA2AVersion } from "../a2a.js";
import { checkMessage } from "../transcoding/bounds.js";
import { checkRequired } from "../transcoding/required.js";
import { isRpcError, type ErrorDetail } from "../errors.js";
import { file_google_rpc_error_details } from "../gen/google/rpc/error_details_pb.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { applyContext, handlerOf, notImplemented, type AnyHandler } from "../server/call-setup.js";
import { errorAnswers } from "../server/error-answer.js";
import { onErrorOf, type ServerOptions } from "../server/options.js";
import { checkPathBound, pathBoundFields } from "../tenant.js";
import { bindContextSpan, traced } from "./traced.js";

/** Options of the gRPC binding: those of HTTP+JSON that apply (no body limit or media type: connect-es has its own). */
export type ConnectServiceOptions<Ctx extends HandlerContext = HandlerContext> = Pick<
  ServerOptions<Ctx, ConnectContext>,
  "context" | "a2aVersions" | "onError" | "logger" | "maxElements"
> & {
  /** Resolves status details of types other than google.rpc's, which are otherwise left out. */
  readonly registry?: Registry;
};

/** What generated adapters pass besides the user's options. */
export interface ConnectServiceImplOptions<Ctx extends HandlerContext = HandlerContext> extends ConnectServiceOptions<Ctx> {
  readonly profile?: "none" | "a2a";
}

/** google/rpc/error_details.proto's messages by type URL. */
const knownDetails = new Map<string, DescMessage>(
  file_google_rpc_error_details.messages.map((m) => [`type.googleapis.com/${m.typeName}`, m]),
);

/**
 * A connect-es implementation of `service` over the handler object, for the
 * rpcs of its route table (the generated `<Service>Routes`): register it
 * with `router.service(service, impl)`. Missing handlers, and rpcs without
 * an HTTP binding, answer UNIMPLEMENTED.
 */
export function connectServiceImpl<S extends DescService, Ctx extends HandlerContext = HandlerContext>(
  service: S,
  routes: readonly RouteBinding[],
  handlers: object,
  options: ConnectServiceImplOptions<Ctx> = {},
): Partial<ServiceImpl<S>> {
  const a2a = options.profile === "a2a";
  const versionError = a2aVersionCheck(options.a2aVersions ?? A2A_DEFAULT_VERSIONS);
  const errors = errorAnswers(onErrorOf(options), a2a);
  const contextFactory = options.context;
  const impl: Record<string, unknown> = {};
  // The fields some HTTP binding puts in one path segment, by rpc: checked here as the path checks them.
  const bound = new Map<string, ReturnType<typeof pathBoundFields>>();
  const pathBound = (route: RouteBinding) => {
    let f = bound.get(route.rpc);
    if (f === undefined) bound.set(route.rpc, (f = pathBoundFields(routes, route.rpc)));
    return f;
  };

  function toConnectError(e: unknown, rpc: string, phase: "unary" | "stream" | "context"): ConnectError {
    if (e instanceof ConnectError) return e;
    const err = errors.toRpcError(e, rpc, phase);
    const details = err.details.flatMap((d) => outgoingDetail(d, options.registry));
    // google.rpc.Code and connect-es's Code share their numbers.
    return new ConnectError(err.message, err.code as number as ConnectCode, undefined, details, e);
  }

  async function prepare(route: RouteBinding, fn: AnyHandler | undefined, request: Message, cctx: ConnectContext): Promise<HandlerContext> {
    if (fn === undefined) throw notImplemented(route, a2a);
    if (a2a) {
      // gRPC has no query string: the header or nothing.
      const err = versionError(requestedA2AVersion(cctx.requestHeader.get("a2a-version"), ""));
      if (err !== undefined) throw err;
    }
    // What HTTP+JSON refuses in JSON, refused here in the decoded message: gRPC binary can hold what JSON cannot (NaN).
    checkMessage(route.input, request, options.maxElements);
    checkRequired(route.input, request, route.json?.input?.complete);
    // The tenant is the request's field, one value for the context factory and the handler (tenant.ts).
    const t = a2a ? (request as unknown as Record<string, unknown>)[A2A_TENANT] : undefined;
    const tenant = typeof t === "string" && t !== "" ? t : undefined;
    if (a2a) checkPathBound(request, pathBound(route));
    const ctx: HandlerContext = {
      rpc: route.rpc,
      tenant,
      headers: cctx.requestHeader,
      signal: cctx.signal,
      responseHeaders: cctx.responseHeader,
      extensions: a2a ? parseA2AExtensions(cctx.requestHeader.get("a2a-extensions")) : [],
    };
    bindContextSpan(cctx, ctx, tenant);
    if (contextFactory) {
      const input = {
        rpc: route.rpc,
        route,
        headers: cctx.requestHeader,
        signal: cctx.signal,
        tenant,
        responseHeaders: cctx.responseHeader,
        native: cctx,
      };
      let refused = applyContext(contextFactory, input, ctx);
      if (refused instanceof Promise) refused = await refused;
      if (refused !== undefined) throw toConnectError(refused.error, route.rpc, "context");
    }
    return ctx;
  }

  for (const route of routes) {
    if (route.descriptor.parent.typeName !== service.typeName) {
      throw new Error(
        `connectServiceImpl: rpc ${route.rpc} of the route table belongs to ${route.descriptor.parent.typeName}, not ${service.typeName}`,
      );
    }
    const name = route.descriptor.localName;
    if (name in impl) continue;
    const fn = handlerOf(handlers, route.rpc);
    if (route.streaming === "server") {
      impl[name] = traced(route, async function* (request: Message, cctx: ConnectContext) {
        let iterable: AsyncIterable<unknown>;
        try {
          const ctx = await prepare(route, fn, request, cctx);
          iterable = fn!.call(handlers, request, ctx) as AsyncIterable<unknown>;
        } catch (e) {
          throw toConnectError(e, route.rpc, "unary");
        }
        const iterator = iterable[Symbol.asyncIterator]();
        let sent = false;
        let done = false;
        try {
          for (;;) {
            let r: IteratorResult<unknown>;
            try {
              r = await iterator.next();
            } catch (e) {
              done = true;
              // After the peer went away, the handler's failure is only the cancel's echo.
              if (cctx.signal.aborted && !isRpcError(e)) throw new ConnectError("request canceled", ConnectCode.Canceled);
              throw toConnectError(e, route.rpc, sent ? "stream" : "unary");
            }
            if (r.done) {
              done = true;
              return;
            }
            sent = true;
            // What connect-es throws in here (the peer went away) is not the handler's: it goes on as it is.
            yield r.value;
          }
        } finally {
          if (!done) {
            try {
              await iterator.return?.();
            } catch {
              // The handler's cleanup failed; nobody is listening any more.
            }
          }
        }
      });
    } else {
      impl[name] = traced(route, async (request: Message, cctx: ConnectContext) => {
        try {
          const ctx = await prepare(route, fn, request, cctx);
          return await fn!.call(handlers, request, ctx);
        } catch (e) {
          throw toConnectError(e, route.rpc, "unary");
        }
      });
    }
  }
  return impl as Partial<ServiceImpl<S>>;
}

/** A google.rpc.Status detail (JSON with `@type`) as connect-es sends it, or nothing for a type it cannot encode. */
function outgoingDetail(d: ErrorDetail, registry: Registry | undefined): { desc: DescMessage; value: Message }[] {
  const type = d["@type"];
  const desc = knownDetails.get(type) ?? (registry?.getMessage(type.slice(type.lastIndexOf("/") + 1)) as DescMessage | undefined);
  if (desc === undefined) return [];
  const { "@type": _, ...json } = d;
  try {
    return [{ desc, value: fromJson(desc, json as JsonValue, { ignoreUnknownFields: true }) }];
  } catch {
    return [];
  }
}

export { DEFAULT_GRPC_LIMITS, grpcServerOptions } from "./server-limits.js";
export type { GrpcServerLimits, GrpcServerOptions } from "./server-limits.js";
export { withAllowedHosts } from "./hosts.js";
export { withRequestBounds } from "./node-bounds.js";
export type { RequestBoundsOptions } from "./node-bounds.js";
/** A2A v0.3's gRPC service (`a2a.v1.A2AService`) on the v1.0 handlers, beside v1.0's on the same port (docs/a2a.md, "v0.3 clients"). */
export { a2aV03GrpcHandlers } from "../a2a-v03/grpc.js";
export type { A2AV03GrpcServices, GrpcHandlersOf } from "../a2a-v03/grpc.js";

/** google.rpc's detail messages, for reading status details with connect-es (`error.findDetails(ErrorInfoSchema)`). */
export { ErrorInfoSchema, BadRequestSchema, file_google_rpc_error_details } from "../gen/google/rpc/error_details_pb.js";
export type { ErrorInfo, BadRequest } from "../gen/google/rpc/error_details_pb.js";
