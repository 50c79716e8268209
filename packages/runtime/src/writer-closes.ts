// How an SSE writer tells the iterator it drains that it will call the
// iterator's return() when its client leaves: the iterator (the engine's
// TaskStream) then need not also watch the request's AbortSignal for that,
// which on Node costs an AbortController of about a kilobyte per open stream.

/** The method, on an iterator, that hears the writer's promise. */
export const WRITER_CLOSES: unique symbol = Symbol("a2a-http.writerCloses");

/** An iterator that can do without watching the request's signal. */
export interface WriterCloses {
  [WRITER_CLOSES](): void;
}

/** Tells `iterator` (if it listens) that return() will be called when the client leaves. */
export function tellWriterCloses(iterator: object): void {
  (iterator as Partial<WriterCloses>)[WRITER_CLOSES]?.();
}
