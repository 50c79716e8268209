import { Code, RpcError } from "../errors.js";

/** One server-sent event: its type (`event:`, undefined for the default) and its `data:` lines joined with "\n". */
export interface SseEvent {
  readonly event?: string | undefined;
  readonly data: string;
}

/**
 * The event stream format (WHATWG HTML, "Parsing an event stream") over
 * decoded text fed in chunks: a line ends at CR, LF or CRLF (a CRLF may be
 * split between two chunks); an empty line dispatches the event when it had
 * a `data:` line; a line starting with ":" is a comment; a field's value
 * loses one leading space; a line without ":" is a field with an empty
 * value; `id`, `retry` and unknown fields are ignored (the client neither
 * reconnects nor resumes). A leading BOM is the decoder's (TextDecoder drops
 * it). Written here rather than taken from a package: these few lines are
 * all a browser bundle of the client needs of one.
 */
function sseParser(onEvent: (e: SseEvent) => void): (text: string) => void {
  /** The start of a line not yet ended (a rope of chunks, joined once the line ends). */
  let pending = "";
  /** The last chunk ended with CR: a LF first in the next one is that CR's. */
  let skipLf = false;
  let event: string | undefined;
  let data: string | undefined;

  /** The line `text.slice(start, end)`, read where it lies: no copy of a line but its value. */
  function line(text: string, start: number, end: number): void {
    if (start === end) {
      if (data !== undefined) onEvent(event === undefined ? { data } : { event, data });
      event = undefined;
      data = undefined;
      return;
    }
    // Only `data` and `event` matter: a field is its name up to ":" or the line's end.
    const c = text.charCodeAt(start);
    let isData: boolean;
    if (c === 100 && text.startsWith("data", start) && (start + 4 === end || text.charCodeAt(start + 4) === 58)) isData = true;
    else if (c === 101 && text.startsWith("event", start) && (start + 5 === end || text.charCodeAt(start + 5) === 58)) isData = false;
    else return;
    let from = start + (isData ? 5 : 6);
    if (from < end && text.charCodeAt(from) === 32) from++;
    const value = from < end ? text.slice(from, end) : "";
    if (isData) data = data === undefined ? value : `${data}\n${value}`;
    else event = value === "" ? undefined : value;
  }

  return (chunk) => {
    if (chunk === "") return;
    let i = 0;
    if (skipLf) {
      skipLf = false;
      if (chunk.charCodeAt(0) === 10) i = 1;
    }
    let lf = chunk.indexOf("\n", i);
    let cr = chunk.indexOf("\r", i);
    while (lf >= 0 || cr >= 0) {
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (pending === "") line(chunk, i, end);
      else {
        const whole = pending + chunk.slice(i, end);
        pending = "";
        line(whole, 0, whole.length);
      }
      i = end + 1;
      if (end === cr) {
        if (i === chunk.length) skipLf = true;
        else if (chunk.charCodeAt(i) === 10) i++;
      }
      if (lf >= 0 && lf < i) lf = chunk.indexOf("\n", i);
      if (cr >= 0 && cr < i) cr = chunk.indexOf("\r", i);
    }
    if (i < chunk.length) pending += chunk.slice(i);
  };
}

/**
 * Feeds decoded SSE text to {@link sseParser}, holding every event to
 * `maxEventSize` characters of its lines as sent (field names, comments and
 * `data:` prefixes included, line ends not). Counting the raw lines before
 * they are parsed is exact and keeps an over-size event from ever being
 * buffered whole, a flood of short `data:` lines included.
 */
export interface SseFeed {
  /**
   * Feeds one decoded chunk; events go to `onEvent`. Returns false when an
   * event passed the bound: the text up to that point was fed, the rest not.
   */
  feed(text: string): boolean;
}

export function createSseFeed(maxEventSize: number, onEvent: (e: SseEvent) => void): SseFeed {
  const parse = sseParser(onEvent);
  /** Characters of the event read so far (since the last empty line). */
  let size = 0;
  /** The last character ended a line, so a line end now is an empty line. */
  let eol = true;
  /** The last character was CR: a LF now belongs to it (CRLF). */
  let cr = false;

  /** Index at which the bound is passed, or -1. */
  function scan(text: string): number {
    const n = text.length;
    let i = 0;
    const noCr = text.indexOf("\r") < 0;
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 10 || c === 13) {
        if (c === 10 && cr) {
          cr = false;
          i++;
          continue;
        }
        cr = c === 13;
        if (eol) size = 0;
        eol = true;
        i++;
        continue;
      }
      // A run of line content, up to the next line end.
      let end: number;
      if (noCr) {
        end = text.indexOf("\n", i);
        if (end < 0) end = n;
      } else {
        end = i + 1;
        while (end < n && text.charCodeAt(end) !== 10 && text.charCodeAt(end) !== 13) end++;
      }
      size += end - i;
      eol = false;
      cr = false;
      if (size > maxEventSize) return end - (size - maxEventSize);
      i = end;
    }
    return -1;
  }

  return {
    feed(text) {
      const over = scan(text);
      if (over < 0) {
        parse(text);
        return true;
      }
      parse(text.slice(0, over));
      return false;
    },
  };
}

/** How a stream's reads are stopped and their failures named (the call's deadline and signal). */
export interface SseCall {
  mapError(e: unknown): unknown;
  /** The error of a stop by the caller's signal or the deadline, if that is what ended the body. */
  stopped(): unknown;
}

/**
 * The events of an SSE body, chunk by chunk through {@link createSseFeed}.
 * A read failure throws what `call` maps it to; a body cut short by the
 * caller's signal or the deadline is not a normal end; an event without its
 * closing blank line is dropped, as EventSource does; an event over
 * `maxEventSize` is RESOURCE_EXHAUSTED. Cancelling the reader when the
 * consumer stops early is the caller's (it owns the connection).
 */
export async function* readSseEvents(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  call: SseCall,
  maxEventSize: number,
  rpc: string,
  status: number,
): AsyncGenerator<SseEvent> {
  const decoder = new TextDecoder();
  const queue: SseEvent[] = [];
  const sse = createSseFeed(maxEventSize, (e) => void queue.push(e));
  for (;;) {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (e) {
      throw call.mapError(e);
    }
    if (chunk.done) {
      const stopped = call.stopped();
      if (stopped) throw stopped;
      return;
    }
    const within = sse.feed(decoder.decode(chunk.value, { stream: true }));
    for (let i = 0; i < queue.length; i++) yield queue[i]!;
    queue.length = 0;
    if (!within) {
      throw new RpcError(Code.RESOURCE_EXHAUSTED, `${rpc}: a server-sent event exceeds ${maxEventSize} characters`, [], {
        httpStatus: status,
      });
    }
  }
}
