// The client's event stream parser (client/sse.ts, written in place of the
// eventsource-parser package to keep the browser bundle small) against that
// package as the oracle: the same events (type and data) from the same text
// however it is cut into chunks, over every kind of line the format has and
// the three line ends, CRLF split between chunks included.
import fc from "fast-check";
import { createParser } from "eventsource-parser";
import { describe, expect, it } from "vitest";
import { createSseFeed, type SseEvent } from "../../../packages/runtime/src/client/sse.js";

function ours(chunks: readonly string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const feed = createSseFeed(Number.MAX_SAFE_INTEGER, (e) => events.push(e));
  for (const c of chunks) expect(feed.feed(c)).toBe(true);
  return events;
}

function oracle(chunks: readonly string[]): SseEvent[] {
  const events: SseEvent[] = [];
  const parser = createParser({ onEvent: (e) => events.push(e.event === undefined ? { data: e.data } : { event: e.event, data: e.data }) });
  for (const c of chunks) parser.feed(c);
  return events;
}

/** `text` cut at the given offsets. */
function cut(text: string, at: readonly number[]): string[] {
  const points = [...new Set(at.map((a) => a % (text.length + 1)))].sort((a, b) => a - b);
  const out: string[] = [];
  let from = 0;
  for (const p of points) {
    out.push(text.slice(from, p));
    from = p;
  }
  out.push(text.slice(from));
  return out;
}

const lines = fc.constantFrom(
  "",
  "",
  "data:",
  "data: x",
  "data:  two spaces",
  'data: {"a":1}',
  "data:x:y",
  "data",
  "event: error",
  "event:",
  "event:message",
  "event",
  "id: 7",
  "id",
  "retry: 10",
  "retry: x",
  ": comment",
  ":",
  "unknown: field",
  "datax: longer name",
  "events: longer name",
  "dat: shorter name",
  "Data: case",
  " data: leading space",
  "data: é 😀",
);
const ends = fc.constantFrom("\n", "\r", "\r\n");
const streams = fc.array(fc.tuple(lines, ends), { maxLength: 40 }).map((ls) => ls.map(([l, e]) => l + e).join(""));

describe("the client's SSE parser", () => {
  it("gives eventsource-parser's events for any stream, however chunked", () => {
    fc.assert(
      fc.property(streams, fc.array(fc.nat(), { maxLength: 12 }), (text, at) => {
        const chunks = cut(text, at);
        expect(ours(chunks)).toEqual(oracle([text]));
        expect(ours(chunks)).toEqual(oracle(chunks));
      }),
      { numRuns: 2000 },
    );
  });

  it("CRLF split between two chunks is one line end, a lone CR at a chunk's end is one too", () => {
    expect(ours(["data: a\r", "\ndata: b\r\n\r", "\n"])).toEqual([{ data: "a\nb" }]);
    expect(ours(["data: a\r", "\r"])).toEqual([{ data: "a" }]);
    expect(ours(["event: error\r", "", "\ndata: x\r\r"])).toEqual([{ event: "error", data: "x" }]);
  });

  it("a line over many chunks, and an unterminated last event is not dispatched", () => {
    const big = "x".repeat(10_000);
    const chunks = ["da", "ta: ", ...big.match(/.{1,7}/g)!, "\n", "\n", "data: last"];
    expect(ours(chunks)).toEqual([{ data: big }]);
  });
});
