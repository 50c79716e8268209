// A client that stops reading: its answer (an SSE stream or a large unary
// body) waits in the server's buffers for good, with the handler and the
// connection held. Backpressure already bounds what one connection buffers
// (SSE waits for `drain` after each chunk beyond the socket's high-water
// mark; a unary answer is one string), so what is left is time: a connection
// whose pending output makes no progress for `ms` is closed.

/** The part of a net.Socket the guard reads. */
interface SocketLike {
  readonly writableLength: number;
  /** Bytes given to the socket, pending ones included: less writableLength, what has gone out. */
  readonly bytesWritten: number;
  readonly destroyed: boolean;
  destroy(): void;
  once(event: "close", listener: () => void): unknown;
}

/** Default: a connection with output pending and none of it taken for 30 s is closed. */
export const DEFAULT_WRITE_STALL_MS = 30_000;

const guarded = new WeakSet<object>();

/**
 * Closes `socket` once output has been pending on it, without any of it being
 * written out, for `ms` (checked every `ms`, so it takes between `ms` and
 * 2 `ms`). Installed once per connection; idle connections (nothing pending)
 * and slow but moving readers are left alone.
 */
export function closeWhenStalled(socket: unknown, ms = DEFAULT_WRITE_STALL_MS): void {
  const s = socket as SocketLike | null | undefined;
  if (s === null || typeof s !== "object" || typeof s.writableLength !== "number" || guarded.has(s) || s.destroyed || !(ms > 0)) return;
  guarded.add(s);
  let sent = -1;
  const timer = setInterval(() => {
    const now = s.bytesWritten - s.writableLength;
    // Output pending, and not a byte of it gone out since the last check.
    if (s.writableLength > 0 && now === sent) {
      clearInterval(timer);
      s.destroy();
      return;
    }
    sent = now;
  }, ms);
  timer.unref?.();
  s.once("close", () => clearInterval(timer));
}
