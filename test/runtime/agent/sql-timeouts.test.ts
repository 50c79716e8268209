/**
 * The bounds on waiting for PostgreSQL (issue 39 item 5): a statement the
 * server runs too long is cancelled (statementTimeoutMs), one a frozen server
 * never answers is given up 1 s later and its connection dropped, a statement
 * waits for a connection of the pool at most poolTimeoutMs, and migrations
 * run without the statement bound. PostgreSQL only (PGlite runs in this
 * process: nothing to wait for); a server that "freezes" is a TCP proxy that
 * stops passing bytes, as SIGSTOP of the server would.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { connectPostgres, type SqlClient } from "../../../packages/runtime/src/agent/sql/client.js";
import { isGivenUp, isServerError } from "../../../packages/runtime/src/agent/sql/faults.js";
import { SCHEMA_VERSION, migrate } from "../../../packages/runtime/src/agent/sql/migrations.js";
import { StoreUnavailableError } from "../../../packages/runtime/src/agent/store.js";
import { openStore } from "../../../packages/runtime/src/stores.js";
import { startPgProxy } from "../../pg-proxy.js";
import { createScratchDatabase, type ScratchDatabase } from "../../scratch-database.js";

const url = process.env["DATABASE_URL"];

/** How long `p` took to settle, and its error (undefined when it resolved). */
async function timed(p: Promise<unknown>): Promise<{ ms: number; error: Error | undefined }> {
  const started = Date.now();
  try {
    await p;
    return { ms: Date.now() - started, error: undefined };
  } catch (e) {
    return { ms: Date.now() - started, error: e as Error };
  }
}

if (!url && process.env["CI"] === "true") {
  describe("PostgreSQL timeouts", () => {
    it("has a server to run on", () => {
      throw new Error("CI=true but DATABASE_URL is not set: the PostgreSQL timeout tests cannot run");
    });
  });
}

describe.skipIf(!url)(`PostgreSQL timeouts${url ? "" : " (skipped: DATABASE_URL is not set)"}`, () => {
  let scratch: ScratchDatabase;
  const clients: SqlClient[] = [];
  const open = async (...args: Parameters<typeof connectPostgres>) => {
    const db = await connectPostgres(...args);
    clients.push(db);
    return db;
  };
  beforeAll(async () => {
    scratch = await createScratchDatabase(url!, "a2a_timeouts");
  }, 60_000);
  afterAll(async () => {
    for (const c of clients) await c.close().catch(() => {});
    await scratch?.drop();
  }, 60_000);

  it("a statement running longer than statementTimeoutMs is cancelled by the server (57014), and the pool goes on", async () => {
    const db = await open(scratch.url, { statementTimeoutMs: 200 });
    const { ms, error } = await timed(db.query("SELECT pg_sleep(3)"));
    expect((error as { code?: string } | undefined)?.code).toBe("57014");
    expect(isServerError(error)).toBe(true);
    expect(ms).toBeLessThan(1_500);
    expect((await db.query("SELECT 1 AS one")).rows[0]!["one"]).toBe(1);
  });

  it("by default a statement is cancelled after 5 s", async () => {
    const db = await open(scratch.url);
    const r = await db.query("SELECT current_setting('statement_timeout') AS t");
    expect(r.rows[0]!["t"]).toBe("5s");
  });

  it("0 turns the bound off", async () => {
    const db = await open(scratch.url, { statementTimeoutMs: 0 });
    const r = await db.query("SELECT current_setting('statement_timeout') AS t");
    expect(r.rows[0]!["t"]).toBe("0");
  });

  it("a statement waits for a connection of a busy pool at most poolTimeoutMs", async () => {
    const db = await open(scratch.url, { max: 1, poolTimeoutMs: 200 });
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    let holding!: () => void;
    const isHolding = new Promise<void>((ok) => (holding = ok));
    const tx = db.transaction(async (t) => {
      await t.query("SELECT 1");
      holding();
      await held;
    });
    await isHolding;
    const { ms, error } = await timed(db.query("SELECT 1"));
    expect(error?.message).toMatch(/timeout exceeded when trying to connect/);
    expect(ms).toBeGreaterThanOrEqual(150);
    expect(ms).toBeLessThan(1_500);
    release();
    await tx;
    expect((await db.query("SELECT 1 AS one")).rows[0]!["one"]).toBe(1);
  });

  it("a frozen server: a transaction's statement is given up statementTimeoutMs + 1 s later and its connection dropped, as is a statement's; a new connection's connect is given up after poolTimeoutMs; once it thaws the pool serves again", async () => {
    const proxy = await startPgProxy(url!);
    try {
      const db = await open(proxy.url(scratch.name), { max: 1, statementTimeoutMs: 300, poolTimeoutMs: 500, onError: () => {} });
      await db.transaction((t) => t.query("SELECT 1"));
      proxy.freeze();
      // The pool's one connection, made before the freeze, answers nothing.
      const inTx = await timed(db.transaction((t) => t.query("SELECT 1")));
      expect(isGivenUp(inTx.error)).toBe(true);
      expect(inTx.ms).toBeGreaterThanOrEqual(1_200);
      expect(inTx.ms).toBeLessThan(3_000);
      // It was dropped: the next statement needs a new connection, whose connect hangs too.
      const next = await timed(db.query("SELECT 1"));
      expect(next.error?.message).toMatch(/connection timeout|timeout exceeded/);
      expect(next.ms).toBeLessThan(2_000);
      proxy.thaw();
      expect((await db.query("SELECT 1 AS one")).rows[0]!["one"]).toBe(1);
      // A statement alone, on the connection just made: given up the same way.
      proxy.freeze();
      const alone = await timed(db.query("SELECT 1"));
      expect(isGivenUp(alone.error)).toBe(true);
      expect(alone.ms).toBeLessThan(3_000);
      proxy.thaw();
      expect(await db.transaction(async (t) => (await t.query("SELECT 2 AS two")).rows[0]!["two"])).toBe(2);
    } finally {
      proxy.thaw();
      await proxy.close();
    }
  }, 20_000);

  it("a LISTEN connection dead without a word is found by its keep-alive and made again, and the listener told to catch up", async () => {
    const proxy = await startPgProxy(url!);
    try {
      const errors: unknown[] = [];
      const db = await open(proxy.url(scratch.name), { listenKeepAliveMs: 200, onError: (e) => errors.push(e) });
      const direct = await open(scratch.url);
      const got: string[] = [];
      let reconnects = 0;
      await db.listen(
        "a2a_keepalive",
        (p) => got.push(p),
        () => reconnects++,
      );
      const notify = (p: string) => direct.query("SELECT pg_notify('a2a_keepalive', $1)", [p]);
      const until = async (ok: () => boolean, ms: number) => {
        for (const end = Date.now() + ms; !ok() && Date.now() < end; ) await new Promise((r) => setTimeout(r, 20));
        return ok();
      };
      await notify("before");
      expect(await until(() => got.includes("before"), 2_000)).toBe(true);
      // Its connection now passes nothing, and says nothing of it; new connections pass.
      proxy.strand();
      await notify("lost");
      const stranded = Date.now();
      expect(await until(() => reconnects === 1, 3_000)).toBe(true);
      // Found within two keep-alive periods, and made again a second later.
      expect(Date.now() - stranded).toBeLessThan(2_000);
      expect(String(errors.at(0))).toMatch(/keep-alive/);
      await notify("after");
      expect(await until(() => got.includes("after"), 2_000)).toBe(true);
      // What came while it was dead is lost to it: the reconnect is what tells the listener to catch up from the tables.
      expect(got).toEqual(["before", "after"]);
    } finally {
      proxy.cut();
      await proxy.close();
    }
  }, 20_000);

  it("migrations run without the statement bound: a second migrator waits for the first's lock longer than statementTimeoutMs", async () => {
    const fresh = await createScratchDatabase(url!, "a2a_timeouts_mig");
    try {
      const holder = await open(fresh.url, { max: 1, statementTimeoutMs: 0 });
      // Holds the migrations' advisory lock as a migrating instance would, for 1.5 s.
      const held = holder.transaction(async (t) => {
        await t.query("SELECT pg_advisory_xact_lock(4242001)");
        await new Promise((ok) => setTimeout(ok, 1_500));
      });
      await new Promise((ok) => setTimeout(ok, 100));
      const db = await open(fresh.url, { statementTimeoutMs: 200 });
      const { ms, error } = await timed(migrate(db));
      expect(error).toBeUndefined();
      expect(ms).toBeGreaterThan(1_000);
      await held;
      const r = await db.query("SELECT max(version)::integer AS v FROM a2a_schema");
      expect(r.rows[0]!["v"]).toBe(SCHEMA_VERSION);
      // The transaction's SET LOCAL ended with it: the pool's bound holds again.
      expect((await db.query("SELECT current_setting('statement_timeout') AS t")).rows[0]!["t"]).toBe("200ms");
      for (const c of clients.splice(-2)) await c.close();
    } finally {
      await fresh.drop();
    }
  }, 30_000);

  it("openStore passes poolTimeoutMs and statementTimeoutMs to its pool", async () => {
    const store = await openStore(scratch.url, {
      log: () => {},
      migrate: true,
      maxConnections: 1,
      statementTimeoutMs: 1_000,
      poolTimeoutMs: 200,
    });
    const holder = await open(scratch.url, { max: 1, statementTimeoutMs: 0 });
    const key = { tenant: "", owner: "", id: "locked" };
    await holder.query(
      `INSERT INTO a2a_tasks (tenant, owner, id, context_id, state, updated_at, version, format, body) VALUES ('', '', 'locked', 'c', 2, 0, 1, 1, '')`,
    );
    let release!: () => void;
    const held = new Promise<void>((ok) => (release = ok));
    let locked!: () => void;
    const isLocked = new Promise<void>((ok) => (locked = ok));
    const tx = holder.transaction(async (t) => {
      await t.query(`SELECT 1 FROM a2a_tasks WHERE id = 'locked' FOR UPDATE`);
      locked();
      await held;
    });
    try {
      await isLocked;
      // The put waits for the task's row lock on the store's only connection...
      const put = timed(store.pushConfigs.put(key, { id: "c" } as never));
      await new Promise((ok) => setTimeout(ok, 50));
      // ...so a read waits for the pool, given up after poolTimeoutMs,
      const read = await timed(store.tasks.get(key));
      // (The store answers a connection fault as StoreUnavailableError, sql/unavailable.ts, with pg's error as its cause.)
      const cause = (read.error as { cause?: Error } | undefined)?.cause ?? read.error;
      expect(cause?.message).toMatch(/timeout exceeded when trying to connect/);
      expect(read.ms).toBeLessThan(900);
      // and the put is cancelled by the server after statementTimeoutMs (57014, also a StoreUnavailableError's cause).
      const p = await put;
      expect(p.error).toBeInstanceOf(StoreUnavailableError);
      expect((p.error as { cause?: { code?: string } }).cause?.code).toBe("57014");
      expect(p.ms).toBeGreaterThanOrEqual(900);
      expect(p.ms).toBeLessThan(2_500);
    } finally {
      release();
      await tx;
      await store.close?.();
    }
  });
});
