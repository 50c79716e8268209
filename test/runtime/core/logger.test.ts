// The runtime's logger (issue 40 item 4's groundwork): the console logger
// prints what the runtime printed before it had one; the JSON logger writes
// one object per line; the `logger` options of the servers, the push sender
// and openStore (test/runtime/agent/open-store.test.ts) route through it.
import { afterEach, describe, expect, test, vi } from "vitest";
import { consoleLogger, createFetchHandler, jsonLogger, loggerFromEnv, type Logger } from "a2a-http";
import { createPushSender } from "a2a-http/push";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";

/** A logger that keeps its events. */
function recording(): Logger & { events: [string, Record<string, unknown>, string | undefined][] } {
  const events: [string, Record<string, unknown>, string | undefined][] = [];
  const at = (level: string) => (fields: object, msg?: string) => void events.push([level, fields as Record<string, unknown>, msg]);
  return { events, info: at("info"), warn: at("warn"), error: at("error") };
}

describe("consoleLogger", () => {
  afterEach(() => vi.restoreAllMocks());

  test("`<msg>:` then the error with an err; the message alone without; info to console.log, warn to console.warn", () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const warn = vi.spyOn(console, "warn").mockImplementation(() => {});
    const log = vi.spyOn(console, "log").mockImplementation(() => {});
    const e = new Error("boom");
    consoleLogger.error({ err: e, rpc: "SendMessage" }, "a2a-http agent");
    consoleLogger.warn({ configId: "c1" }, "a2a-http: push notification dropped");
    consoleLogger.info({ store: "memory" }, "store: memory");
    consoleLogger.error({ err: e });
    expect(error.mock.calls).toEqual([["a2a-http agent:", e], [e]]);
    expect(warn.mock.calls).toEqual([["a2a-http: push notification dropped"]]);
    expect(log.mock.calls).toEqual([["store: memory"]]);
  });

  test("a server's default onError prints as before: the rpc, the phase, then the error", async () => {
    const error = vi.spyOn(console, "error").mockImplementation(() => {});
    const e = new Error("handler bug");
    const handle = createFetchHandler(
      A2AServiceRoutes,
      {
        getTask: () => {
          throw e;
        },
      },
      { profile: "a2a" },
    );
    const r = await handle(new Request("http://127.0.0.1/tasks/t1", { headers: { "a2a-version": "1.0" } }));
    expect(r.status).toBe(500);
    expect(error.mock.calls).toEqual([["protoc-gen-a2a-http: getTask failed (unary):", e]]);
  });
});

describe("jsonLogger", () => {
  test("one line per event: time, level, msg, the base fields, then the event's; an Error as type, message, stack", () => {
    const lines: string[] = [];
    const logger = jsonLogger({ write: (l) => lines.push(l), base: { service: "agent" }, now: () => Date.UTC(2026, 0, 2, 3, 4, 5) });
    const e = Object.assign(new Error("down", { cause: new Error("refused") }), { code: "ECONNREFUSED" });
    logger.error({ err: e, rpc: "GetTask" }, "a2a-http store");
    logger.info({ n: 10n }, "big");
    logger.warn({});
    expect(lines).toHaveLength(3);
    for (const line of lines) expect(line).not.toContain("\n");
    const first = JSON.parse(lines[0]!);
    expect(first).toMatchObject({
      time: "2026-01-02T03:04:05.000Z",
      level: "error",
      msg: "a2a-http store",
      service: "agent",
      rpc: "GetTask",
      err: { type: "Error", message: "down", code: "ECONNREFUSED", cause: { type: "Error", message: "refused" } },
    });
    expect(first.err.stack).toContain("Error: down");
    expect(Object.keys(first).slice(0, 3)).toEqual(["time", "level", "msg"]);
    expect(JSON.parse(lines[1]!)).toMatchObject({ level: "info", msg: "big", n: "10" });
    expect(JSON.parse(lines[2]!)).toEqual({ time: "2026-01-02T03:04:05.000Z", level: "warn", service: "agent" });
  });

  test("a field JSON cannot hold (a cycle) is written as its string; the rest stays", () => {
    const lines: string[] = [];
    const cycle: Record<string, unknown> = { a: 1 };
    cycle["self"] = cycle;
    jsonLogger({ write: (l) => lines.push(l) }).info({ cycle, ok: true }, "m");
    expect(JSON.parse(lines[0]!)).toMatchObject({ msg: "m", cycle: "[object Object]", ok: true });
  });

  test("LOG_FORMAT=json picks it; anything else the console", () => {
    const lines: string[] = [];
    loggerFromEnv({ LOG_FORMAT: " JSON " }, { write: (l) => lines.push(l) }).info({}, "hello");
    expect(JSON.parse(lines[0]!)).toMatchObject({ level: "info", msg: "hello" });
    expect(loggerFromEnv({})).toBe(consoleLogger);
    expect(loggerFromEnv({ LOG_FORMAT: "text" })).toBe(consoleLogger);
  });
});

describe("the logger options", () => {
  test("a server's logger gets what onError would: the error, the rpc and the phase", async () => {
    const logger = recording();
    const e = new Error("handler bug");
    const handle = createFetchHandler(
      A2AServiceRoutes,
      {
        getTask: () => {
          throw e;
        },
      },
      { profile: "a2a", logger },
    );
    await handle(new Request("http://127.0.0.1/tasks/t1", { headers: { "a2a-version": "1.0" } }));
    expect(logger.events).toEqual([["error", { err: e, rpc: "getTask", phase: "unary" }, "protoc-gen-a2a-http: getTask failed (unary)"]]);
    // onError, when given, is still what is called.
    const onError = vi.fn();
    const other = recording();
    const h2 = createFetchHandler(A2AServiceRoutes, { getTask: () => Promise.reject(e) }, { profile: "a2a", logger: other, onError });
    await h2(new Request("http://127.0.0.1/tasks/t1", { headers: { "a2a-version": "1.0" } }));
    expect(onError).toHaveBeenCalledOnce();
    expect(other.events).toEqual([]);
  });

  test("the push sender's logger hears a notification given up (warn, with the config id), its message as before", async () => {
    const logger = recording();
    const sender = createPushSender({ logger });
    sender.report(new Error('push notification to "https://hooks.example/h" (config "c1") failed: 500'), {
      configId: "c1",
      url: "https://hooks.example/h",
      token: "secret",
    });
    await sender.close();
    expect(logger.events).toEqual([
      ["warn", { configId: "c1" }, 'a2a-http: push notification to "https://hooks.example/h" (config "c1") failed: 500'],
    ]);
  });
});
