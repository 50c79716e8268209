/**
 * TaskStream, the iterator the stream rpcs answer, alone: the cases the
 * engine suite reaches only on a shared store (a gap filled from the store,
 * an event seen twice) or seldom (return() and throw() at each point, next()
 * called again before the last one settled, a subscriber cut off).
 */
import { describe, expect, it } from "vitest";
import { EventHub } from "../../../packages/runtime/src/agent/event-hub.js";
import type { StoredEvent } from "../../../packages/runtime/src/agent/store.js";
import { TaskStream, type Opened } from "../../../packages/runtime/src/agent/task-stream.js";
import { POLL } from "../../../packages/runtime/src/iterator-poll.js";
import { tellWriterCloses } from "../../../packages/runtime/src/writer-closes.js";

type Ev = StoredEvent["event"];
const ev = (name: string) => ({ name }) as unknown as Ev;
const nameOf = (e: unknown) => (e as { name: string }).name;
const ends = (e: Ev) => nameOf(e).startsWith("end");

function setup(opts: { first?: unknown[]; afterSeq?: number; stored?: StoredEvent[]; follow?: boolean; limit?: number } = {}) {
  const hub = new EventHub(opts.limit ?? 100);
  const sub = hub.subscribe("t");
  const reads: number[] = [];
  let opens = 0;
  const controller = new AbortController();
  const opened: Opened = {
    first: opts.first ?? ["task"],
    sub,
    follow:
      opts.follow === false
        ? undefined
        : {
            sub,
            afterSeq: opts.afterSeq ?? 1,
            events: async (after) => {
              reads.push(after);
              return (opts.stored ?? []).filter((e) => e.seq > after);
            },
          },
  };
  const stream = new TaskStream(
    async () => {
      opens++;
      return opened;
    },
    ends,
    () => controller.signal,
  );
  const publish = (seq: number, name: string) => hub.publish("t", { seq, event: ev(name) });
  return { hub, stream, publish, reads, controller, opens: () => opens, subscribed: () => hub.has("t") };
}

async function drain(stream: AsyncIterable<unknown>): Promise<string[]> {
  const got: string[] = [];
  for await (const e of stream) got.push(typeof e === "string" ? e : nameOf(e));
  return got;
}

/**
 * Reads a stream by polling it (iterator-poll.ts), as the node writer does:
 * what it got, and its error if it threw. Fails if a wake comes from within
 * a poll.
 */
function pollDrain(stream: TaskStream): Promise<{ got: string[]; error?: unknown }> {
  return new Promise((resolve, reject) => {
    const got: string[] = [];
    let polling = false;
    const run = () => {
      if (polling) return reject(new Error("woken from within a poll"));
      for (;;) {
        let r: IteratorResult<unknown> | undefined;
        polling = true;
        try {
          r = stream[POLL](run);
        } catch (error) {
          return resolve({ got, error });
        } finally {
          polling = false;
        }
        if (r === undefined) return;
        if (r.done) return resolve({ got });
        got.push(typeof r.value === "string" ? r.value : nameOf(r.value));
      }
    };
    run();
  });
}

describe("TaskStream polled (no promise per event)", () => {
  it("gives the first events (opening through next()), then the subscriber's in order, queued or published later, and ends", async () => {
    const { stream, publish, subscribed } = setup();
    publish(2, "a");
    const got = pollDrain(stream);
    await new Promise((r) => setTimeout(r, 5));
    publish(3, "b");
    publish(4, "c");
    await new Promise((r) => setTimeout(r, 5));
    publish(5, "end");
    publish(6, "after");
    expect(await got).toEqual({ got: ["task", "a", "b", "c", "end"] });
    expect(subscribed()).toBe(false);
  });

  it("wakes its poller after the publisher's call, not within it", async () => {
    const { stream, publish } = setup();
    expect(stream[POLL](() => {})).toBeUndefined();
    await new Promise((r) => setTimeout(r, 1));
    expect(stream[POLL](() => {})).toEqual({ value: "task", done: false });
    let woken = 0;
    expect(stream[POLL](() => woken++)).toBeUndefined();
    publish(2, "a");
    publish(3, "b");
    expect(woken).toBe(0);
    await Promise.resolve();
    expect(woken).toBe(1);
    expect(stream[POLL](() => woken++)).toEqual({ value: ev("a"), done: false });
    expect(stream[POLL](() => woken++)).toEqual({ value: ev("b"), done: false });
  });

  it("a subscriber cut off gets what was queued, then the error", async () => {
    const s = setup({ limit: 2 });
    const got = pollDrain(s.stream);
    await new Promise((r) => setTimeout(r, 5));
    s.publish(2, "a");
    s.publish(3, "b");
    s.publish(4, "c");
    const { got: events, error } = await got;
    expect(events).toEqual(["task", "a", "b"]);
    expect(String(error)).toMatch(/fell more than 2 events behind/);
  });

  it("return() or the client leaving while a poll waits wakes the poller, which then gets the end", async () => {
    for (const leave of ["return", "abort"] as const) {
      const s = setup();
      const got = pollDrain(s.stream);
      await new Promise((r) => setTimeout(r, 5));
      if (leave === "return") await s.stream.return();
      else s.controller.abort();
      expect(await got).toEqual({ got: ["task"] });
      expect(s.subscribed()).toBe(false);
    }
  });
});

describe("TaskStream", () => {
  it("gives the first events, then the subscriber's in order, and ends with the event that ends it", async () => {
    const { stream, publish, subscribed } = setup();
    publish(2, "a");
    publish(3, "b");
    publish(4, "end");
    publish(5, "after");
    expect(await drain(stream)).toEqual(["task", "a", "b", "end"]);
    expect(subscribed()).toBe(false);
  });

  it("waits for events published later", async () => {
    const { stream, publish } = setup();
    const got = drain(stream);
    await new Promise((r) => setTimeout(r, 5));
    publish(2, "a");
    await new Promise((r) => setTimeout(r, 5));
    publish(3, "end");
    expect(await got).toEqual(["task", "a", "end"]);
  });

  it("drops an event seen already, and fills a gap from the store (once, up to the end), read by next() or polled", async () => {
    for (const read of [drain, async (t: TaskStream) => (await pollDrain(t)).got]) {
      const stored = [2, 3, 4, 5].map((seq) => ({ seq, event: ev(seq === 5 ? "end" : `s${seq}`) }));
      const { stream, publish, reads } = setup({ stored });
      publish(1, "old");
      publish(2, "s2");
      publish(4, "s4");
      publish(3, "s3");
      publish(5, "end");
      expect(await read(stream)).toEqual(["task", "s2", "s3", "s4", "end"]);
      expect(reads).toEqual([2]);
    }
  });

  it("without a follow, ends after the first events", async () => {
    const { stream, publish, subscribed } = setup({ follow: false, first: ["message"] });
    publish(2, "a");
    expect(await drain(stream)).toEqual(["message"]);
    expect(subscribed()).toBe(false);
  });

  it("ends when the client leaves while it waits", async () => {
    const { stream, controller, subscribed } = setup();
    expect((await stream.next()).value).toBe("task");
    const waiting = stream.next();
    controller.abort();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(subscribed()).toBe(false);
  });

  it("told that its writer calls return() when the client leaves, it waits without asking for the signal, and return() ends the wait", async () => {
    const hub = new EventHub(100);
    const sub = hub.subscribe("t");
    let asked = 0;
    const stream = new TaskStream(
      async () => ({ first: ["task"], sub, follow: { sub, afterSeq: 1, events: async () => [] } }),
      ends,
      () => {
        asked++;
        return new AbortController().signal;
      },
    );
    tellWriterCloses(stream);
    expect((await stream.next()).value).toBe("task");
    const waiting = stream.next();
    await new Promise((r) => setTimeout(r, 5));
    await stream.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(asked).toBe(0);
    expect(hub.has("t")).toBe(false);
  });

  it("next() called before the last settled answers in order", async () => {
    const { stream, publish } = setup();
    const a = stream.next();
    const b = stream.next();
    const c = stream.next();
    publish(2, "a");
    publish(3, "end");
    const got = await Promise.all([a, b, c, stream.next()]);
    expect(got.map((r) => (r.done ? "done" : typeof r.value === "string" ? r.value : nameOf(r.value)))).toEqual([
      "task",
      "a",
      "end",
      "done",
    ]);
  });

  it("return() before the first next() opens nothing; after it, closes the subscription", async () => {
    const s1 = setup();
    expect(await s1.stream.return(7)).toEqual({ value: 7, done: true });
    expect(await s1.stream.next()).toEqual({ value: undefined, done: true });
    expect(s1.opens()).toBe(0);

    const s2 = setup();
    await s2.stream.next();
    const waiting = s2.stream.next();
    await s2.stream.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(s2.subscribed()).toBe(false);
  });

  it("return() while it opens closes the subscription it opened", async () => {
    const s = setup();
    const first = s.stream.next();
    await s.stream.return();
    expect(await first).toEqual({ value: undefined, done: true });
    expect(s.subscribed()).toBe(false);
  });

  it("throw() ends it with the error", async () => {
    const s = setup();
    await s.stream.next();
    await expect(s.stream.throw(new Error("x"))).rejects.toThrow("x");
    expect(await s.stream.next()).toEqual({ value: undefined, done: true });
    expect(s.subscribed()).toBe(false);
  });

  it("a subscriber cut off gets what was queued, then the error", async () => {
    const s = setup({ limit: 2 });
    s.publish(2, "a");
    s.publish(3, "b");
    s.publish(4, "c");
    const got: string[] = [];
    await expect(
      (async () => {
        for await (const e of s.stream) got.push(typeof e === "string" ? e : nameOf(e));
      })(),
    ).rejects.toThrow(/fell more than 2 events behind/);
    expect(got).toEqual(["task", "a", "b"]);
  });

  it("an error opening it is the first next()'s, or the first poll's", async () => {
    const refusing = () =>
      new TaskStream(
        async () => {
          throw new Error("refused");
        },
        ends,
        () => new AbortController().signal,
      );
    const stream = refusing();
    await expect(stream.next()).rejects.toThrow("refused");
    expect(await stream.next()).toEqual({ value: undefined, done: true });
    const { got, error } = await pollDrain(refusing());
    expect(got).toEqual([]);
    expect(String(error)).toMatch(/refused/);
  });
});
