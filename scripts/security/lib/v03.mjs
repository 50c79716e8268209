// What the probes of A2A v0.3's paths share (issue 38: bad input on the v0.3
// paths gets the same treatment as on v1.0's): a v0.3 client's requests (no
// A2A-Version, which is v0.3 by §3.6.2), reading v0.3's error answers, and
// raw requests.
import { connect } from "node:net";

/** The headers that say `version` ("1.0"); null: none, which is v0.3. */
export const versionHeaders = (version) => (version ? { "a2a-version": version } : {});

/** A v0.3 message as its REST binding writes it (a2a-v0_3.proto's ProtoJSON). */
export const V03_REST_MESSAGE = { messageId: "m1", role: "ROLE_USER", content: [{ text: "hello" }] };

/** A v0.3 message as its JSON-RPC binding writes it (`kind` tags, lower-case roles). */
export const V03_RPC_MESSAGE = { kind: "message", messageId: "m1", role: "user", parts: [{ kind: "text", text: "hello" }] };

/** A JSON-RPC request body. */
export const rpcRequest = (method, params) => JSON.stringify({ jsonrpc: "2.0", id: 1, method, params });

/** How many tasks a v1.0 ListTasks (`GET /tasks`, A2A-Version 1.0) of the agent at `url` lists; minus its status when it fails. */
export async function taskCount(url) {
  const res = await fetch(`${url}/tasks`, { headers: versionHeaders("1.0") });
  return res.status === 200 ? ((await res.json()).tasks ?? []).length : -res.status;
}

/** The error code of a JSON-RPC answer, or undefined. */
export function rpcErrorCode(text) {
  try {
    const code = JSON.parse(text).error?.code;
    return typeof code === "number" ? code : undefined;
  } catch {
    return undefined;
  }
}

/**
 * A v0.3 REST error: HTTP `status` and the body v0.3 clients read, `{code,
 * message}` with the JSON-RPC code `code` (when undefined, any JSON-RPC
 * code: one A2A gives no reason of its own). `{ok, detail}`, the detail the
 * outcome as seen.
 */
export function v03RestError(res, status, code) {
  let body;
  try {
    body = JSON.parse(res.text);
  } catch {
    body = undefined;
  }
  const got = typeof body?.code === "number" && typeof body.message === "string" ? body.code : undefined;
  const codeOk = got !== undefined && (code === undefined ? got >= -32768 && got <= -32000 : got === code);
  const shape = got !== undefined ? `code ${got}` : body?.error !== undefined ? "a v1.0 google.rpc.Status body" : "no v0.3 error body";
  return { ok: res.status === status && codeOk, detail: `HTTP ${res.status}, ${shape}` };
}

/**
 * One raw HTTP/1.1 request with `Connection: close`, exactly as written: the
 * path unresolved (fetch resolves dot segments, `%2E%2E` too), the Host
 * given (default the origin's). `head` is the request line and any headers;
 * `version` the A2A-Version header (none when null). Its status and body.
 */
export function rawRequest(origin, head, { host, version = "1.0", body = "" } = {}) {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname);
    let text = "";
    socket.setEncoding("latin1");
    socket.on("data", (c) => void (text += c));
    socket.on("error", () => {});
    socket.on("close", () => {
      const m = /^HTTP\/1\.[01] (\d{3})/.exec(text);
      resolve({ status: m ? Number(m[1]) : 0, text: text.slice(text.indexOf("\r\n\r\n") + 4) });
    });
    const a2aVersion = version ? `A2A-Version: ${version}\r\n` : "";
    socket.write(`${head}\r\nHost: ${host ?? `${hostname}:${port}`}\r\n${a2aVersion}Connection: close\r\n\r\n${body}`);
  });
}

/** The request line and headers of a raw JSON POST of `body` to `path` (for rawRequest). */
export const rawPost = (path, body) =>
  `POST ${path} HTTP/1.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}`;
