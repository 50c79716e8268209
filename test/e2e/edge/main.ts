/**
 * What Bun and Deno run (bundled by harness.ts):
 *
 *     serve            serves the example agent on a free 127.0.0.1 port, then prints {"port":n}
 *     client <url>     runs the generated client against the agent at <url>, prints its results as JSON
 */
import { createEdgeAgent, type EdgeFetch } from "./agent-app.js";
import { runClient } from "./client-run.js";

/** The little of Bun's and Deno's globals used here (their types are not installed). */
interface Host {
  readonly args: readonly string[];
  serve(fetch: EdgeFetch, listening: (port: number) => void): void;
  exit(code: number): never;
}
declare const Bun: {
  argv: string[];
  serve(o: { port: number; hostname: string; fetch: EdgeFetch }): { port: number };
};
declare const Deno: {
  args: string[];
  serve(o: { port: number; hostname: string; onListen(a: { port: number }): void }, fetch: EdgeFetch): unknown;
  exit(code: number): never;
};

const host: Host =
  typeof Bun !== "undefined"
    ? {
        args: Bun.argv.slice(2),
        serve: (fetch, listening) => listening(Bun.serve({ port: 0, hostname: "127.0.0.1", fetch }).port),
        exit: (code) => (globalThis as unknown as { process: { exit(code: number): never } }).process.exit(code),
      }
    : {
        args: Deno.args,
        serve: (fetch, listening) => Deno.serve({ port: 0, hostname: "127.0.0.1", onListen: ({ port }) => listening(port) }, fetch),
        exit: (code) => Deno.exit(code),
      };

const [mode, url] = host.args;
if (mode === "serve") {
  host.serve(createEdgeAgent(), (port) => console.log(JSON.stringify({ port })));
} else if (mode === "client" && url) {
  try {
    console.log(JSON.stringify(await runClient(url)));
  } catch (e) {
    console.error(e instanceof Error ? (e.stack ?? e.message) : String(e));
    host.exit(1);
  }
} else {
  console.error("usage: serve | client <agent-url>");
  host.exit(2);
}
