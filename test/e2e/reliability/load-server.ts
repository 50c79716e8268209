// The server side of the load test, in its own process (so that the load
// generator and the server do not share one event loop): starts the A2A
// service on the framework given as argv[2], its streams of argv[3] events,
// and sends its URL to the parent.
import type { HandlerContext } from "a2a-http";
import { start, type Framework } from "../../runtime/server/harness.js";

const framework = process.argv[2] as Framework;
const EVENTS = Number(process.argv[3]);
const server = await start(
  framework,
  {
    kind: "a2a",
    handlers: {
      getTask: (req: { id: string }) => ({ id: req.id, contextId: "c" }),
      async *subscribeToTask(req: { id: string }, ctx: HandlerContext) {
        for (let n = 0; n < EVENTS; n++) {
          if (ctx.signal.aborted) return;
          yield {
            payload: { case: "statusUpdate" as const, value: { taskId: req.id, contextId: "c", status: { state: 2 }, metadata: { n } } },
          };
          if (n % 10 === 9) await new Promise((r) => setImmediate(r));
        }
      },
    },
  } as never,
  { onError: () => {} },
);
process.send?.({ url: server.url });
process.on("message", async (m) => {
  if (m === "stop") {
    await server.close();
    process.exit(0);
  }
});
