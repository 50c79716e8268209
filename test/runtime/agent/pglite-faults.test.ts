/**
 * PGlite's directory store when a write to its disk fails (issue 39 item 8,
 * "the equivalent where it applies"): the file system answers one write of
 * the directory's WAL with ENOSPC (no space left on device), as a full disk
 * would. PostgreSQL then PANICs, and a PGlite instance after a PANIC spins
 * for ever on its next statement (the whole process with it): the client
 * takes no statement to it, opens the directory anew (recovery from the
 * WAL, as a restarted server), and the engine retries the publication that
 * met the crash (StoreUnavailableError). The write is failed through Node's
 * `fs`, which PGlite's file system calls, for this directory's files only.
 */
import fs from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAgentHandlers } from "../../../packages/runtime/src/agent/engine.js";
import { openStore } from "../../../packages/runtime/src/stores.js";
import { A2AService, GetTaskRequestSchema, Role, SendMessageRequestSchema, TaskState, type Task } from "../../../gen/a2a_pb.js";
import { handlerContext, plainCard } from "./in-process.js";

/** Fails the next write to a WAL file under `dir` once `arm()` was called. */
function failingWal(dir: string) {
  const paths = new Map<number, string>();
  const openSync = fs.openSync;
  const writeSync = fs.writeSync;
  const state = { armed: false, failed: 0 };
  fs.openSync = ((path: fs.PathLike, ...rest: unknown[]) => {
    const fd = (openSync as (...a: unknown[]) => number)(path, ...rest);
    paths.set(fd, String(path));
    return fd;
  }) as typeof fs.openSync;
  fs.writeSync = ((fd: number, ...rest: unknown[]) => {
    const path = paths.get(fd) ?? "";
    if (state.armed && path.startsWith(dir) && path.includes("pg_wal")) {
      state.armed = false;
      state.failed++;
      throw Object.assign(new Error("ENOSPC: no space left on device, write"), { code: "ENOSPC", errno: 28 });
    }
    return (writeSync as (...a: unknown[]) => number)(fd, ...rest);
  }) as typeof fs.writeSync;
  return {
    state,
    arm: () => void (state.armed = true),
    restore() {
      fs.openSync = openSync;
      fs.writeSync = writeSync;
    },
  };
}

describe("PGlite's directory store when a disk write fails", () => {
  let dir: string;
  let wal: ReturnType<typeof failingWal>;
  beforeAll(() => {
    dir = fs.mkdtempSync(join(tmpdir(), "a2a-pglite-faults-"));
    wal = failingWal(dir);
  });
  afterAll(() => {
    wal?.restore();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it("retries the publication that met the crash on the directory opened anew: the task ends COMPLETED, its artifact once", async () => {
    const quiet = { info() {}, warn() {}, error() {} };
    const store = await openStore(dir, { log: () => {}, logger: quiet });
    const rejected: unknown[] = [];
    const agent = createAgentHandlers(
      A2AService,
      async (_input, task) => {
        await task.working("one");
        wal.arm();
        await task.artifact("the result").catch((e: unknown) => void rejected.push(e));
        await task.complete();
      },
      { card: plainCard, store, logger: quiet },
    );
    try {
      const request = create(SendMessageRequestSchema, {
        message: { messageId: "m1", role: Role.USER, parts: [{ content: { case: "text", value: "go" } }] },
      });
      const answer = (await agent.sendMessage!(request, handlerContext())) as { payload: { value: Task } };
      expect(wal.state.failed).toBe(1);
      expect(rejected).toEqual([]);
      const task = answer.payload.value;
      expect(task.status?.state).toBe(TaskState.COMPLETED);
      const stored = (await agent.getTask!(create(GetTaskRequestSchema, { id: task.id }), handlerContext("getTask"))) as Task;
      expect(stored.status?.state).toBe(TaskState.COMPLETED);
      expect(stored.artifacts.map((a) => a.parts[0]?.content.value)).toEqual(["the result"]);
      // The store works on: a second task.
      request.message!.messageId = "m2";
      wal.state.armed = false;
      const second = (await agent.sendMessage!(request, handlerContext())) as { payload: { value: Task } };
      expect(second.payload.value.status?.state).toBe(TaskState.COMPLETED);
    } finally {
      await agent.close();
    }
  }, 30_000);
});
