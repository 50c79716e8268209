/**
 * Issue 28 item 3 (the reader that never reads): a connection whose answer
 * makes no progress is closed (server/stall.ts); one that has nothing
 * pending is left alone. Backpressure already bounds what is buffered
 * (test/reliability/streams.test.ts); this bounds how long.
 */
import { afterEach, describe, expect, it } from "vitest";
import { createServer, type Server } from "node:http";
import net from "node:net";
import type { AddressInfo } from "node:net";
import { closeWhenStalled } from "../../packages/runtime/src/server/stall.js";

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
