// What every binding does to set a call up before its handler runs, written
// once for HTTP+JSON (http-json.ts), JSON-RPC (jsonrpc/server.ts) and gRPC
// (connect/index.ts): finding the handler and the answer when there is none,
// the context factory's call and the merge of its fields, the HTTP status of
// its refusal, and the Content-Type rule of a request body. No `node:`
// imports: the server core bundles for browsers and Workers.
import type { Message } from "@bufbuild/protobuf";
import { A2AErrors, mediaTypeOf } from "../a2a.js";
import { Code, RpcError } from "../errors.js";
import type { HandlerContext, RouteBinding } from "../route-binding.js";
import { telemetry } from "../telemetry.js";
import type { ContextInput } from "./context.js";
import { tracedHandler } from "./traced.js";

/** A handler of the handler object, as the bindings call it. */
export type AnyHandler = (request: Message, context: HandlerContext) => unknown;

/**
 * The handler object's handler of `rpc`, or undefined when it has none; with
 * telemetry on, called inside its call's span (server/traced.ts).
 */
export function handlerOf(handlers: object, rpc: string): AnyHandler | undefined {
  const fn = (handlers as Record<string, unknown>)[rpc];
  if (typeof fn !== "function") return undefined;
  return telemetry.on === undefined ? (fn as AnyHandler) : tracedHandler(fn as AnyHandler, handlers);
}

/**
 * What a missing handler answers, on every binding: UNIMPLEMENTED naming the
 * rpc as the generated stubs do (`rpc <service>.<Method> is not
 * implemented`); under the A2A profile with the ErrorInfo every A2A error
 * carries (UNSUPPORTED_OPERATION, the method named).
 */
export function notImplemented(route: RouteBinding, a2a: boolean): RpcError {
  const m = route.descriptor;
  const message = `rpc ${m.parent.typeName}.${m.name} is not implemented`;
  return a2a ? A2AErrors.notImplemented(m.name, message) : new RpcError(Code.UNIMPLEMENTED, message);
}

/** The context factory (`ServerOptions.context`) as the bindings call it. */
export type ContextFactory<Native> = (input: ContextInput<Native>) => unknown;

/** A context factory's refusal: what it threw, or rejected with. */
export class ContextRefusal {
  constructor(readonly error: unknown) {}
}

/**
 * The context factory's call and the merge of what it gives, every binding's
 * rule: the factory sees `input`; the fields it returns (a promise's, once
 * settled) go onto `ctx`, replacing those of the same name (an earlier
 * call's); a falsy value adds nothing. Synchronous when the factory is:
 * undefined once merged, or a {@link ContextRefusal} when it throws (answered
 * as an error of the "context" phase, with the headers it set); a promise of
 * either when it returns one. A merge that fails (a field the context cannot
 * take) throws, or rejects: an error of the call, not a refusal.
 */
export function applyContext<Native>(
  factory: ContextFactory<Native>,
  input: ContextInput<Native>,
  ctx: object,
): ContextRefusal | undefined | Promise<ContextRefusal | undefined> {
  let extra: unknown;
  try {
    extra = factory(input);
  } catch (e) {
    return new ContextRefusal(e);
  }
  if (extra instanceof Promise) return settled(extra, ctx);
  if (extra) Object.assign(ctx, extra);
  return undefined;
}

async function settled(pending: Promise<unknown>, ctx: object): Promise<ContextRefusal | undefined> {
  let extra: unknown;
  try {
    extra = await pending;
  } catch (e) {
    return new ContextRefusal(e);
  }
  if (extra) Object.assign(ctx, extra);
  return undefined;
}

/**
 * The HTTP status of a context factory's refusal on a binding whose answers
 * are otherwise HTTP 200 (JSON-RPC): a refused credential is worth a status
 * that proxies and clients act on, 401 for UNAUTHENTICATED and 403 for
 * PERMISSION_DENIED; undefined for any other error. (HTTP+JSON's statuses
 * follow from the code anyway; gRPC's status is the code.)
 */
export function refusalStatus(err: RpcError): number | undefined {
  return err.code === Code.UNAUTHENTICATED ? 401 : err.code === Code.PERMISSION_DENIED ? 403 : undefined;
}

/** The request body media types a binding takes, and what its refusals say. */
export interface BodyTypes {
  /** Whether a media type (lower-case, without parameters: `mediaTypeOf`) is taken. */
  accepts(mediaType: string): boolean;
  /** What a refusal tells the client to send, e.g. `application/json`. */
  readonly send: string;
  /** The refusal's message for a request without Content-Type. */
  readonly missing: string;
  /** The refusal outside the A2A profile (under it, CONTENT_TYPE_NOT_SUPPORTED). */
  refuse(message: string): Error;
}

/**
 * The Content-Type rule of a request body, every binding's: a body without
 * a type is refused (a browser posts one cross-site without a preflight, as
 * it does text/plain, so taking it would let any page post to the agent),
 * and so is a type the binding does not take. Under the A2A profile the
 * refusal is CONTENT_TYPE_NOT_SUPPORTED, otherwise the binding's own.
 */
export function checkBodyType(contentType: string | undefined, types: BodyTypes, a2a: boolean): void {
  if (contentType !== undefined && types.accepts(mediaTypeOf(contentType))) return;
  const message =
    contentType === undefined ? types.missing : `Content-Type ${JSON.stringify(contentType)} is not supported; send ${types.send}`;
  throw a2a ? A2AErrors.contentTypeNotSupported(contentType ?? "", message) : types.refuse(message);
}
