/**
 * Two agent instances on one SQL database behave as one agent (issue 27,
 * item 3): a subscriber on B sees every event of an executor running on A,
 * in order, once; a cancel sent to B stops the executor on A; a task whose
 * instance stopped renewing its lease is ended FAILED by the other; push
 * deliveries wait in the outbox until a webhook takes them, across a restart.
 *
 * Runs on PGlite (two stores, each its own instance, over one in-process
 * database) and on the PostgreSQL server of DATABASE_URL (two pools).
 */
import { createServer, type IncomingMessage, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { AgentStore } from "a2a-http/agent";
import { TaskState, type StreamResponse, type Task } from "../../../gen/a2a_pb.js";
import {
  clientFor,
  collect,
  describeEvents,
  eventually,
  gate,
  openAllGates,
  sleep,
  textOf,
  until,
  userMessage,
  type TestAgent,
} from "./engine-harness.js";
import { describeSqlEngines, useDatabase } from "./sql-databases.js";
import { LOCAL_PUSH, sqlInstances } from "./sql-instances.js";

describeSqlEngines((engine) =>
  describe("two instances on one database", () => {
    let a: TestAgent;
    let b: TestAgent;
    const { agents, storeOn, agentOn } = sqlInstances(useDatabase(engine));

    beforeAll(async () => {
      a = await agentOn("A");
      b = await agentOn("B");
    }, 60_000);

    afterAll(async () => {
      openAllGates();
      for (const agent of agents) await agent.close();
    }, 60_000);

    it("100 tasks started on A and followed on B: every event, in order, once", async () => {
      const steps = 5;
      const started = gate();
      const key = a.script(async (input, task) => {
        await until(started, input.signal);
        for (let i = 1; i <= steps; i++) {
          await task.working(`step ${i}`);
          if (i % 2 === 0) await task.artifact({ artifactId: `a${i}`, parts: [{ content: { case: "text", value: `part ${i}` } }] });
        }
        await task.complete();
      });
      const ca = clientFor("http+json", a);
      const cb = clientFor("http+json", b);
      const tasks = await Promise.all(
        Array.from({ length: 100 }, () =>
          ca
            .sendMessage({ message: userMessage(`${key} go`), configuration: { returnImmediately: true } })
            .then((r) => r.payload.value as Task),
        ),
      );
      // Every subscription is open (its first event, the Task, has come) before any executor goes on.
      const streams = await Promise.all(
        tasks.map(async (t) => {
          const it = cb.subscribeToTask({ id: t.id })[Symbol.asyncIterator]();
          const first = await it.next();
          return { first: first.value as StreamResponse, it };
        }),
      );
      started.open();
      const got = await Promise.all(
        streams.map(async ({ first, it }) => {
          const events = [first];
          for (let r = await it.next(); !r.done; r = await it.next()) events.push(r.value);
          return events;
        }),
      );
      const expected = [
        "status:2:step 1",
        "status:2:step 2",
        "artifact:a2",
        "status:2:step 3",
        "status:2:step 4",
        "artifact:a4",
        "status:2:step 5",
        "status:3",
      ];
      for (const events of got) {
        const d = describeEvents(events);
        expect(d[0]).toMatch(/^task:/);
        // The Task shows where the task was when B subscribed; what follows is the rest, once each, in order.
        const doneSoFar = (events[0]!.payload.value as Task).history.length;
        expect(doneSoFar).toBeGreaterThanOrEqual(1);
        expect(d.slice(1)).toEqual(expected.slice(expected.length - (d.length - 1)));
        expect(d.at(-1)).toBe("status:3");
      }
      // All subscribed before the executors began: they saw every event.
      expect(got.map((events) => events.length)).toEqual(got.map(() => expected.length + 1));
    }, 60_000);

    it("SendStreamingMessage on A and SubscribeToTask on B see the same events", async () => {
      const go = gate();
      const key = a.script(async (input, task) => {
        await task.working("one");
        await until(go, input.signal);
        await task.working("two");
        await task.complete("done");
      });
      const it1 = clientFor("jsonrpc", a)
        .sendStreamingMessage({ message: userMessage(`${key} x`) })
        [Symbol.asyncIterator]();
      const first = (await it1.next()).value as StreamResponse;
      const id = (first.payload.value as Task).id;
      const onB = collect(clientFor("grpc", b).subscribeToTask({ id }));
      await sleep(100);
      go.open();
      const restA: StreamResponse[] = [];
      for (let r = await it1.next(); !r.done; r = await it1.next()) restA.push(r.value);
      const fromB = await onB;
      const tail = (d: string[]) => d.slice(d.indexOf("status:2:two"));
      expect(tail(describeEvents(fromB.slice(1)))).toEqual(tail(describeEvents(restA)));
      expect(describeEvents(fromB).at(-1)).toBe("status:3");
    }, 30_000);

    it("GetTask and ListTasks on B see what A's executor wrote", async () => {
      const key = a.script(async (_input, task) => task.complete("from A"));
      const res = await clientFor("http+json", a).sendMessage({ message: userMessage(`${key} y`) });
      const t = res.payload.value as Task;
      const onB = await clientFor("http+json", b).getTask({ id: t.id });
      expect(onB.status?.state).toBe(TaskState.COMPLETED);
      expect(textOf(onB.artifacts[0])).toBe("from A");
      const list = await clientFor("jsonrpc", b).listTasks({ contextId: t.contextId });
      expect(list.tasks.map((x) => x.id)).toEqual([t.id]);
    });

    it("a cancel sent to B stops the executor on A; A's blocking SendMessage answers CANCELED", async () => {
      let aborted: unknown;
      const key = a.script(async (input, task) => {
        await task.working("busy");
        await new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
        aborted = input.signal.reason;
        // Too late: the task was canceled elsewhere.
        await task.complete("late").catch(() => {});
      });
      const ca = clientFor("http+json", a);
      const blocking = ca.sendMessage({ message: userMessage(`${key} z`) });
      let id = "";
      await eventually(async () => {
        const list = await ca.listTasks({ status: TaskState.WORKING });
        const found = list.tasks.find((x) => x.history.some((m) => textOf(m) === `${key} z`));
        id = found?.id ?? "";
        return id !== "";
      });
      const canceled = await clientFor("grpc", b).cancelTask({ id });
      expect(canceled.status?.state).toBe(TaskState.CANCELED);
      const answer = await blocking;
      expect((answer.payload.value as Task).status?.state).toBe(TaskState.CANCELED);
      await eventually(() => aborted !== undefined);
      expect(String((aborted as Error).message)).toMatch(/canceled/);
      const after = await clientFor("http+json", b).getTask({ id });
      expect(after.status?.state).toBe(TaskState.CANCELED);
      expect(after.artifacts).toEqual([]);
    }, 30_000);

    it("a follow-up to a task still working on A is refused on B; once A asks for input, B takes the next turn", async () => {
      const asked = gate();
      const key = a.script(async (input, task) => {
        await until(asked, input.signal);
        await task.askForInput("more?");
      });
      const ca = clientFor("http+json", a);
      const t = (await ca.sendMessage({ message: userMessage(`${key} q`), configuration: { returnImmediately: true } })).payload
        .value as Task;
      const cb = clientFor("http+json", b);
      await expect(cb.sendMessage({ message: userMessage("echo this", { taskId: t.id }) })).rejects.toThrow(/still working/);
      asked.open();
      await eventually(async () => (await cb.getTask({ id: t.id })).status?.state === TaskState.INPUT_REQUIRED);
      // B's executor (the echo) runs the next turn.
      const r = await cb.sendMessage({ message: userMessage("echo this", { taskId: t.id }) });
      const done = r.payload.value as Task;
      expect(done.status?.state).toBe(TaskState.COMPLETED);
      expect(textOf(done.artifacts.at(-1))).toBe("echo: echo this");
    }, 30_000);

    it("a task whose instance stopped renewing its lease is ended FAILED by another, with a reason that says so", async () => {
      // Instance C is alive as far as its executor knows, but its renewals never reach the database (as if it had died).
      const storeC = await storeOn("C", 300);
      const deaf: AgentStore = { ...storeC, shared: { ...storeC.shared!, renew: async () => {} } };
      const c = await agentOn("C", { store: deaf });
      const d = await agentOn("D", { leaseMs: 300 });
      const key = c.script(async (input, task) => {
        await task.working("started");
        await new Promise<void>((resolve) => input.signal.addEventListener("abort", () => resolve(), { once: true }));
      });
      const t = (
        await clientFor("http+json", c).sendMessage({ message: userMessage(`${key} w`), configuration: { returnImmediately: true } })
      ).payload.value as Task;
      const onD = collect(clientFor("http+json", d).subscribeToTask({ id: t.id }));
      let failed: Task | undefined;
      await eventually(async () => {
        failed = await clientFor("http+json", d).getTask({ id: t.id });
        return failed.status?.state === TaskState.FAILED;
      }, 10_000);
      expect(textOf(failed!.status?.message)).toMatch(/instance that was working on this task stopped renewing its lease/);
      expect(describeEvents(await onD).at(-1)).toMatch(/^status:4:the agent instance/);
    }, 30_000);

    it("a push receiver that fails three times gets every notification, in order, after the sending instance restarts", async () => {
      const received: { state: string; body: string }[] = [];
      let failures = 0;
      const server: Server = createServer((req: IncomingMessage, res) => {
        let body = "";
        req.on("data", (c) => (body += c));
        req.on("end", () => {
          if (failures < 3) {
            failures++;
            res.writeHead(503).end();
            return;
          }
          const e = JSON.parse(body) as { statusUpdate?: { status?: { state?: string } }; task?: { status?: { state?: string } } };
          received.push({ state: e.statusUpdate?.status?.state ?? e.task?.status?.state ?? "?", body });
          res.writeHead(200).end();
        });
      });
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`;
      try {
        // E writes the task and its deliveries, and stops before any is sent (its receiver is failing).
        // Its retry comes due within a second, when E is gone.
        const e = await agentOn("E", { push: { ...LOCAL_PUSH, baseDelayMs: 1_000, maxDelayMs: 1_000 } });
        const key = e.script(async (_input, task) => {
          await task.working("w1");
          await task.working("w2");
          await task.complete();
        });
        const r = await clientFor("http+json", e).sendMessage({
          message: userMessage(`${key} p`),
          configuration: { taskPushNotificationConfig: { url, token: "tok" } },
        });
        expect((r.payload.value as Task).status?.state).toBe(TaskState.COMPLETED);
        await eventually(() => failures >= 1);
        await e.close();
        agents.splice(agents.indexOf(e), 1);
        // A new instance on the same database sends what is left, once the claims of the stopped one lapse.
        await agentOn("F", { push: { ...LOCAL_PUSH, timeoutMs: 200 } });
        await eventually(() => received.length >= 4, 20_000);
        await sleep(200);
        expect(received.map((x) => x.state)).toEqual([
          "TASK_STATE_SUBMITTED",
          "TASK_STATE_WORKING",
          "TASK_STATE_WORKING",
          "TASK_STATE_COMPLETED",
        ]);
        expect(failures).toBe(3);
      } finally {
        server.closeAllConnections();
        await new Promise<void>((resolve) => server.close(() => resolve()));
      }
    }, 40_000);

    it("no instance reported an error", () => {
      for (const agent of agents) expect(agent.errors).toEqual([]);
    });
  }),
);
