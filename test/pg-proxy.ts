/**
 * A TCP proxy in front of the PostgreSQL server of DATABASE_URL, for tests of
 * the database's faults: `cut()` drops every connection and refuses new ones
 * (the server gone, as `pg_ctl stop` leaves it), `restore()` lets them in
 * again; `freeze()` stops passing bytes both ways (a server that answers
 * nothing, as SIGSTOP leaves it), `thaw()` passes them again; `strand()`
 * stops passing bytes on the connections open now, for good, and lets new
 * ones through (a connection dead without a word, as a dropped NAT entry
 * leaves it). Imports nothing from vitest.
 */
import { createServer, connect as tcpConnect, type Server, type Socket } from "node:net";

export interface PgProxy {
  /** The server's URL through the proxy, for database `db`. */
  url(db: string): string;
  /** Drops every connection and refuses new ones. */
  cut(): void;
  /** Takes connections again. */
  restore(): void;
  /** Stops passing bytes, on the connections open and the new ones. */
  freeze(): void;
  /** Passes them again. */
  thaw(): void;
  /** Stops passing bytes on the connections open now, and never passes them again; new ones pass. */
  strand(): void;
  close(): Promise<void>;
}

export async function startPgProxy(target: string): Promise<PgProxy> {
  const t = new URL(target);
  const sockets = new Set<Socket>();
  let down = false;
  let frozen = false;
  const stranded = new WeakSet<Socket>();
  const server: Server = createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = tcpConnect(Number(t.port || 5432), t.hostname);
    client.pipe(upstream);
    upstream.pipe(client);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
      // After pipe(), which resumes its source.
      if (frozen) s.pause();
    }
    client.on("close", () => upstream.destroy());
    upstream.on("close", () => client.destroy());
  });
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const port = (server.address() as { port: number }).port;
  return {
    url(db) {
      const u = new URL(target);
      u.hostname = "127.0.0.1";
      u.port = String(port);
      u.pathname = `/${db}`;
      return u.toString();
    },
    cut() {
      down = true;
      for (const s of sockets) s.destroy();
    },
    restore() {
      down = false;
    },
    freeze() {
      frozen = true;
      for (const s of sockets) s.pause();
    },
    thaw() {
      frozen = false;
      for (const s of sockets) if (!stranded.has(s)) s.resume();
    },
    strand() {
      for (const s of sockets) {
        stranded.add(s);
        s.pause();
      }
    },
    async close() {
      for (const s of sockets) s.destroy();
      await new Promise<void>((ok) => server.close(() => ok()));
    },
  };
}
