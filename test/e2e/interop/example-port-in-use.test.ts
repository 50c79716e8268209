/**
 * example/server.ts on a port another process holds: one line naming the port
 * and the flag that moves it, exit 1, for every framework and for the gRPC
 * port (Express 5 once handed the error to a callback that ignored it and
 * crashed on a null address; Hono's server threw EADDRINUSE unhandled).
 */
import { spawn } from "node:child_process";
import { createServer, type AddressInfo, type Server } from "node:net";
import { join } from "node:path";
import { afterAll, beforeAll, expect, test } from "vitest";

const root = join(import.meta.dirname, "..", "..", "..");

let holder: Server;
let held: number;
beforeAll(async () => {
  holder = createServer();
  await new Promise<void>((ok) => holder.listen(0, "127.0.0.1", ok));
  held = (holder.address() as AddressInfo).port;
});
afterAll(() => new Promise<void>((ok) => holder.close(() => ok())));

/** Runs the example with `args` to its exit; TypeScript and the runtime from source. */
function runExample(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawn(process.execPath, ["--conditions=a2a-http-source", "--import", "tsx", join(root, "example/server.ts"), ...args], {
    cwd: root,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
  child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
  // An agent that did start would serve until stopped: the test would time out, not pass.
  return new Promise((ok) => child.once("exit", (code) => ok({ code, stdout, stderr })));
}

test("a port in use: one line naming it and its flag, exit 1, on every framework and on the gRPC port", async () => {
  const runs = await Promise.all([
    ...["express", "fastify", "hono"].map((framework) => runExample(["--framework", framework, "--port", String(held), "--grpc-port=-1"])),
    runExample(["--port", "0", "--grpc-port", String(held)]),
  ]);
  const http = `port ${held} is already in use on 127.0.0.1: set --port to another port, 0 for any free one\n`;
  const grpc = `port ${held} is already in use on 127.0.0.1: set --grpc-port to another port, 0 for any free one, or -1 for no gRPC\n`;
  expect(runs).toEqual([
    { code: 1, stdout: "", stderr: http },
    { code: 1, stdout: "", stderr: http },
    { code: 1, stdout: "", stderr: http },
    { code: 1, stdout: "", stderr: grpc },
  ]);
}, 60_000);
