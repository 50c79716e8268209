// The agent card with HTTP caching (A2A §8.6.1): Cache-Control, a strong
// ETag from the content, Last-Modified, and 304 on If-None-Match (lists,
// `*`, weak form) or, without one, If-Modified-Since; HEAD as GET without a
// body. The core first, then each framework's handler on 127.0.0.1.
import { createServer, type Server } from "node:http";
import { connect, type AddressInfo } from "node:net";
import { getRequestListener } from "@hono/node-server";
import express from "express";
import Fastify from "fastify";
import { Hono } from "hono";
import { afterAll, afterEach, beforeAll, describe, expect, test, vi } from "vitest";
import { agentCardAnswer, agentCardExpress, agentCardFastify, agentCardFetch, agentCardHono, type AgentCardSource } from "a2a-http";
import { fnv1a64, ifNoneMatchHits, parseHttpDate } from "../../../packages/runtime/src/server/agent-card.js";

const utf8 = new TextEncoder();
const cardA = { name: "Agent A", description: "Ünïcode too", url: "http://127.0.0.1/", skills: [] };
const cardB = { name: "Agent B", description: "another", url: "http://127.0.0.1/", skills: [] };
const none = new Headers();
const etagForm = /^"[0-9a-z]+-[0-9a-f]{16}"$/;

describe("the core", () => {
  afterEach(() => vi.useRealTimers());

  test("FNV-1a 64 gives the published test vectors", () => {
    expect(fnv1a64(utf8.encode(""))).toBe("cbf29ce484222325");
    expect(fnv1a64(utf8.encode("a"))).toBe("af63dc4c8601ec8c");
    expect(fnv1a64(utf8.encode("foobar"))).toBe("85944171f73967e8");
    expect(fnv1a64(Uint8Array.of(0xff, 0x00, 0x80))).not.toBe(fnv1a64(Uint8Array.of(0xff, 0x00, 0x81)));
  });

  test("If-None-Match: exact, in a list, weak, `*`; commas inside a tag; junk skipped", () => {
    const e = '"1a-00ff"';
    expect(ifNoneMatchHits(e, e)).toBe(true);
    expect(ifNoneMatchHits(`"x", ${e}`, e)).toBe(true);
    expect(ifNoneMatchHits(`"x",${e} , "y"`, e)).toBe(true);
    expect(ifNoneMatchHits(`W/${e}`, e)).toBe(true);
    expect(ifNoneMatchHits(`W/"x", W/${e}`, e)).toBe(true);
    expect(ifNoneMatchHits("*", e)).toBe(true);
    expect(ifNoneMatchHits(" * ", e)).toBe(true);
    expect(ifNoneMatchHits(`junk, ${e}`, e)).toBe(true);
    expect(ifNoneMatchHits('"a,"1a-00ff"', e)).toBe(false);
    expect(ifNoneMatchHits('"a,b", "c"', e)).toBe(false);
    expect(ifNoneMatchHits('"1a-00ff', e)).toBe(false);
    expect(ifNoneMatchHits("1a-00ff", e)).toBe(false);
    expect(ifNoneMatchHits('"1a-00f"', e)).toBe(false);
    expect(ifNoneMatchHits('"1a-00ffx"', e)).toBe(false);
    expect(ifNoneMatchHits('w/"1a-00ff"', e)).toBe(false);
    expect(ifNoneMatchHits("*x", e)).toBe(false);
    expect(ifNoneMatchHits("", e)).toBe(false);
  });

  test("HTTP-dates in the three forms; anything else is no date", () => {
    const t = Date.UTC(1994, 10, 6, 8, 49, 37) / 1000;
    expect(parseHttpDate("Sun, 06 Nov 1994 08:49:37 GMT")).toBe(t);
    expect(parseHttpDate("Sunday, 06-Nov-94 08:49:37 GMT")).toBe(t);
    expect(parseHttpDate("Sun Nov  6 08:49:37 1994")).toBe(t);
    expect(parseHttpDate(new Date(1_700_000_000_000).toUTCString())).toBe(1_700_000_000);
    for (const bad of [
      "",
      "1994-11-06",
      "Sun, 06 Nov 1994 08:49:37",
      "Sun, 06 Foo 1994 08:49:37 GMT",
      "Sun, 06 Nov 1994 25:49:37 GMT",
      "yesterday",
    ]) {
      expect(parseHttpDate(bad), bad).toBeUndefined();
    }
  });

  test("a 200 with the caching headers; HEAD has the GET's headers and no body", () => {
    const answer = agentCardAnswer(cardA);
    const get = answer("GET", none);
    const text = JSON.stringify(cardA);
    expect(get.status).toBe(200);
    expect(get.body).toBe(text);
    expect(get.headers).toEqual({
      "cache-control": "public, max-age=300",
      "content-type": "application/json",
      "content-length": String(utf8.encode(text).length),
      etag: `"${utf8.encode(text).length.toString(36)}-${fnv1a64(utf8.encode(text))}"`,
      "last-modified": expect.any(String),
      // The card of a v0.3 request differs from a v1.0 request's (docs/a2a.md, "v0.3 clients").
      vary: "A2A-Version",
    });
    expect(agentCardAnswer(cardA, { a2aV03: false })("GET", none).headers["vary"]).toBeUndefined();
    expect(answer("HEAD", none)).toEqual({ status: 200, headers: get.headers, body: "" });
    expect(agentCardAnswer(cardA, { maxAge: 0 })("GET", none).headers["cache-control"]).toBe("public, max-age=0");
  });

  test("an object, its JSON text and a function returning either answer alike", () => {
    const text = JSON.stringify(cardA);
    const sources: AgentCardSource[] = [cardA, text, () => cardA, () => text];
    const etags = sources.map((s) => agentCardAnswer(s)("GET", none).headers["etag"]);
    expect(new Set(etags).size).toBe(1);
    expect(agentCardAnswer(cardB)("GET", none).headers["etag"]).not.toBe(etags[0]);
  });

  test("a function is called per request; the same text is not hashed again, a new one is", () => {
    let card: object = cardA;
    const source = vi.fn(() => card);
    const answer = agentCardAnswer(source);
    const first = answer("GET", none);
    expect(answer("GET", none)).toBe(first); // the very object: nothing was recomputed
    expect(source).toHaveBeenCalledTimes(2);
    card = { ...cardA };
    expect(answer("GET", none)).toBe(first); // another object, the same JSON
    card = cardB;
    const second = answer("GET", none);
    expect(second.headers["etag"]).not.toBe(first.headers["etag"]);
    expect(second.body).toBe(JSON.stringify(cardB));
  });

  test("Last-Modified is when the content was first served, and moves when it changes", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 0, 700));
    let card: object = cardA;
    const answer = agentCardAnswer(() => card);
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 5, 300)); // first served now, not when created
    const first = answer("GET", none);
    expect(first.headers["last-modified"]).toBe("Tue, 01 Jan 2030 12:00:05 GMT");
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 1, 0));
    expect(answer("GET", none).headers["last-modified"]).toBe("Tue, 01 Jan 2030 12:00:05 GMT");
    const ims = (date: string) => new Headers({ "if-modified-since": date });
    expect(answer("GET", ims("Tue, 01 Jan 2030 12:00:05 GMT")).status).toBe(304);
    expect(answer("GET", ims("Tue, 01 Jan 2030 12:00:06 GMT")).status).toBe(304);
    expect(answer("GET", ims("Tue, 01 Jan 2030 12:00:04 GMT")).status).toBe(200);
    card = cardB;
    const second = answer("GET", none);
    expect(second.headers["last-modified"]).toBe("Tue, 01 Jan 2030 12:01:00 GMT");
    expect(answer("GET", ims("Tue, 01 Jan 2030 12:00:05 GMT")).status).toBe(200);
    expect(answer("GET", ims("Tue, 01 Jan 2030 12:01:00 GMT")).status).toBe(304);
  });

  test("a change within the second it was served in (or after the clock went back) leaves If-Modified-Since unanswered", () => {
    vi.useFakeTimers({ toFake: ["Date"] });
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 5, 100));
    let card: object = cardA;
    const answer = agentCardAnswer(() => card);
    const lm = answer("GET", none).headers["last-modified"]!;
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 5, 900));
    card = cardB;
    const b = answer("GET", none);
    expect(b.headers["last-modified"]).toBe(lm);
    expect(answer("GET", new Headers({ "if-modified-since": lm })).status).toBe(200);
    // The ETag still tells the versions apart.
    expect(answer("GET", new Headers({ "if-none-match": b.headers["etag"]! })).status).toBe(304);
    vi.setSystemTime(Date.UTC(2030, 0, 1, 11, 0, 0));
    card = cardA;
    answer("GET", none);
    expect(answer("GET", new Headers({ "if-modified-since": lm })).status).toBe(200);
    vi.setSystemTime(Date.UTC(2030, 0, 1, 12, 0, 7));
    card = { ...cardA, name: "C" };
    const c = answer("GET", none);
    expect(answer("GET", new Headers({ "if-modified-since": c.headers["last-modified"]! })).status).toBe(304);
  });

  test("If-None-Match wins over If-Modified-Since; only GET and HEAD are conditional", () => {
    const answer = agentCardAnswer(cardA);
    const { headers } = answer("GET", none);
    const future = new Date(Date.now() + 3_600_000).toUTCString();
    expect(answer("GET", new Headers({ "if-none-match": '"other"', "if-modified-since": future })).status).toBe(200);
    expect(answer("GET", new Headers({ "if-modified-since": future })).status).toBe(304);
    // An empty If-None-Match is still one: the safe answer is the card.
    expect(answer("GET", new Headers({ "if-none-match": "", "if-modified-since": future })).status).toBe(200);
    expect(answer("POST", new Headers({ "if-none-match": headers["etag"]! })).status).toBe(200);
    const notModified = answer("HEAD", new Headers({ "if-none-match": headers["etag"]! }));
    expect(notModified).toEqual({
      status: 304,
      headers: {
        "cache-control": "public, max-age=300",
        etag: headers["etag"],
        "last-modified": headers["last-modified"],
        vary: "A2A-Version",
      },
      body: "",
    });
  });

  test("a bad maxAge or a card that is no JSON is refused", () => {
    for (const maxAge of [-1, 1.5, Number.NaN, Infinity]) {
      expect(() => agentCardAnswer(cardA, { maxAge }), String(maxAge)).toThrow(RangeError);
    }
    expect(() => agentCardAnswer(cardA, { maxAge: -1 })).toThrow('invalid maxAge "-1"');
    expect(() => agentCardAnswer(() => undefined as unknown as object)("GET", none)).toThrow(TypeError);
  });

  test("the fetch handler: null body on 304 and HEAD, the GET's Content-Length on HEAD", async () => {
    const serve = agentCardFetch(cardA);
    const url = "http://x/.well-known/agent-card.json";
    const ok = serve(new Request(url));
    const text = await ok.text();
    expect(JSON.parse(text)).toEqual(cardA);
    const head = serve(new Request(url, { method: "HEAD" }));
    expect(head.body).toBeNull();
    expect(head.headers.get("content-length")).toBe(String(utf8.encode(text).length));
    const nm = serve(new Request(url, { headers: { "if-none-match": ok.headers.get("etag")! } }));
    expect(nm.status).toBe(304);
    expect(nm.body).toBeNull();
  });
});

// ---- Over HTTP on each framework ----

const frameworks = ["express", "fastify", "hono"] as const;
type Framework = (typeof frameworks)[number];
const path = "/.well-known/agent-card.json";

interface Running {
  readonly origin: string;
  readonly port: number;
  /** Switches what the function-given card at `path` returns. */
  setCard(card: object): void;
  close(): Promise<void>;
}

/** Serves a function card at `path`, a fixed object at /fixed.json and a JSON string with max-age 60 at /short.json. */
async function start(framework: Framework): Promise<Running> {
  let card: object = cardA;
  const dynamic = () => card;
  const fixed = cardB;
  const short = JSON.stringify(cardA);
  let server: Server;
  let close: () => Promise<void>;
  switch (framework) {
    case "express": {
      const app = express();
      app.get(path, agentCardExpress(dynamic));
      app.get("/fixed.json", agentCardExpress(fixed));
      app.get("/short.json", agentCardExpress(short, { maxAge: 60 }));
      server = createServer(app);
      close = () => new Promise<void>((ok) => server.close(() => ok()));
      break;
    }
    case "fastify": {
      const app = Fastify();
      app.get(path, agentCardFastify(dynamic));
      app.get("/fixed.json", agentCardFastify(fixed));
      app.get("/short.json", agentCardFastify(short, { maxAge: 60 }));
      await app.ready();
      server = app.server;
      close = () => app.close();
      break;
    }
    case "hono": {
      const app = new Hono();
      app.get(path, agentCardHono(dynamic));
      app.get("/fixed.json", agentCardHono(fixed));
      app.get("/short.json", agentCardHono(short, { maxAge: 60 }));
      server = createServer(getRequestListener(app.fetch));
      close = () => new Promise<void>((ok) => server.close(() => ok()));
      break;
    }
  }
  await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    setCard: (c) => void (card = c),
    close: () => {
      server.closeAllConnections();
      return close();
    },
  };
}

/** The bytes on the wire after the head of the response (node and fetch hide a body a 304 or HEAD should not have). */
function rawBody(
  port: number,
  method: string,
  target: string,
  headers: Record<string, string> = {},
): Promise<{ head: string; body: string }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, "127.0.0.1");
    const chunks: Buffer[] = [];
    socket.on("data", (c) => chunks.push(c));
    socket.on("error", reject);
    socket.on("end", () => {
      const all = Buffer.concat(chunks).toString("latin1");
      const at = all.indexOf("\r\n\r\n");
      resolve({ head: all.slice(0, at).toLowerCase(), body: all.slice(at + 4) });
    });
    // The Host a client sends, port included: a loopback server answers no other (allowedHosts "auto").
    const lines = Object.entries({ host: `127.0.0.1:${port}`, connection: "close", ...headers }).map(([k, v]) => `${k}: ${v}\r\n`);
    socket.write(`${method} ${target} HTTP/1.1\r\n${lines.join("")}\r\n`);
  });
}

describe.each(frameworks)("%s", (framework) => {
  let app: Running;
  let url: string;
  beforeAll(async () => {
    app = await start(framework);
    url = app.origin + path;
  });
  afterAll(() => app.close());
  afterEach(() => app.setCard(cardA));

  const get = (headers: Record<string, string> = {}, target = url) => fetch(target, { headers });

  test("200 with Cache-Control, a strong ETag, Last-Modified, Content-Type and the card", async () => {
    const res = await get();
    expect(res.status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("public, max-age=300");
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(res.headers.get("etag")).toMatch(etagForm);
    const lm = res.headers.get("last-modified")!;
    expect(parseHttpDate(lm)).toBeGreaterThan(Date.now() / 1000 - 60);
    expect(parseHttpDate(lm)).toBeLessThanOrEqual(Date.now() / 1000);
    const text = await res.text();
    expect(res.headers.get("content-length")).toBe(String(utf8.encode(text).length));
    expect(JSON.parse(text)).toEqual(cardA);
    const short = await get({}, app.origin + "/short.json");
    expect(short.headers.get("cache-control")).toBe("public, max-age=60");
    expect(await short.json()).toEqual(cardA);
  });

  test("the ETag is stable across requests and differs for a different card", async () => {
    const a1 = await get();
    const a2 = await get();
    expect(a2.headers.get("etag")).toBe(a1.headers.get("etag"));
    expect(a2.headers.get("last-modified")).toBe(a1.headers.get("last-modified"));
    const fixed = await get({}, app.origin + "/fixed.json");
    expect(await fixed.json()).toEqual(cardB);
    expect(fixed.headers.get("etag")).toMatch(etagForm);
    expect(fixed.headers.get("etag")).not.toBe(a1.headers.get("etag"));
    app.setCard(cardB);
    const b = await get();
    expect(await b.json()).toEqual(cardB);
    expect(b.headers.get("etag")).toBe(fixed.headers.get("etag")); // from the content alone
    expect(b.headers.get("etag")).not.toBe(a1.headers.get("etag"));
    // The old validators no longer match the new content.
    expect((await get({ "if-none-match": a1.headers.get("etag")! })).status).toBe(200);
    expect((await get({ "if-modified-since": a1.headers.get("last-modified")! })).status).toBe(200);
  });

  test("304 without a body on a matching If-None-Match: alone, in a list, weak, `*`", async () => {
    const ok = await get();
    const etag = ok.headers.get("etag")!;
    for (const inm of [etag, `"nope", ${etag}`, `W/"nope",W/${etag}`, `W/${etag}`, "*"]) {
      const res = await get({ "if-none-match": inm });
      expect(res.status, inm).toBe(304);
      expect(res.headers.get("etag")).toBe(etag);
      expect(res.headers.get("cache-control")).toBe("public, max-age=300");
      expect(res.headers.get("last-modified")).toBe(ok.headers.get("last-modified"));
      // No representation metadata a cache would copy onto the stored card (RFC 9111 §4.3.4).
      expect(res.headers.get("content-type")).toBeNull();
      expect(await res.text()).toBe("");
    }
    const raw = await rawBody(app.port, "GET", path, { "if-none-match": `W/${etag}` });
    expect(raw.head).toMatch(/^http\/1\.1 304 /);
    expect(raw.body).toBe("");
  });

  test("200 on a non-matching If-None-Match, even with an If-Modified-Since that would match", async () => {
    const ok = await get();
    const etag = ok.headers.get("etag")!;
    const later = new Date(Date.now() + 3_600_000).toUTCString();
    for (const inm of ['"nope"', `W/"nope", ${etag.slice(0, -2)}"`, etag.slice(1, -1), ""]) {
      const res = await get({ "if-none-match": inm, "if-modified-since": later });
      expect(res.status, inm).toBe(200);
      expect(await res.json()).toEqual(cardA);
    }
  });

  test("If-Modified-Since: 304 at or after Last-Modified, 200 before it or when no date", async () => {
    // The fixed card: the function's may have changed within this second (see the core's tests).
    const fixed = app.origin + "/fixed.json";
    const get = (headers: Record<string, string> = {}) => fetch(fixed, { headers });
    const ok = await get();
    const lm = ok.headers.get("last-modified")!;
    const t = parseHttpDate(lm)!;
    const at = (s: number) => new Date(s * 1000).toUTCString();
    expect((await get({ "if-modified-since": lm })).status).toBe(304);
    expect((await get({ "if-modified-since": at(t + 10) })).status).toBe(304);
    const before = await get({ "if-modified-since": at(t - 1) });
    expect(before.status).toBe(200);
    expect(await before.json()).toEqual(cardB);
    expect((await get({ "if-modified-since": "not a date" })).status).toBe(200);
  });

  test("HEAD: the GET's headers, Content-Length included, and no body; 304 on a match", async () => {
    const ok = await get();
    const head = await fetch(url, { method: "HEAD" });
    expect(head.status).toBe(200);
    for (const h of ["cache-control", "content-type", "etag", "last-modified", "content-length"]) {
      expect(head.headers.get(h), h).toBe(ok.headers.get(h));
    }
    const raw = await rawBody(app.port, "HEAD", path);
    expect(raw.head).toMatch(/^http\/1\.1 200 /);
    expect(raw.head).toContain(`content-length: ${ok.headers.get("content-length")}`);
    expect(raw.body).toBe("");
    const nm = await fetch(url, { method: "HEAD", headers: { "if-none-match": ok.headers.get("etag")! } });
    expect(nm.status).toBe(304);
  });

  test('DNS rebinding: another Host is a 421 Status on a loopback server (allowedHosts "auto"); loopback names pass', async () => {
    for (const method of ["GET", "HEAD"]) {
      const refused = await rawBody(app.port, method, path, { host: `rebind.attacker.example:${app.port}` });
      expect(refused.head, method).toMatch(/^http\/1\.1 421 /);
      if (method === "GET") {
        expect(JSON.parse(refused.body)).toMatchObject({
          error: { code: 421, status: "INVALID_ARGUMENT", message: expect.stringContaining("allowedHosts") },
        });
      } else expect(refused.body).toBe("");
    }
    for (const host of [`localhost:${app.port}`, `[::1]:${app.port}`]) {
      expect((await rawBody(app.port, "GET", path, { host })).head, host).toMatch(/^http\/1\.1 200 /);
    }
  });
});

describe.each(frameworks)("allowedHosts on the card handlers (%s)", (framework) => {
  /** One card route with `options` on a loopback server; the status of a GET with the Host given. */
  async function statuses(options: Parameters<typeof agentCardExpress>[1], hosts: string[]): Promise<number[]> {
    let server: Server;
    let close: () => Promise<void>;
    if (framework === "express") {
      const app = express();
      app.get(path, agentCardExpress(cardA, options));
      server = createServer(app);
      close = () => new Promise<void>((ok) => server.close(() => ok()));
    } else if (framework === "fastify") {
      const app = Fastify();
      app.get(path, agentCardFastify(cardA, options));
      await app.ready();
      server = app.server;
      close = () => app.close();
    } else {
      const app = new Hono();
      app.get(path, agentCardHono(cardA, options));
      server = createServer(getRequestListener(app.fetch));
      close = () => new Promise<void>((ok) => server.close(() => ok()));
    }
    await new Promise<void>((ok) => server.listen(0, "127.0.0.1", ok));
    const { port } = server.address() as AddressInfo;
    try {
      const out: number[] = [];
      for (const host of hosts)
        out.push(
          Number(/^http\/1\.1 (\d+)/.exec((await rawBody(port, "GET", path, { host: host.replace("PORT", String(port)) })).head)![1]),
        );
      return out;
    } finally {
      server.closeAllConnections();
      await close();
    }
  }

  test('"any" serves every Host; a list only its names', async () => {
    expect(await statuses({ allowedHosts: "any" }, ["rebind.attacker.example:PORT"])).toEqual([200]);
    expect(
      await statuses({ allowedHosts: ["agent.example", ".corp.example"] }, [
        "agent.example:PORT",
        "a.corp.example",
        "127.0.0.1:PORT",
        "evil.example",
      ]),
    ).toEqual([200, 200, 421, 421]);
  });
});

describe("allowedHosts on agentCardFetch and at start-up", () => {
  test('without a socket, "auto" cannot tell a loopback server and checks nothing; a list is checked against Host', async () => {
    const rebound = new Request("http://rebind.attacker.example/.well-known/agent-card.json");
    expect(agentCardFetch(cardA)(rebound).status).toBe(200);
    const listed = agentCardFetch(cardA, { allowedHosts: ["agent.example"] });
    expect(listed(rebound).status).toBe(421);
    expect(listed(new Request("http://agent.example/.well-known/agent-card.json")).status).toBe(200);
  });

  test("a malformed entry throws when the handler is made, naming it", () => {
    expect(() => agentCardExpress(cardA, { allowedHosts: ["agent.example/x"] })).toThrow(/agent\.example\/x/);
    expect(() => agentCardFastify(cardA, { allowedHosts: "all" as never })).toThrow(/allowedHosts/);
    expect(() => agentCardHono(cardA, { allowedHosts: [""] })).toThrow(/allowedHosts/);
  });
});
