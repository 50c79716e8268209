/**
 * Nothing the client saw is lost when the agent dies: the example agent
 * (example/server.ts, in its own process) streams a long task, is killed with
 * SIGKILL in the middle of the stream, and is started again on the same
 * store. Every event the client received before the kill must be in the
 * restarted agent's task (GetTask: its status messages are in the history)
 * and in the store's event log, in the order received.
 *
 * On a PGlite directory, and on the PostgreSQL server of DATABASE_URL (a
 * database of its own per test, made with CREATE DATABASE). Without
 * DATABASE_URL the PostgreSQL test is skipped, and its name says so; under
 * CI=true it fails instead, since CI must run it.
 *
 * After the restart the task stays WORKING (its executor died with the
 * process) until another instance's lease sweep ends it; this test does not
 * depend on either.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { equals } from "@bufbuild/protobuf";
import { timestampMs } from "@bufbuild/protobuf/wkt";
import { afterAll, describe, expect, test } from "vitest";
import { openStore } from "a2a-http/stores";
import {
  Role,
  StreamResponseSchema,
  TaskPushNotificationConfigSchema,
  TaskSchema,
  TaskState,
  type StreamResponse,
} from "../../../gen/a2a_pb.js";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { createScratchDatabase } from "../../scratch-database.js";

const root = join(import.meta.dirname, "..", "..", "..");
const work = mkdtempSync(join(tmpdir(), "a2a-kill-restart-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Node running TypeScript sources, the runtime from its source too (no stale dist/). */
const nodeTs = (script: string, args: string[]) => ({
  command: process.execPath,
  args: ["--conditions=a2a-http-source", "--import", "tsx", join(root, script), ...args],
});

interface Agent {
  readonly child: ChildProcess;
  readonly url: string;
  /** What the agent printed about its store. */
  readonly storeLine: string;
  output(): string;
}

/** Starts example/server.ts on `store`; resolves once it printed its URL and its store. */
function startAgent(store: string): Promise<Agent> {
  const { command, args } = nodeTs("example/server.ts", ["--store", store, "--port", "0", "--grpc-port=-1"]);
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill("SIGKILL");
      reject(new Error(`the agent did not start within 60 s:\n${out}`));
    }, 60_000);
    const read = (d: Buffer) => {
      out += d.toString();
      const url = /HTTP\+JSON on (http:\/\/[^\s,]+)/.exec(out)?.[1];
      const storeLine = /^store: (.*)$/m.exec(out)?.[1];
      if (url && storeLine) {
        clearTimeout(timer);
        resolve({ child, url, storeLine, output: () => out });
      }
    };
    child.stdout!.on("data", read);
    child.stderr!.on("data", read);
    child.once("exit", (code, signal) => {
      clearTimeout(timer);
      reject(new Error(`the agent exited (${signal ?? code}) before it started:\n${out}`));
    });
  });
}

function exited(child: ChildProcess): Promise<void> {
  return child.exitCode !== null || child.signalCode !== null ? Promise.resolve() : new Promise((ok) => child.once("exit", () => ok()));
}

/** Runs the runtime's bin from its source: `a2a-http migrate --url <store>`. */
function migrateCli(store: string): Promise<{ code: number | null; out: string }> {
  const { command, args } = nodeTs("packages/runtime/src/cli.ts", ["migrate", "--url", store]);
  const child = spawn(command, args, { cwd: root, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  child.stdout!.on("data", (d: Buffer) => (out += d.toString()));
  child.stderr!.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((ok) => child.once("exit", (code) => ok({ code, out })));
}

/** The kill, the restart and the checks, on one store. */
async function killAndRestart(store: string) {
  const first = await startAgent(store);
  const received: StreamResponse[] = [];
  let streamError: unknown;
  try {
    const client = createA2AServiceClient({ baseUrl: first.url });
    // 30 steps of a second: far longer than the test waits.
    const stream = client.sendStreamingMessage({
      message: { messageId: crypto.randomUUID(), role: Role.USER, parts: [{ content: { case: "text", value: "/work 30" } }] },
    });
    try {
      for await (const event of stream) {
        received.push(event);
        // The task, WORKING, then two progress steps: killed in the middle of the stream.
        if (received.length === 4) first.child.kill("SIGKILL");
      }
    } catch (e) {
      streamError = e;
    }
  } finally {
    first.child.kill("SIGKILL");
    await exited(first.child);
  }
  expect(first.child.signalCode).toBe("SIGKILL");
  // The stream ended by the kill, not by the task's end.
  expect(streamError, "the stream should break when the agent is killed").toBeDefined();
  expect(received.length).toBeGreaterThanOrEqual(4);
  const created = received[0]!;
  expect(created.payload.case).toBe("task");
  const taskId = created.payload.case === "task" ? created.payload.value.id : "";
  const contextId = created.payload.case === "task" ? created.payload.value.contextId : "";
  const userMessageId = created.payload.case === "task" ? created.payload.value.history[0]?.messageId : undefined;
  expect(userMessageId).toBeDefined();
  const statusMessages = received.flatMap((e) =>
    e.payload.case === "statusUpdate" && e.payload.value.status?.message ? [e.payload.value.status.message.messageId] : [],
  );
  expect(statusMessages.length).toBeGreaterThanOrEqual(2);

  // Again on the same store: the task is there, with everything the client saw.
  const second = await startAgent(store);
  try {
    const task = await createA2AServiceClient({ baseUrl: second.url }).getTask({ id: taskId });
    expect(task.id).toBe(taskId);
    expect(task.contextId).toBe(contextId);
    const history = task.history.map((m) => m.messageId);
    expect(history[0]).toBe(userMessageId);
    for (const id of statusMessages) expect(history).toContain(id);
    // Its status is the last one received, or a later one written before the kill.
    const lastStatus = received.findLast((e) => e.payload.case === "statusUpdate")!;
    const lastMs = lastStatus.payload.case === "statusUpdate" ? timestampMs(lastStatus.payload.value.status!.timestamp!) : 0;
    expect(timestampMs(task.status!.timestamp!)).toBeGreaterThanOrEqual(lastMs);
    expect(task.status!.state).toBe(TaskState.WORKING);
  } finally {
    // A clean stop: the directory's lock is released for the store opened below.
    second.child.kill("SIGTERM");
    await exited(second.child);
  }
  expect(second.child.exitCode, second.output()).toBe(0);

  // The store's event log holds every event received, in the order received.
  const s = await openStore(store, { log: () => {} });
  try {
    s.bind?.({ task: TaskSchema, event: StreamResponseSchema, pushConfig: TaskPushNotificationConfigSchema });
    const events = await s.tasks.events({ tenant: "", owner: "", id: taskId }, 0);
    let at = -1;
    for (const [i, event] of received.entries()) {
      const found = events.findIndex((stored, j) => j > at && equals(StreamResponseSchema, stored.event as StreamResponse, event));
      expect(found, `received event ${i} (${event.payload.case}) is not in the store after event ${at}`).toBeGreaterThan(at);
      at = found;
    }
  } finally {
    await s.close?.();
  }
  return { first, second, received };
}

describe("an agent killed with SIGKILL mid-stream and restarted on the same store", () => {
  test("PGlite directory: every event the client received is in the restarted agent's task and in the store", async () => {
    const dir = join(work, "pglite");
    const { first, second } = await killAndRestart(dir);
    expect(first.storeLine).toBe(`PGlite (embedded PostgreSQL) in ${dir}`);
    expect(second.storeLine).toBe(first.storeLine);
  }, 180_000);

  const url = process.env["DATABASE_URL"];
  if (!url && process.env["CI"] === "true") {
    test("PostgreSQL: DATABASE_URL must be set under CI=true", () => {
      expect.fail("DATABASE_URL is not set: CI runs the PostgreSQL tests (.ci/run starts a server)");
    });
  } else if (!url) {
    test.skip("PostgreSQL: skipped, DATABASE_URL is not set (scripts/pg-cluster.sh start DIR prints one)", () => {});
  } else {
    test("PostgreSQL: every event the client received is in the restarted agent's task and in the store", async () => {
      const db = await createScratchDatabase(url, "a2a_kill");
      try {
        const u = new URL(db.url);
        const store = db.url;
        // A new database: the bin applies the schema, as a deployment would before starting agents.
        const migrated = await migrateCli(store);
        expect(migrated.out).toMatch(/applied 1, 2; schema at version 2/);
        expect(migrated.code).toBe(0);
        const { first } = await killAndRestart(store);
        expect(first.storeLine).toMatch(/^PostgreSQL at postgres:\/\//);
        if (u.password) expect(first.storeLine).not.toContain(u.password);
      } finally {
        await db.drop();
      }
    }, 180_000);
  }
});
