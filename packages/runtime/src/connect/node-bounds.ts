// The element cap of transcoding/bounds.ts on the gRPC port, before connect-es
// decodes: a wrapper of the node request listener (connect-es's
// connectNodeAdapter) that reads a request's body (at most readMaxBytes and
// its envelope), counts its message on the wire (wire-bounds.ts), and then
// hands connect-es the same request with the bytes it read. connect-es has
// no hook between reading the bytes and decoding them.
import type { DescMessage, DescService } from "@bufbuild/protobuf";
import { DEFAULT_BODY_LIMIT } from "../server/options.js";
import { checkJson, DEFAULT_MAX_ELEMENTS } from "../transcoding/bounds.js";
import { Code, isRpcError, type RpcError } from "../errors.js";
import { checkWire } from "./wire-bounds.js";

/** The members of a node:http or node:http2 (compat) request the guard reads. */
interface NodeRequestLike extends AsyncIterable<Uint8Array> {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly url?: string | undefined;
  /**
   * stream.Readable's iterator: connect-node 2.3 reads the body with
   * `iterator({ destroyOnReturn: false })`, 2.1 with `for await`; both are
   * replayed.
   */
  iterator?(options?: { destroyOnReturn?: boolean }): AsyncIterator<Uint8Array>;
  destroy?(): unknown;
}

/** The members of a node:http or node:http2 (compat) response the guard writes. */
interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string): unknown;
}

export interface RequestBoundsOptions {
  /** The services the listener serves: their methods' input messages are what the bodies hold. */
  readonly services: readonly DescService[];
  /** As the server option of that name: default 100 000. */
  readonly maxElements?: number | undefined;
  /** The largest message connect-es takes (its `readMaxBytes`); a larger body is left to it to refuse. Default 4 MiB. */
  readonly readMaxBytes?: number | undefined;
}

/**
 * Wraps a node:http2 (or node:http) request listener, such as
 * `connectNodeAdapter(...)`, with the element cap of the other bindings
 * (`maxElements`, default 100 000), checked before connect-es decodes the
 * request message: a binary one (gRPC, gRPC-Web, Connect's protobuf) is
 * counted on the wire, a JSON one (Connect's JSON, gRPC+json) parsed and
 * walked as the JSON bindings walk a body (forbidden keys and non-finite
 * numbers are INVALID_ARGUMENT, as there).
 * Past the cap the call gets RESOURCE_EXHAUSTED (gRPC: `grpc-status: 8`;
 * Connect: 429), nested messages deeper than 100 INVALID_ARGUMENT; nothing
 * is decoded. Unary and server-streaming methods only (a client stream is
 * passed on as it comes). A compressed message is inflated for the count
 * (at most readMaxBytes) with node:zlib.
 *
 *     withRequestBounds(connectNodeAdapter({ routes, ...o.adapter }), { services: [A2AService], readMaxBytes: o.adapter.readMaxBytes })
 */
export function withRequestBounds<Listener extends (req: never, res: never) => unknown>(
  listener: Listener,
  options: RequestBoundsOptions,
): Listener {
  const maxElements = options.maxElements ?? DEFAULT_MAX_ELEMENTS;
  const readMaxBytes = options.readMaxBytes ?? DEFAULT_BODY_LIMIT;
  const inputs = new Map<string, DescMessage>();
  for (const s of options.services) {
    for (const m of s.methods) {
      if (m.methodKind === "unary" || m.methodKind === "server_streaming") inputs.set(`/${s.typeName}/${m.name}`, m.input);
    }
  }
  const next = listener as unknown as (req: NodeRequestLike, res: NodeResponseLike) => unknown;
  const guarded = (req: NodeRequestLike, res: NodeResponseLike): void => {
    const input = inputs.get((req.url ?? "").split("?", 1)[0]!);
    const framing = input === undefined ? undefined : framingOf(req.headers);
    if (framing === undefined) {
      next(req, res);
      return;
    }
    void readUpTo(req, readMaxBytes + 5).then(
      ({ chunks, rest }) => {
        let refusal: RpcError | undefined;
        try {
          refusal = check(input!, framing, chunks, req.headers, maxElements, readMaxBytes);
        } catch {
          // A fault of the count itself: the call goes on to connect-es, whose
          // decoded message the connect binding still checks (checkMessage),
          // rather than the process dying of an unhandled rejection.
        }
        if (refusal === undefined) return void next(replay(req, chunks, rest), res);
        try {
          refuse(framing, res, refusal);
        } catch {
          // The stream is gone (the client reset it): nobody is left to answer.
        }
      },
      // The client went away while sending: connect-es would find the same.
      () => next(replay(req, [], undefined), res),
    );
  };
  return guarded as unknown as Listener;
}

/** How the body carries its message: in 5-byte envelopes (gRPC, gRPC-Web, Connect streaming) or bare (Connect unary). */
type Framing = { kind: "enveloped"; grpc: boolean; type: string; json: boolean } | { kind: "bare"; json: boolean };

function framingOf(headers: NodeRequestLike["headers"]): Framing | undefined {
  const type = String(headers["content-type"] ?? "")
    .split(";", 1)[0]!
    .trim()
    .toLowerCase();
  switch (type) {
    case "application/grpc":
    case "application/grpc+proto":
    case "application/grpc-web":
    case "application/grpc-web+proto":
      return { kind: "enveloped", grpc: true, type, json: false };
    case "application/grpc+json":
    case "application/grpc-web+json":
      return { kind: "enveloped", grpc: true, type, json: true };
    case "application/connect+proto":
      return { kind: "enveloped", grpc: false, type, json: false };
    case "application/connect+json":
      return { kind: "enveloped", grpc: false, type, json: true };
    case "application/proto":
      return { kind: "bare", json: false };
    case "application/json":
      return { kind: "bare", json: true };
    default:
      return undefined;
  }
}

const utf8 = new TextDecoder();

/**
 * One message: counted on the wire (binary), or parsed and walked as the
 * JSON bindings walk a body (JSON: protobuf-es's fromJson, not JSON.parse,
 * is what costs). Text that is not JSON is left to connect-es to refuse.
 */
function checkOne(input: DescMessage, bytes: Uint8Array, json: boolean, maxElements: number): void {
  if (!json) return checkWire(input, bytes, maxElements);
  let value: unknown;
  try {
    value = JSON.parse(utf8.decode(bytes));
  } catch {
    return;
  }
  checkJson(value, maxElements);
}

/**
 * Reads the body until it ends or passes `limit` bytes; what is left unread
 * stays in `rest`, an iterator that leaves the request whole when returned
 * (the replay decides whether an early stop destroys it).
 */
async function readUpTo(
  req: NodeRequestLike,
  limit: number,
): Promise<{ chunks: Uint8Array[]; rest: AsyncIterator<Uint8Array> | undefined }> {
  const it = req.iterator !== undefined ? req.iterator({ destroyOnReturn: false }) : req[Symbol.asyncIterator]();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const r = await it.next();
    if (r.done) return { chunks, rest: undefined };
    chunks.push(r.value);
    size += r.value.length;
    if (size > limit) return { chunks, rest: it };
  }
}

/**
 * The same request, whose body is the bytes read and then the rest, however
 * it is read: `for await` (connect-node 2.1) or `iterator(options)`
 * (connect-node 2.3, whose body is read that way only: a replay of
 * Symbol.asyncIterator alone left it an empty body, "missing input message").
 */
function replay(req: NodeRequestLike, chunks: Uint8Array[], rest: AsyncIterator<Uint8Array> | undefined): NodeRequestLike {
  async function* body(destroyOnReturn: boolean): AsyncGenerator<Uint8Array> {
    let ended = false;
    try {
      yield* chunks;
      if (rest !== undefined) for (let r = await rest.next(); !r.done; r = await rest.next()) yield r.value;
      ended = true;
    } finally {
      await rest?.return?.();
      // connect-es stopped reading before the end of a body longer than what was
      // read (a message over readMaxBytes). As Readable's own iterator would:
      // `for await` destroys the request, which resets the HTTP/2 stream (else
      // a client still sending would wait for good); connect-node 2.3 asks it
      // not to, and ends the stream itself after its answer.
      if (!ended && destroyOnReturn && rest !== undefined) req.destroy?.();
    }
  }
  // Everything else (headers, the socket, the HTTP/2 stream, events) is the request's own.
  return new Proxy(req, {
    get(target, key) {
      if (key === Symbol.asyncIterator) return () => body(true);
      if (key === "iterator") return (options?: { destroyOnReturn?: boolean }) => body(options?.destroyOnReturn !== false);
      const v = Reflect.get(target, key, target) as unknown;
      return typeof v === "function" ? (v as (...a: unknown[]) => unknown).bind(target) : v;
    },
  });
}

function check(
  input: DescMessage,
  framing: Framing,
  chunks: Uint8Array[],
  headers: NodeRequestLike["headers"],
  maxElements: number,
  readMaxBytes: number,
): RpcError | undefined {
  const body = concat(chunks);
  // Over the size limit: connect-es refuses it before decoding.
  if (body.length > readMaxBytes + 5) return undefined;
  try {
    if (framing.kind === "bare") {
      const encoding = String(headers["content-encoding"] ?? "identity");
      const message = inflate(body, encoding, readMaxBytes);
      if (message !== undefined) checkOne(input, message, framing.json, maxElements);
      return undefined;
    }
    const encoding = String(headers[framing.grpc ? "grpc-encoding" : "connect-content-encoding"] ?? "identity");
    for (let at = 0; at + 5 <= body.length; ) {
      const flags = body[at]!;
      const length = ((body[at + 1]! << 24) | (body[at + 2]! << 16) | (body[at + 3]! << 8) | body[at + 4]!) >>> 0;
      const payload = body.subarray(at + 5, at + 5 + length);
      at += 5 + length;
      // 0x80: gRPC-Web trailers or Connect's end of stream, not a message.
      if (flags & 0x80) continue;
      const message = flags & 1 ? inflate(payload, encoding, readMaxBytes) : payload;
      if (message !== undefined) checkOne(input, message, framing.json, maxElements);
    }
    return undefined;
  } catch (e) {
    if (isRpcError(e)) return e;
    throw e;
  }
}

function concat(chunks: Uint8Array[]): Uint8Array {
  if (chunks.length === 1) return chunks[0]!;
  const out = new Uint8Array(chunks.reduce((n, c) => n + c.length, 0));
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

interface Zlib {
  gunzipSync(b: Uint8Array, o: { maxOutputLength: number }): Uint8Array;
  brotliDecompressSync(b: Uint8Array, o: { maxOutputLength: number }): Uint8Array;
}

/**
 * A compressed message inflated for the count, or undefined when it cannot
 * be (an encoding connect-es does not take, more than `max` bytes, bad data:
 * connect-es refuses those itself). node:zlib is looked up when needed, so
 * the module imports nothing of node's.
 */
function inflate(bytes: Uint8Array, encoding: string, max: number): Uint8Array | undefined {
  if (encoding === "identity") return bytes;
  const zlib = (globalThis as { process?: { getBuiltinModule?: (id: string) => unknown } }).process?.getBuiltinModule?.("node:zlib") as
    | Zlib
    | undefined;
  if (zlib === undefined) return undefined;
  try {
    if (encoding === "gzip") return zlib.gunzipSync(bytes, { maxOutputLength: max });
    if (encoding === "br") return zlib.brotliDecompressSync(bytes, { maxOutputLength: max });
  } catch {
    return undefined;
  }
  return undefined;
}

function refuse(framing: Framing, res: NodeResponseLike, err: RpcError): void {
  const code = err.code === Code.RESOURCE_EXHAUSTED ? "resource_exhausted" : "invalid_argument";
  // The error in the request's own protocol: a gRPC client reads a status, a Connect client a Connect error.
  if (framing.kind === "enveloped" && framing.grpc) {
    // A trailers-only answer: gRPC and gRPC-Web clients read the status from the headers.
    res.writeHead(200, { "content-type": framing.type, "grpc-status": String(err.code), "grpc-message": encodeURIComponent(err.message) });
    res.end();
    return;
  }
  // Connect's error body; its HTTP status for the code (resource_exhausted: 429, invalid_argument: 400).
  const body = JSON.stringify({ code, message: err.message });
  res.writeHead(code === "resource_exhausted" ? 429 : 400, {
    "content-type": "application/json",
    "content-length": String(new TextEncoder().encode(body).length),
  });
  res.end(body);
}
