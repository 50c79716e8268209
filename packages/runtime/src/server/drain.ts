// Answering before the request body is read. When a connection is closed
// with request bytes still unread, the kernel resets it, and a client that
// is still sending gets the reset (EPIPE, ECONNRESET) instead of the answer:
// an over-limit 413, or an early 401 or A2A-Version 400. Reading and
// dropping the rest first, within bounds, makes the answer and the close
// arrive in order. Node streams only, by their events (no `node:` import, so
// the fetch adapter can use it on @hono/node-server's request too).

/** How much of an unread body is read and dropped before an answer; past it, the answer goes anyway and the connection closes. */
export const DISCARD_MAX_BYTES = 64 * 1024 * 1024;
/** How long a slow sender is waited for, at most, before the answer goes anyway. */
export const DISCARD_MAX_MS = 5_000;

/** The members of node's IncomingMessage this module uses (listeners typed as node types them). */
export interface IncomingLike {
  readonly headers: Record<string, string | string[] | undefined>;
  readonly readableEnded: boolean;
  readonly destroyed: boolean;
  readonly complete?: boolean;
  readonly readableFlowing?: boolean | null;
  // biome-ignore lint/suspicious/noExplicitAny: node's own signature, so that IncomingMessage is assignable
  on(event: string, listener: (...args: any[]) => void): unknown;
  // biome-ignore lint/suspicious/noExplicitAny: as above
  off(event: string, listener: (...args: any[]) => void): unknown;
  resume(): unknown;
}

/** The members of node's ServerResponse this module uses. */
export interface OutgoingLike {
  readonly shouldKeepAlive?: boolean;
}

/**
 * Reads and drops the rest of a request body, up to {@link DISCARD_MAX_BYTES}
 * (counting `alreadyRead`) and {@link DISCARD_MAX_MS}; resolves when it is
 * read, or at once when the declared length is past the bound (the
 * connection is closed after the answer then).
 */
export function discardRest(req: IncomingLike, alreadyRead: number): Promise<void> {
  if (req.readableEnded || req.destroyed) return Promise.resolve();
  const declared = Number(req.headers["content-length"]);
  if (declared > DISCARD_MAX_BYTES) return Promise.resolve();
  return new Promise<void>((resolve) => {
    let bytes = alreadyRead;
    const done = () => {
      clearTimeout(timer);
      req.off("data", onData);
      req.off("end", done);
      req.off("error", done);
      req.off("close", done);
      resolve();
    };
    const onData = (chunk: { length: number }) => {
      bytes += chunk.length;
      if (bytes > DISCARD_MAX_BYTES) done();
    };
    const timer = setTimeout(done, DISCARD_MAX_MS);
    req.on("data", onData);
    req.on("end", done);
    req.on("error", done);
    req.on("close", done);
    req.resume();
  });
}

/**
 * Before an answer is written: when the connection will close after it (the
 * client said `Connection: close`, or spoke HTTP/1.0) and the request's body
 * was never read, reads and drops it (see {@link discardRest}). Undefined
 * when there is nothing to wait for; on a kept-alive connection Node drops an
 * unread body itself after the answer.
 */
export function drainBeforeClose(req: IncomingLike, res: OutgoingLike): Promise<void> | undefined {
  if (res.shouldKeepAlive !== false || req.readableEnded || req.destroyed || req.complete === true) return undefined;
  // Someone reads it already (a body parser, a Request's stream): not ours to drain.
  if (req.readableFlowing === true) return undefined;
  const length = req.headers["content-length"];
  const chunked = req.headers["transfer-encoding"] !== undefined;
  if (!chunked && (length === undefined || Number(length) === 0)) return undefined;
  return discardRest(req, 0);
}
