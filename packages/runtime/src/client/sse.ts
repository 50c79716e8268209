import { createParser, type EventSourceMessage } from "eventsource-parser";
import { Code, RpcError } from "../errors.js";

/**
 * Feeds decoded SSE text to eventsource-parser, holding every event to
 * `maxEventSize` characters of its lines as sent (field names, comments and
 * `data:` prefixes included, line ends not). The parser's own bound looks at
 * its buffer after each whole chunk, so an event that ends inside the chunk
 * can pass it, and a flood of short `data:` lines grows its data string
 * line by line before it stops them; counting the raw lines here is exact
 * and keeps an over-size event from ever being buffered whole.
 */
export interface SseFeed {
  /**
   * Feeds one decoded chunk; events go to `onEvent`. Returns false when an
   * event passed the bound: the text up to that point was fed, the rest not.
   */
  feed(text: string): boolean;
}

export function createSseFeed(maxEventSize: number, onEvent: (e: EventSourceMessage) => void): SseFeed {
  const parser = createParser({ onEvent });
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
        parser.feed(text);
        return true;
      }
      parser.feed(text.slice(0, over));
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
): AsyncGenerator<EventSourceMessage> {
  const decoder = new TextDecoder();
  const queue: EventSourceMessage[] = [];
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
