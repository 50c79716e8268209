/**
 * Issue 28 item 3 (the reader that never reads): a connection whose answer
 * makes no progress is closed (server/stall.ts); one that has nothing
 * pending is left alone. Backpressure already bounds what is buffered
 * (test/e2e/reliability/streams.test.ts); this bounds how long.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import net from "node:net";
import type { AddressInfo, Socket } from "node:net";
import Fastify from "fastify";
import { closeWhenStalled } from "../../../packages/runtime/src/server/stall.js";
import { a2aServiceExpress, a2aServiceJsonRpcExpress } from "../../../gen/a2a_http_express.js";
import { a2aServiceFastify, a2aServiceJsonRpcFastify } from "../../../gen/a2a_http_fastify.js";
import { a2aServiceHono, a2aServiceJsonRpcHono } from "../../../gen/a2a_http_hono.js";
import { frameworks, startBoth } from "./harness.js";

let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((ok) => (server ? server.close(() => ok()) : ok()));
  server = undefined;
});

async function serve(body: string): Promise<{ port: number; serverClosed: Promise<void> }> {
  let closed!: () => void;
  const serverClosed = new Promise<void>((ok) => (closed = ok));
  server = createServer((req, res) => {
    closeWhenStalled(req.socket, 100);
    req.socket.once("close", () => closed());
    res.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(body) });
    res.end(body);
  });
  await new Promise<void>((ok) => server!.listen(0, "127.0.0.1", ok));
  return { port: (server.address() as AddressInfo).port, serverClosed };
}

describe("closeWhenStalled", () => {
  it("closes a connection whose client never reads a large answer", async () => {
    const { port, serverClosed } = await serve("x".repeat(64 * 1024 * 1024));
    const client = net.connect(port, "127.0.0.1");
    client.pause(); // never reads: kernel buffers fill, then the server's
    client.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    const clientClosed = new Promise<void>((ok) => client.once("close", () => ok()));
    client.on("error", () => {});
    await serverClosed; // the server gives up on the connection
    let got = 0;
    client.on("data", (d: Buffer) => (got += d.length));
    client.resume(); // what reached the client's buffers, then the end
    await clientClosed;
    expect(got).toBeLessThan(64 * 1024 * 1024);
  });

  it("leaves alone a connection with nothing pending, and a reader that reads", async () => {
    const { port, serverClosed } = await serve("x".repeat(4 * 1024 * 1024));
    // Read at once: output moves, so the guard never fires.
    const client = net.connect(port, "127.0.0.1");
    let got = 0;
    client.on("data", (d: Buffer) => (got += d.length));
    client.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await new Promise<void>((ok) => {
      const check = () => (got > 4 * 1024 * 1024 ? ok() : setTimeout(check, 20));
      check();
    });
    // Several guard periods on an idle keep-alive connection: still open.
    await new Promise((ok) => setTimeout(ok, 500));
    expect(client.destroyed).toBe(false);
    client.destroy();
    await serverClosed;
  });
});

describe("closeWhenStalled with 0", () => {
  it("checks nothing: a client that never reads keeps its connection", async () => {
    let socketClosed = false;
    server = createServer((req, res) => {
      closeWhenStalled(req.socket, 0);
      req.socket.once("close", () => (socketClosed = true));
      const body = "x".repeat(64 * 1024 * 1024);
      res.writeHead(200, { "content-length": Buffer.byteLength(body) });
      res.end(body);
    });
    await new Promise<void>((ok) => server!.listen(0, "127.0.0.1", ok));
    const port = (server.address() as AddressInfo).port;
    const client = net.connect(port, "127.0.0.1");
    client.pause();
    client.on("error", () => {});
    client.write(`GET / HTTP/1.1\r\nHost: 127.0.0.1:${port}\r\n\r\n`);
    await new Promise((ok) => setTimeout(ok, 600));
    expect(socketClosed).toBe(false);
    client.destroy();
  });
});

/** A ListTasks answer of about 48 MB: more than loopback's socket buffers hold, so a reader that never reads stalls it. */
const bigList = () => ({ tasks: [{ id: "t1", contextId: "c1", metadata: { big: "x".repeat(48 * 1024 * 1024) } }] });

/** The server side of the connection of the request being served, caught by the context factory from the framework's request. */
let serverSocket: Socket | undefined;
const catchSocket = ({ native }: { native: unknown }) => {
  const n = native as { socket?: Socket; raw?: { socket?: Socket }; env?: { incoming?: { socket?: Socket } } };
  serverSocket = n.raw?.socket ?? n.env?.incoming?.socket ?? n.socket;
  return {};
};

describe.each(frameworks)("the stallTimeoutMs server option (%s)", (framework) => {
  it("closes, after one to two periods, a connection whose client never reads its answer, on HTTP+JSON and JSON-RPC", async () => {
    const s = await startBoth(framework, { listTasks: bigList }, { stallTimeoutMs: 150, context: catchSocket });
    try {
      // The server gives up on the stalled connection within seconds (the default, 30 s, would not),
      // short of the answer's 48 MB.
      const rest = await stalledRead(s.origin, "GET /tasks HTTP/1.1");
      const rpcBody = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "ListTasks", params: {} });
      const rpc = await stalledRead(s.origin, "POST /jsonrpc HTTP/1.1", rpcBody);
      expect(rest.closedByServer).toBe(true);
      expect(rest.got).toBeLessThan(48 * 1024 * 1024);
      expect(rpc.closedByServer).toBe(true);
      expect(rpc.got).toBeLessThan(48 * 1024 * 1024);
    } finally {
      await s.close();
    }
  });
});

/**
 * Sends a request on a raw connection that reads nothing until the server
 * closed its side (or 10 s passed), then reads what reached it until the
 * connection ends: whether the server gave up, and the bytes read.
 */
function stalledRead(origin: string, head: string, body = ""): Promise<{ closedByServer: boolean; got: number }> {
  const { hostname, port } = new URL(origin);
  serverSocket = undefined;
  return new Promise((resolve) => {
    const client = net.connect(Number(port), hostname);
    client.pause(); // never reads: the kernel's buffers fill, then the server's
    client.on("error", () => {});
    let got = 0;
    let closedByServer = false;
    client.on("data", (d: Buffer) => (got += d.length));
    client.once("close", () => resolve({ closedByServer, got }));
    const type = body === "" ? "" : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n`;
    client.write(`${head}\r\nHost: ${hostname}:${port}\r\nA2A-Version: 1.0\r\nConnection: close\r\n${type}\r\n${body}`);
    const since = Date.now();
    const wait = setInterval(() => {
      closedByServer = serverSocket?.destroyed === true;
      if (!closedByServer && Date.now() - since < 10_000) return;
      clearInterval(wait);
      client.resume();
    }, 50);
  });
}

describe("a bad stallTimeoutMs is an error when the server is made", () => {
  for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, 2 ** 31, "30s"]) {
    it(`${String(bad)}: every adapter, HTTP+JSON and JSON-RPC`, async () => {
      const options = { stallTimeoutMs: bad as number };
      const message = /stallTimeoutMs must be a whole number of milliseconds from 0/;
      expect(() => a2aServiceExpress({}, options)).toThrow(message);
      expect(() => a2aServiceJsonRpcExpress({}, options)).toThrow(message);
      expect(() => a2aServiceHono({}, options)).toThrow(message);
      expect(() => a2aServiceJsonRpcHono({}, options)).toThrow(message);
      for (const plugin of [a2aServiceFastify, a2aServiceJsonRpcFastify]) {
        const app = Fastify();
        void app.register(plugin, { handlers: {}, ...options });
        await expect(app.ready()).rejects.toThrow(message);
      }
    });
  }
  it("0 and the largest timer delay are taken", () => {
    expect(() => a2aServiceExpress({}, { stallTimeoutMs: 0 })).not.toThrow();
    expect(() => a2aServiceJsonRpcHono({}, { stallTimeoutMs: 2 ** 31 - 1 })).not.toThrow();
  });
});
