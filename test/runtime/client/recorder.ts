import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** One request as the recording server saw it. */
export interface Recorded {
  method: string;
  /** The raw request target, exactly as sent. */
  url: string;
  headers: IncomingMessage["headers"];
  body: string;
}

export type Responder = (req: Recorded, res: ServerResponse, raw: IncomingMessage) => void | Promise<void>;

export const json =
  (status: number, body: unknown, contentType = "application/json"): Responder =>
  (_req, res) => {
    res.writeHead(status, { "content-type": contentType });
    res.end(typeof body === "string" ? body : JSON.stringify(body));
  };

/** A raw node:http server on 127.0.0.1 that records every request and answers with `respond`. */
export async function startRecorder(respond: Responder = json(200, {})) {
  const requests: Recorded[] = [];
  const closed: Recorded[] = [];
  const state = { respond };
  const server = createServer((raw, res) => {
    const chunks: Buffer[] = [];
    raw.on("data", (c: Buffer) => chunks.push(c));
    raw.on("end", () => {
      const rec: Recorded = {
        method: raw.method ?? "",
        url: raw.url ?? "",
        headers: raw.headers,
        body: Buffer.concat(chunks).toString("utf8"),
      };
      requests.push(rec);
      res.on("close", () => closed.push(rec));
      void Promise.resolve(state.respond(rec, res, raw)).catch((e: unknown) => {
        res.destroy(e instanceof Error ? e : new Error(String(e)));
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    /** Requests whose response was closed (finished or torn down). */
    closed,
    set respond(r: Responder) {
      state.respond = r;
    },
    last(): Recorded {
      const r = requests[requests.length - 1];
      if (!r) throw new Error("no request recorded");
      return r;
    },
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export type Recorder = Awaited<ReturnType<typeof startRecorder>>;

/** Resolves when `cond` holds, polling; used for events the client cannot observe directly (not a timing assertion). */
export async function until(cond: () => boolean, what: string, tries = 500): Promise<void> {
  for (let i = 0; i < tries; i++) {
    if (cond()) return;
    await new Promise((r) => setTimeout(r, 10));
  }
  throw new Error(`gave up waiting for ${what}`);
}
