/**
 * `a2a-http/stores`: openStore's choice of store from one string, its log
 * line, its one-line errors, the directory lock, the schema rules (a
 * directory is migrated at open, a server only checked unless migrate: true),
 * and the `a2a-http migrate` command (run from its source, as `main`).
 *
 * The PostgreSQL cases run on DATABASE_URL's server, each in a database of
 * its own; without it they are skipped by name, under CI=true they fail.
 */
import { spawn } from "node:child_process";
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync, existsSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { LOCK_FILE, SCHEMA_VERSION, StoreError, openPglite, openStore, parseStoreSpec } from "a2a-http/stores";
import { storeReadiness } from "a2a-http/agent";
import { main as cli } from "../../../packages/runtime/src/cli.js";
import { createScratchDatabase, type ScratchDatabase } from "../../scratch-database.js";

const work = mkdtempSync(join(tmpdir(), "a2a-open-store-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** The StoreError a promise rejects with. */
async function storeError(p: Promise<unknown>): Promise<StoreError> {
  const e = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(e).toBeInstanceOf(StoreError);
  // One line: what is wrong and what to do.
  expect((e as Error).message).not.toContain("\n");
  return e as StoreError;
}

async function runCli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = "";
  let err = "";
  const code = await cli(
    args,
    (s) => (out += `${s}\n`),
    (s) => (err += `${s}\n`),
  );
  return { code, out, err };
}

describe("parseStoreSpec", () => {
  test("memory when empty or 'memory'; postgres:// and postgresql:// URLs; anything else is a directory, made absolute", () => {
    expect(parseStoreSpec(undefined)).toEqual({ kind: "memory" });
    expect(parseStoreSpec("  ")).toEqual({ kind: "memory" });
    expect(parseStoreSpec("memory")).toEqual({ kind: "memory" });
    expect(parseStoreSpec("postgres://u:p@db:5432/a2a")).toEqual({ kind: "postgres", url: "postgres://u:p@db:5432/a2a" });
    expect(parseStoreSpec("postgresql://db/a2a")).toEqual({ kind: "postgres", url: "postgresql://db/a2a" });
    expect(parseStoreSpec("/var/lib/agent")).toEqual({ kind: "directory", dir: "/var/lib/agent" });
    expect(parseStoreSpec("data/tasks")).toEqual({ kind: "directory", dir: join(process.cwd(), "data/tasks") });
  });

  test("a URL that does not parse, one without a host, or another scheme: a one-line error that never shows the password", () => {
    const bad = (spec: string) => {
      try {
        parseStoreSpec(spec);
      } catch (e) {
        expect(e).toBeInstanceOf(StoreError);
        expect((e as StoreError).reason).toBe("spec");
        return (e as Error).message;
      }
      throw new Error(`${spec} was accepted`);
    };
    const invalid = bad("postgres://u:s3cret@[::1/db");
    expect(invalid).toMatch(/^not a valid PostgreSQL URL: postgres:\/\/u:\*\*\*@/);
    expect(invalid).not.toContain("s3cret");
    expect(bad("postgres:///db")).toMatch(/names no host/);
    expect(bad("mysql://u:p@h/db")).toBe("unknown store mysql://…: use memory, a directory, or a postgres:// URL");
  });
});

describe("openStore", () => {
  test("memory: the memory store, and one log line that says its tasks do not outlive the agent", async () => {
    const lines: string[] = [];
    const store = await openStore("memory", { log: (l) => lines.push(l) });
    expect(lines).toEqual(["store: memory (tasks are lost when the agent stops)"]);
    expect(store.shared).toBeUndefined();
    await store.close?.();
  });

  test("the line goes to the logger's info when no log is given (the console's by default)", async () => {
    const events: [string, object, string | undefined][] = [];
    const logger = {
      info: (f: object, m?: string) => void events.push(["info", f, m]),
      warn: (f: object, m?: string) => void events.push(["warn", f, m]),
      error: (f: object, m?: string) => void events.push(["error", f, m]),
    };
    await openStore("memory", { logger });
    expect(events).toEqual([["info", { store: "memory" }, "store: memory (tasks are lost when the agent stops)"]]);
  });

  describe("a directory (PGlite)", () => {
    const dir = join(work, "nested", "store");
    beforeAll(async () => {
      // Made when missing, parents too, and migrated: the agent owns it.
      const lines: string[] = [];
      const store = await openStore(dir, { log: (l) => lines.push(l) });
      expect(lines).toEqual([`store: PGlite (embedded PostgreSQL) in ${dir}`]);
      expect(existsSync(join(dir, "PG_VERSION"))).toBe(true);
      expect(readFileSync(join(dir, LOCK_FILE), "utf8")).toMatch(new RegExp(`^${process.pid}@[^#]+#(p|t)\\d+$`));
      await store.close?.();
      expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
    }, 60_000);

    test("pings its database (an agent's readiness): ready while open, not once closed", async () => {
      const store = await openStore(dir, { log: () => {} });
      expect(typeof store.ping).toBe("function");
      expect(await storeReadiness(store, () => false)()).toBe(true);
      await store.close?.();
      expect(await storeReadiness(store, () => false)()).toBe(false);
    }, 60_000);

    test("is locked while open: a second open fails with one line, and close releases it", async () => {
      const store = await openStore(dir, { log: () => {} });
      try {
        const e = await storeError(openStore(dir, { log: () => {} }));
        expect(e.reason).toBe("locked");
        expect(e.message).toBe(
          `the store directory ${dir} is in use by this process (is the store opened twice?): one agent at a time opens a directory (for several instances use PostgreSQL)`,
        );
      } finally {
        await store.close?.();
      }
      await (await openStore(dir, { log: () => {} })).close?.();
    }, 30_000);

    test("a lock left by a process that is gone (killed, or an earlier run under the same pid) is taken over; one held by a live process is not", async () => {
      const host = (await import("node:os")).hostname();
      const lock = join(dir, LOCK_FILE);
      const dead = spawn(process.execPath, ["-e", ""]);
      await new Promise((ok) => dead.once("exit", ok));
      writeFileSync(lock, `${dead.pid}@${host}#p1`);
      await (await openStore(dir, { log: () => {} })).close?.();
      // The same pid as this process, another start: a container's pid 1 after a restart.
      writeFileSync(lock, `${process.pid}@${host}#p1`);
      await (await openStore(dir, { log: () => {} })).close?.();
      // Garbled (its writer died between creating and writing it).
      writeFileSync(lock, "");
      await (await openStore(dir, { log: () => {} })).close?.();

      const live = spawn(process.execPath, ["-e", "setTimeout(() => {}, 30000)"]);
      try {
        await new Promise((ok) => live.once("spawn", ok));
        // Its start as Linux says it (the lock's own format); elsewhere a start the check cannot compare.
        const stat = existsSync(`/proc/${live.pid}/stat`) ? readFileSync(`/proc/${live.pid}/stat`, "utf8") : undefined;
        const start = stat ? `p${stat.slice(stat.lastIndexOf(")") + 2).split(" ")[19]}` : "t0";
        writeFileSync(lock, `${live.pid}@${host}#${start}`);
        const e = await storeError(openStore(dir, { log: () => {} }));
        expect(e.reason).toBe("locked");
        expect(e.message).toBe(
          `the store directory ${dir} is in use by process ${live.pid} on ${host}: one agent at a time opens a directory (for several instances use PostgreSQL)`,
        );
        if (stat) {
          // The pid alive, but started after the lock was written: reused, so the lock is stale.
          writeFileSync(lock, `${live.pid}@${host}#p1`);
          await (await openStore(dir, { log: () => {} })).close?.();
        }
      } finally {
        live.kill();
        rmSync(lock, { force: true });
      }
    }, 30_000);

    test("a schema newer than this a2a-http: refused at open, and by migrate, saying to upgrade", async () => {
      const other = join(work, "newer");
      await (await openStore(other, { log: () => {} })).close?.();
      const db = await openPglite(other);
      await db.query(`INSERT INTO a2a_schema (version, applied_at) VALUES ($1, 0)`, [SCHEMA_VERSION + 1]);
      await db.close();
      const e = await storeError(openStore(other, { log: () => {} }));
      expect(e.reason).toBe("schema-too-new");
      expect(e.message).toBe(
        `${other} holds a2a-http schema version ${SCHEMA_VERSION + 1}, newer than this a2a-http knows (${SCHEMA_VERSION}): upgrade a2a-http`,
      );
      // The lock was released on the way out.
      expect(existsSync(join(other, LOCK_FILE))).toBe(false);
      const r = await runCli(["migrate", "--url", other]);
      expect(r.code).toBe(1);
      expect(r.err).toBe(`a2a-http migrate: ${e.message}\n`);
    }, 60_000);

    test("a directory of other files is refused, not initialized", async () => {
      const mine = join(work, "project");
      mkdirSync(mine);
      writeFileSync(join(mine, "package.json"), "{}");
      const e = await storeError(openStore(mine, { log: () => {} }));
      expect(e.message).toBe(`${mine} is not an a2a-http store directory (it holds other files): give an empty or new directory`);
      expect(existsSync(join(mine, "PG_VERSION"))).toBe(false);
    });

    test("a path that cannot be a directory, or a directory this process cannot write", async () => {
      const file = join(work, "a-file");
      writeFileSync(file, "");
      const e = await storeError(openStore(join(file, "store"), { log: () => {} }));
      expect(e.message).toBe(`cannot create the store directory ${join(file, "store")}: ENOTDIR`);
      if (process.getuid?.() === 0) return; // root writes anywhere: the mode check cannot fail
      const ro = join(work, "read-only");
      mkdirSync(ro, { mode: 0o500 });
      chmodSync(ro, 0o500);
      const e2 = await storeError(openStore(ro, { log: () => {} }));
      expect(e2.message).toBe(`the store directory ${ro} is not writable by this process: EACCES`);
    });
  });

  describe("a PostgreSQL server that cannot be reached", () => {
    let silent: Server;
    let port = 0;
    const sockets = new Set<Socket>();
    beforeAll(async () => {
      // Takes connections and never answers: a server behind a dropped route, or a wrong port.
      silent = createServer((s) => sockets.add(s));
      await new Promise<void>((ok) => silent.listen(0, "127.0.0.1", () => ok()));
      port = (silent.address() as { port: number }).port;
    });
    afterAll(async () => {
      // The connection openStore gave up on is still waiting: ending it lets the pool close.
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => silent.close(() => ok()));
    });

    test("refused: one line with the URL, password hidden", async () => {
      const e = await storeError(openStore("postgres://agent:s3cret@127.0.0.1:1/a2a", { log: () => {} }));
      expect(e.reason).toBe("unreachable");
      expect(e.message).toMatch(/^cannot connect to postgres:\/\/agent:\*\*\*@127\.0\.0\.1:1\/a2a: connect ECONNREFUSED/);
      expect(e.message).not.toContain("s3cret");
    });

    test("no answer: given up after connectTimeoutMs (pg alone would wait forever)", async () => {
      const started = Date.now();
      const e = await storeError(openStore(`postgres://agent:s3cret@127.0.0.1:${port}/a2a`, { log: () => {}, connectTimeoutMs: 300 }));
      expect(e.message).toBe(`cannot connect to postgres://agent:***@127.0.0.1:${port}/a2a: no answer within 0.3 s`);
      expect(Date.now() - started).toBeLessThan(5_000);
    });

    test("a2a-http migrate says the same and exits 1", async () => {
      const r = await runCli(["migrate", "--url", "postgres://agent:s3cret@127.0.0.1:1/a2a"]);
      expect(r.code).toBe(1);
      expect(r.err).toMatch(
        /^a2a-http migrate: cannot connect to postgres:\/\/agent:\*\*\*@127\.0\.0\.1:1\/a2a: connect ECONNREFUSED[^\n]*\n$/,
      );
    });
  });
});

describe("a2a-http migrate", () => {
  test("--help: the usage, exit 0; no command, an unknown one, no --url or an unknown flag: the usage on stderr, exit 2", async () => {
    const help = await runCli(["--help"]);
    expect(help.code).toBe(0);
    expect(help.out).toMatch(/^usage: a2a-http migrate --url </);
    for (const [args, first] of [
      [[], "a2a-http: no command given"],
      [["upgrade"], 'a2a-http: unknown command "upgrade"'],
      [["migrate"], "a2a-http migrate: --url is required"],
      [["migrate", "--url", "/x", "--force"], "a2a-http: Unknown option '--force'"],
    ] as const) {
      const r = await runCli([...args]);
      expect(r.code, args.join(" ")).toBe(2);
      expect(r.err.split("\n")[0]).toContain(first);
      expect(r.err).toContain("usage: a2a-http migrate");
    }
    expect((await runCli(["migrate", "--url", "memory"])).code).toBe(2);
  });

  test("a new directory: creates it, applies every migration and says so; a second run has nothing to apply", async () => {
    const dir = join(work, "migrated");
    const first = await runCli(["migrate", "--url", dir]);
    expect(first.err).toBe("");
    expect(first.code).toBe(0);
    expect(first.out).toMatch(
      new RegExp(
        `^PGlite \\(embedded PostgreSQL\\) in ${dir}: applied ${Array.from({ length: SCHEMA_VERSION }, (_, i) => i + 1).join(", ")}; ` +
          `schema at version ${SCHEMA_VERSION} \\(\\d+ ms\\)\\n$`,
      ),
    );
    const again = await runCli(["migrate", "--url", dir]);
    expect(again.out).toMatch(new RegExp(`: schema at version ${SCHEMA_VERSION}, nothing to apply \\(\\d+ ms\\)\\n$`));
    expect(existsSync(join(dir, LOCK_FILE))).toBe(false);
  }, 60_000);
});

describe("a PostgreSQL server (DATABASE_URL)", () => {
  const url = process.env["DATABASE_URL"];
  if (!url) {
    if (process.env["CI"] === "true") {
      test("DATABASE_URL must be set under CI=true", () => expect.fail("DATABASE_URL is not set: CI runs the PostgreSQL tests"));
    } else {
      test.skip("skipped: DATABASE_URL is not set (scripts/pg-cluster.sh start DIR prints one)", () => {});
    }
    return;
  }
  let db: ScratchDatabase;
  let store = "";
  beforeAll(async () => {
    db = await createScratchDatabase(url, "a2a_open");
    const u = new URL(db.url);
    // A password in the URL, which the log and errors must hide (a trust cluster ignores it).
    if (!u.password) u.password = "s3cret";
    store = u.toString();
  });
  afterAll(() => db?.drop());

  test("a new database is only checked, not migrated: the error says to run a2a-http migrate with the URL (password hidden)", async () => {
    const e = await storeError(openStore(store, { log: () => {} }));
    expect(e.reason).toBe("schema-outdated");
    const shown = store.replace(`:${new URL(store).password}@`, ":***@");
    expect(e.message).toBe(
      `${shown} holds a2a-http schema version 0, this a2a-http needs ${SCHEMA_VERSION}: run \`npx a2a-http migrate --url ${shown}\``,
    );
  });

  test("migrate: true migrates it at open; the log line names the server without the password", async () => {
    const lines: string[] = [];
    const s = await openStore(store, { migrate: true, log: (l) => lines.push(l) });
    try {
      expect(s.shared).toBeDefined();
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatch(/^store: PostgreSQL at postgres:\/\/[^:]+:\*\*\*@127\.0\.0\.1:\d+\/a2a_open_/);
      expect(lines[0]).not.toContain(new URL(store).password);
    } finally {
      await s.close?.();
    }
    const r = await runCli(["migrate", "--url", store]);
    expect(r.code).toBe(0);
    expect(r.out).toMatch(/: schema at version \d+, nothing to apply/);
    expect(r.out).not.toContain(new URL(store).password);
    // Now opened without migrate too.
    await (await openStore(store, { log: () => {} })).close?.();
  });
});
