// The handler context of the bindings served from a UniversalServerRequest
// (HTTP+JSON, JSON-RPC), and what the user's context factory sees.
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { bindSpan, spanOf, telemetry } from "../telemetry.js";
import type { UniversalServerRequest } from "./request.js";

/** What the context factory gets. */
export interface ContextInput<Native = unknown> {
  /**
   * The rpc being served, lowerCamel. Undefined in JSON-RPC's first call,
   * made on the headers alone before the body is read (the method is in the
   * body): a factory refuses a missing or bad credential there, and is
   * called again with the rpc before any handler runs (docs/security.md).
   */
  readonly rpc: string | undefined;
  /** The matched binding; undefined when `rpc` is. */
  readonly route: RouteBinding | undefined;
  readonly headers: Headers;
  readonly signal: AbortSignal;
  /**
   * The tenant the request acts for (A2A profile: the effective tenant, see
   * docs/security.md): the `{tenant}` path variable, else the request's
   * `tenant` field (HTTP+JSON query or body, JSON-RPC params, gRPC field);
   * the handler gets the same one. Without the A2A profile: the `{tenant}`
   * path variable, when the route has one.
   */
  readonly tenant: string | undefined;
  /**
   * Headers the answer carries, whether the factory returns or throws (e.g.
   * `WWW-Authenticate` on a 401, see `wwwAuthenticate`).
   */
  readonly responseHeaders: Headers;
  /** The framework's request (Express `Request`, `FastifyRequest`, Hono `Context`, or a fetch `Request`). */
  readonly native: Native;
}

/** The fields a context factory adds to {@link HandlerContext}. */
export type ContextExtra<Ctx extends HandlerContext> = Omit<Ctx, keyof HandlerContext>;

/** The context handlers get; `headers` and `responseHeaders` are built on first use. */
export class ServerContext implements HandlerContext {
  private response: Headers | undefined;
  private combined: AbortSignal | undefined;
  /** Set by the runtime only, for a request of another version's dialect (see HandlerContext). */
  a2aDialect: string | undefined = undefined;

  constructor(
    readonly rpc: string,
    /** Set by the runtime only: HTTP+JSON learns a tenant that only the body names after the first context call. */
    public tenant: string | undefined,
    private readonly req: UniversalServerRequest,
    readonly extensions: readonly string[],
    /** The unary deadline (`unaryTimeoutMs`), when there is one. */
    private readonly deadline?: AbortSignal,
  ) {
    // A traced call's span is bound to its request (server/traced.ts): the handler's context belongs to it too.
    if (telemetry.on !== undefined) {
      const span = spanOf(req);
      if (span !== undefined) {
        bindSpan(this, span);
        if (tenant !== undefined) span.annotate({ tenant });
      }
    }
  }

  /** Built on first use: most unary handlers never look at it. */
  get signal(): AbortSignal {
    if (this.deadline === undefined) return this.req.signal;
    return (this.combined ??= AbortSignal.any([this.req.signal, this.deadline]));
  }

  get headers(): Headers {
    return this.req.headers;
  }

  get responseHeaders(): Headers {
    return (this.response ??= new Headers());
  }

  get waitUntil(): ((promise: Promise<unknown>) => void) | undefined {
    return this.req.waitUntil;
  }

  /** The response headers, if a handler touched them. */
  touchedHeaders(): Headers | undefined {
    return this.response;
  }

  /** What the context factory sees for this context's rpc and tenant; its response headers are the context's. */
  factoryInput<Native>(route: RouteBinding): ContextInput<Native> {
    const ctx = this;
    return {
      rpc: this.rpc,
      route,
      headers: this.req.headers,
      signal: this.req.signal,
      tenant: this.tenant,
      get responseHeaders() {
        return ctx.responseHeaders;
      },
      native: this.req.native as Native,
    };
  }
}
