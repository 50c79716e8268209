// Health endpoints (issue 40 item 5): GET/HEAD /healthz (the process
// serves) and /readyz (the readiness function: an agent's store answers and
// its close() has not begun), with Cache-Control: no-store and a small JSON
// body. The core first, then the agent's readiness, then every adapter
// (Express, Fastify, Hono on @hono/node-server, fetch) on 127.0.0.1 beside
// the A2A service: no A2A-Version needed, never under a tenant, the Host
// not checked (a probe's Host is the pod's address), and /readyz 503 once
// the agent's close() began.
import { createServer, request as httpRequest, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterAll, describe, expect, test } from "vitest";
import { healthAnswer, healthFetch, healthHono, healthPath, type HealthAnswer } from "a2a-http/server";
import { healthExpress } from "a2a-http/node";
import { healthFastify } from "a2a-http/fastify";
import { createMemoryStore, storeReadiness, type AgentStore } from "a2a-http/agent";
import { sqlPing } from "a2a-http/stores";
import { createA2AServiceAgent } from "../../../gen/a2a_http_agent.js";
import { a2aServiceExpress } from "../../../gen/a2a_http_express.js";
import { a2aServiceFastify } from "../../../gen/a2a_http_fastify.js";
import { a2aServiceHono } from "../../../gen/a2a_http_hono.js";
import { createFetchHandler } from "a2a-http/server";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { AgentCardSchema } from "../../../gen/a2a_pb.js";
import { startExampleAgent } from "../../../example/server.js";
import { create } from "@bufbuild/protobuf";

const settle = async (a: HealthAnswer | Promise<HealthAnswer> | undefined) => a && (await a);

describe("the core", () => {
  test("/healthz: 200, no-store, JSON; HEAD without a body but with the GET's length", async () => {
    const health = healthAnswer({ ready: () => false });
    const get = await settle(health("GET", "/healthz"));
    expect(get).toEqual({
      status: 200,
      headers: { "content-type": "application/json", "cache-control": "no-store", "content-length": "15" },
      body: '{"status":"ok"}',
    });
    const head = await settle(health("HEAD", "/healthz"));
    expect(head?.body).toBe("");
    expect(head?.headers["content-length"]).toBe("15");
  });

  test("/readyz follows the readiness function: true 200, false 503, a throw or rejection 503", async () => {
    let ready: boolean | Error = true;
    const health = healthAnswer({
      ready: async () => {
        if (ready instanceof Error) throw ready;
        return ready;
      },
    });
    expect((await settle(health("GET", "/readyz")))?.status).toBe(200);
    ready = false;
    const no = await settle(health("GET", "/readyz"));
    expect(no?.status).toBe(503);
    expect(no?.body).toBe('{"status":"unavailable"}');
    expect(no?.headers["cache-control"]).toBe("no-store");
    ready = new Error("store down");
    expect((await settle(health("GET", "/readyz")))?.status).toBe(503);
    expect((await settle(healthAnswer({ ready: () => true })("GET", "/readyz")))?.status).toBe(200);
    expect(
      (
        await settle(
          healthAnswer({
            ready: () => {
              throw new Error("sync throw");
            },
          })("GET", "/readyz"),
        )
      )?.status,
    ).toBe(503);
  });

  test("/readyz without a readiness function is /healthz; a readiness that hangs is 503 past readyTimeoutMs", async () => {
    expect((await settle(healthAnswer()("GET", "/readyz")))?.status).toBe(200);
    const started = Date.now();
    const hangs = healthAnswer({ ready: () => new Promise<boolean>(() => {}), readyTimeoutMs: 50 });
    expect((await settle(hangs("GET", "/readyz")))?.status).toBe(503);
    expect(Date.now() - started).toBeLessThan(1_000);
    expect(() => healthAnswer({ readyTimeoutMs: -1 })).toThrow(RangeError);
  });

  test("only GET and HEAD of the two exact paths; a query is allowed", async () => {
    const health = healthAnswer();
    expect(health("POST", "/healthz")).toBeUndefined();
    expect(health("GET", "/healthz/")).toBeUndefined();
    expect(health("GET", "/t1/healthz")).toBeUndefined();
    expect(health("GET", "/readyzz")).toBeUndefined();
    expect(health("GET", "/")).toBeUndefined();
    expect((await settle(health("GET", "/healthz?probe=1")))?.status).toBe(200);
    expect(healthPath("/readyz?x")).toBe("ready");
    expect(healthPath("/healthz")).toBe("live");
    expect(healthPath("/HEALTHZ")).toBeUndefined();
  });
});

describe("an agent's readiness (storeReadiness)", () => {
  test("the memory store always answers; closing makes it false", async () => {
    let closing = false;
    const ready = storeReadiness(createMemoryStore(), () => closing);
    expect(await ready()).toBe(true);
    closing = true;
    expect(await ready()).toBe(false);
  });

  test("a store without ping counts as answering; a failing or slow ping is not ready", async () => {
    const bare: AgentStore = { tasks: createMemoryStore().tasks, pushConfigs: createMemoryStore().pushConfigs };
    expect(await storeReadiness(bare, () => false)()).toBe(true);
    const failing: AgentStore = { ...bare, ping: () => Promise.reject(new Error("connection refused")) };
    expect(await storeReadiness(failing, () => false)()).toBe(false);
    const slow: AgentStore = { ...bare, ping: () => new Promise<void>((ok) => setTimeout(ok, 500)) };
    expect(await storeReadiness(slow, () => false, { timeoutMs: 30 })()).toBe(false);
  });

  test("probes that arrive while a ping is on its way share it", async () => {
    let pings = 0;
    let answer: () => void = () => {};
    const store: AgentStore = {
      ...createMemoryStore(),
      ping: () => {
        pings++;
        return new Promise<void>((ok) => (answer = ok));
      },
    };
    const ready = storeReadiness(store, () => false);
    const all = Promise.all([ready(), ready(), ready()]);
    answer();
    expect(await all).toEqual([true, true, true]);
    expect(pings).toBe(1);
    const again = ready();
    answer();
    expect(await again).toBe(true);
    expect(pings).toBe(2);
  });

  test("the SQL store's ping is one SELECT 1 (the store itself: test/runtime/agent/open-store.test.ts)", async () => {
    const texts: string[] = [];
    let fail = false;
    const db = {
      query: async (text: string) => {
        texts.push(text);
        if (fail) throw new Error("connection terminated");
        return { rows: [{ "?column?": 1 }], rowCount: 1 };
      },
      exec: async () => {},
    };
    const store: AgentStore = { ...createMemoryStore(), ping: sqlPing(db) };
    expect(await storeReadiness(store, () => false)()).toBe(true);
    fail = true;
    expect(await storeReadiness(store, () => false)()).toBe(false);
    expect(texts).toEqual(["SELECT 1", "SELECT 1"]);
  });
});

type Framework = "express" | "fastify" | "hono" | "fetch";

interface Running {
  readonly origin: string;
  /** Begins the agent's close (what a SIGTERM handler does first). */
  beginClose(): void;
  stop(): Promise<void>;
}

/** The A2A service (HTTP+JSON at `/`, Host check on) and the health endpoints, on one framework. */
async function start(framework: Framework): Promise<Running> {
  const card = create(AgentCardSchema, { name: "health", capabilities: { streaming: true } });
  const store = createMemoryStore();
  const agent = createA2AServiceAgent(async (_input, t) => void t.complete({ parts: [{ content: { case: "text", value: "ok" } }] }), {
    card,
    store,
  });
  // The agent's own ready() once the engine has it; until then the same readiness, from its store.
  let closing = false;
  const ready = agent.ready ? () => agent.ready!() : storeReadiness(store, () => closing);
  const beginClose = () => {
    closing = true;
    void agent.close();
  };
  // A list of public names: a probe's Host (the pod's address) is not among them.
  const hosts = { allowedHosts: ["agent.example"] };
  let server: Server;
  let close: () => Promise<void> = () => new Promise<void>((ok) => server.close(() => ok()));
  switch (framework) {
    case "express": {
      const app = express();
      app.use(healthExpress({ ready }));
      app.use("/", a2aServiceExpress(agent, hosts));
      server = createServer(app);
      break;
    }
    case "fastify": {
      const app = Fastify();
      await app.register(healthFastify({ ready }));
      await app.register(a2aServiceFastify, { handlers: agent, ...hosts });
      await app.ready();
      server = app.server;
      close = () => app.close();
      break;
    }
    case "hono": {
      const app = new Hono();
      app.use(healthHono({ ready }));
      app.route("/", a2aServiceHono(agent, hosts));
      server = createServer(getRequestListener(app.fetch));
      break;
    }
    case "fetch": {
      const health = healthFetch({ ready });
      const service = createFetchHandler(A2AServiceRoutes, agent, { ...hosts, profile: "a2a" });
      server = createServer(getRequestListener((request: Request) => health(request) ?? service(request)));
      break;
    }
  }
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    beginClose,
    stop: async () => {
      server.closeAllConnections();
      await close();
      await agent.close();
    },
  };
}

/** One request with the Host given (fetch sets its own), as node sends it. */
function call(
  origin: string,
  path: string,
  options: { method?: string; headers?: Record<string, string> } = {},
): Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: string }> {
  const { hostname, port } = new URL(origin);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: hostname, port, path, method: options.method ?? "GET", headers: options.headers ?? {}, agent: false },
      (res) => {
        let body = "";
        res.setEncoding("utf8");
        res.on("data", (c: string) => (body += c));
        res.on("end", () => resolve({ status: res.statusCode!, headers: res.headers, body }));
      },
    );
    req.on("error", reject);
    req.end();
  });
}

for (const framework of ["express", "fastify", "hono", "fetch"] as const) {
  describe(`${framework}: /healthz and /readyz beside the A2A service`, () => {
    let running: Running | undefined;
    afterAll(() => running?.stop());

    test("both answer 200 without A2A-Version, whatever the Host; HEAD too", async () => {
      running = await start(framework);
      for (const path of ["/healthz", "/readyz"]) {
        const r = await call(running.origin, path, { headers: { host: "10.1.2.3:8080" } });
        expect(r.status, path).toBe(200);
        expect(r.headers["cache-control"]).toBe("no-store");
        expect(r.headers["content-type"]).toBe("application/json");
        expect(JSON.parse(r.body)).toEqual({ status: "ok" });
        const head = await call(running.origin, path, { method: "HEAD" });
        expect(head.status).toBe(200);
        expect(head.body).toBe("");
      }
      // The service beside them still checks the Host (421).
      const refused = await call(running.origin, "/tasks/t1", { headers: { host: "10.1.2.3:8080", "a2a-version": "1.0" } });
      expect(refused.status).toBe(421);
    });

    test("not under a tenant: /{tenant}/healthz is the service's (not a health answer)", async () => {
      const r = await call(running!.origin, "/t1/healthz", { headers: { host: "agent.example", "a2a-version": "1.0" } });
      expect(r.status).not.toBe(200);
      expect(r.headers["cache-control"]).not.toBe("no-store");
    });

    test("once the agent's close() began, /readyz is 503 and /healthz still 200", async () => {
      running!.beginClose();
      const ready = await fetch(`${running!.origin}/readyz`);
      expect(ready.status).toBe(503);
      expect(await ready.json()).toEqual({ status: "unavailable" });
      expect(ready.headers.get("cache-control")).toBe("no-store");
      expect((await fetch(`${running!.origin}/healthz`)).status).toBe(200);
    });
  });
}

describe("the example agent mounts them on every framework", () => {
  for (const framework of ["express", "fastify", "hono"] as const) {
    test(framework, async () => {
      const agent = await startExampleAgent({ framework, port: 0, grpcPort: -1, allowedHosts: ["agent.example"] });
      try {
        for (const path of ["/healthz", "/readyz"]) {
          const r = await call(agent.url, path, { headers: { host: "10.1.2.3:8080" } });
          expect([path, r.status, r.headers["cache-control"], r.body]).toEqual([path, 200, "no-store", '{"status":"ok"}']);
        }
      } finally {
        await agent.close();
      }
    });
  }
});
