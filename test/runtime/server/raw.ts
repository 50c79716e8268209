import { connect } from "node:net";

/** A response read off a raw socket. */
export interface RawResponse {
  readonly status: number;
  /** Header values by lower-case name (repeated ones joined with ", "). */
  readonly headers: Record<string, string>;
  readonly body: string;
}

/**
 * Sends `head` (request line and headers, without the final blank line) and
 * `body` as written, on a fresh connection that the server is asked to close,
 * and parses the answer. For request targets that fetch would rewrite
 * (`/a/../b`, `*`, absolute-form, a backslash).
 */
export function rawRequest(origin: string, head: string, body: string | Uint8Array = "", timeoutMs = 5_000): Promise<RawResponse> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms to ${head.split("\r\n")[0]}`));
    }, timeoutMs);
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", () => {});
    socket.on("close", () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString("latin1");
      const end = text.indexOf("\r\n\r\n");
      if (end < 0) return reject(new Error(`no HTTP answer to ${head.split("\r\n")[0]}: ${JSON.stringify(text.slice(0, 200))}`));
      const [statusLine, ...lines] = text.slice(0, end).split("\r\n");
      const headers: Record<string, string> = {};
      for (const l of lines) {
        const i = l.indexOf(":");
        const k = l.slice(0, i).trim().toLowerCase();
        const v = l.slice(i + 1).trim();
        headers[k] = headers[k] === undefined ? v : `${headers[k]}, ${v}`;
      }
      let rest: Buffer = Buffer.from(text.slice(end + 4), "latin1");
      if (headers["transfer-encoding"] === "chunked") rest = unchunk(rest);
      resolve({ status: Number(statusLine!.split(" ")[1]), headers, body: rest.toString("utf8") });
    });
    socket.write(`${head}\r\nHost: ${hostname}:${port}\r\nConnection: close\r\n\r\n`);
    if (body.length > 0) socket.write(body);
  });
}

function unchunk(buf: Buffer): Buffer {
  const out: Buffer[] = [];
  let at = 0;
  for (;;) {
    const nl = buf.indexOf("\r\n", at);
    if (nl < 0) break;
    const size = parseInt(buf.subarray(at, nl).toString("latin1"), 16);
    if (!(size > 0)) break;
    out.push(buf.subarray(nl + 2, nl + 2 + size));
    at = nl + 2 + size + 2;
  }
  return Buffer.concat(out);
}
