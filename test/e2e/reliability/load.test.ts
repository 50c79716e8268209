// Load through the generated client: 200 concurrent unary calls and 50
// concurrent streams at once, on each framework, for LOAD_SECONDS (short in
// `npm test`, 10 s in `npm run soak`). No call may fail, every unary answer
// must be its own, and every stream must deliver its events in sequence,
// none lost and none twice.
import { fork, type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, test } from "vitest";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { frameworks } from "../../runtime/server/harness.js";
import { reportFigure } from "./report.js";

const SECONDS = Number(process.env["LOAD_SECONDS"] ?? 1.5);
const UNARY = 200;
const STREAMS = 50;
const EVENTS = 50;

describe.each(frameworks)("load on %s", (framework) => {
  let child: ChildProcess;
  const server = { url: "" };
  beforeAll(async () => {
    // The server runs in a process of its own, from the runtime's source.
    child = fork(fileURLToPath(new URL("./load-server.ts", import.meta.url)), [framework, String(EVENTS)], {
      execArgv: ["--import", "tsx", "--conditions", "a2a-http-source"],
      stdio: ["ignore", "inherit", "inherit", "ipc"],
    });
    server.url = await new Promise<string>((resolve, reject) => {
      child.once("message", (m) => resolve((m as { url: string }).url));
      child.once("exit", (code) => reject(new Error(`the load server exited with ${code}`)));
    });
  });
  afterAll(async () => {
    const exited = new Promise((r) => child.once("exit", r));
    child.send("stop");
    await exited;
  });

  test(
    `${UNARY} concurrent unary calls and ${STREAMS} concurrent streams for ${SECONDS} s`,
    async () => {
      const client = createA2AServiceClient({ baseUrl: server.url });
      const until = Date.now() + SECONDS * 1000;
      const figures = { calls: 0, wrongAnswers: 0, streams: 0, events: 0, lost: 0, duplicated: 0, outOfOrder: 0, errors: 0 };
      const errors: string[] = [];
      let seq = 0;
      const unaryWorker = async (w: number) => {
        while (Date.now() < until) {
          const id = `u${w}-${seq++}`;
          try {
            const t = await client.getTask({ id });
            figures.calls++;
            if (t.id !== id) figures.wrongAnswers++;
          } catch (e) {
            figures.errors++;
            errors.push(String(e));
          }
        }
      };
      const streamWorker = async (w: number) => {
        while (Date.now() < until) {
          const id = `s${w}-${seq++}`;
          const seen = new Set<number>();
          let last = -1;
          try {
            for await (const e of client.subscribeToTask({ id })) {
              const value = e.payload.case === "statusUpdate" ? e.payload.value : undefined;
              const n = Number(value?.metadata?.["n"]);
              if (value?.taskId !== id) figures.wrongAnswers++;
              if (seen.has(n)) figures.duplicated++;
              if (n !== last + 1) figures.outOfOrder++;
              seen.add(n);
              last = n;
              figures.events++;
            }
            figures.streams++;
            figures.lost += EVENTS - seen.size;
          } catch (e) {
            figures.errors++;
            errors.push(String(e));
          }
        }
      };
      const t0 = Date.now();
      await Promise.all([
        ...Array.from({ length: UNARY }, (_, w) => unaryWorker(w)),
        ...Array.from({ length: STREAMS }, (_, w) => streamWorker(w)),
      ]);
      const seconds = (Date.now() - t0) / 1000;
      reportFigure(`load-${framework}`, { seconds: Number(seconds.toFixed(1)), ...figures });
      console.log(`load ${framework}: ${JSON.stringify(figures)} in ${seconds.toFixed(1)} s`);
      expect(errors.slice(0, 3)).toEqual([]);
      expect(figures).toMatchObject({ wrongAnswers: 0, lost: 0, duplicated: 0, outOfOrder: 0, errors: 0 });
      expect(figures.calls).toBeGreaterThan(UNARY);
      expect(figures.streams).toBeGreaterThan(0);
    },
    SECONDS * 1000 + 60_000,
  );
});
