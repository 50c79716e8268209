// Push delivery (packages/runtime/src/agent/push.ts) against real webhooks on
// 127.0.0.1: the headers, order per config, retries and timeouts, the queue
// bound and close(); and the SSRF guard, at config creation and at delivery.
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, test } from "vitest";
import { a2aErrorReason } from "a2a-http";
import {
  checkWebhookUrl,
  createPushSender,
  type PushOptions,
  type PushSender,
  type PushTarget,
} from "../../../packages/runtime/src/agent/push.js";

interface Received {
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

interface Hook {
  readonly url: string;
  readonly port: number;
  readonly received: Received[];
}

/** What the webhook does with the n-th request (0-based); undefined: never answer. */
type Answer = (n: number, res: ServerResponse, body: string) => void;

const ok: Answer = (_n, res) => res.end();

const servers: Server[] = [];
const senders: PushSender[] = [];

afterEach(async () => {
  await Promise.all(senders.splice(0).map((s) => s.close()));
  await Promise.all(
    servers.splice(0).map((s) => {
      s.closeAllConnections();
      return new Promise((resolve) => s.close(resolve));
    }),
  );
});

/** A webhook on 127.0.0.1 that records every request it reads in full. */
async function webhook(answer: Answer = ok): Promise<Hook> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const body = Buffer.concat(chunks).toString();
      received.push({ headers: req.headers, body });
      answer(received.length - 1, res, body);
    });
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hook`, port, received };
}

/** Local webhooks pass the guard; retries are quick. */
const local = { allow: { http: true, addresses: ["127.0.0.1/32"] }, baseDelayMs: 5 } as const;

function sender(options: PushOptions = {}): { push: PushSender; errors: string[] } {
  const errors: string[] = [];
  const push = createPushSender({ ...local, onError: (e) => errors.push(e.message), ...options });
  senders.push(push);
  return { push, errors };
}

function target(url: string, more: Partial<PushTarget> = {}): PushTarget {
  return { configId: "cfg", url, token: "", ...more };
}

/** Resolves once `check` holds, polling. */
async function until(check: () => boolean, ms = 5000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error("timed out waiting");
    await new Promise((r) => setTimeout(r, 5));
  }
}

/** A lookup that answers from a table, and ENOTFOUND otherwise. */
function lookupFrom(table: Record<string, string[]>): NonNullable<PushOptions["lookup"]> {
  return async (host) => {
    const addresses = table[host];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: "ENOTFOUND" });
    return addresses.map((address) => ({ address, family: address.includes(":") ? 6 : 4 }));
  };
}

describe("push delivery", () => {
  test("POSTs the body with Content-Length, content type, Authorization and both token headers", async () => {
    const hook = await webhook();
    const { push, errors } = sender();
    // Not ASCII, so a Content-Length counting characters would be wrong.
    const body = JSON.stringify({ statusUpdate: { taskId: "t1", note: "é→✓" } });
    push.send("t1", target(hook.url, { token: "tok-1", authentication: { scheme: "Bearer", credentials: "secret" } }), body);
    await push.idle();

    expect(errors).toEqual([]);
    expect(hook.received).toHaveLength(1);
    const { headers, body: got } = hook.received[0]!;
    expect(got).toBe(body);
    expect(headers["content-type"]).toBe("application/json");
    expect(headers["content-length"]).toBe(String(Buffer.byteLength(body)));
    expect(headers["transfer-encoding"]).toBeUndefined();
    expect(headers["authorization"]).toBe("Bearer secret");
    expect(headers["x-a2a-notification-token"]).toBe("tok-1");
    expect(headers["a2a-notification-token"]).toBe("tok-1");
  });

  test("sends no Authorization without credentials and no token headers without a token", async () => {
    const hook = await webhook();
    const { push } = sender();
    push.send("t1", target(hook.url, { authentication: { scheme: "Bearer", credentials: "" } }), "{}");
    await push.idle();
    expect(hook.received).toHaveLength(1);
    const { headers } = hook.received[0]!;
    expect(headers["authorization"]).toBeUndefined();
    expect(headers["x-a2a-notification-token"]).toBeUndefined();
    expect(headers["a2a-notification-token"]).toBeUndefined();
  });

  test("keeps the order per config while the first attempts fail with 503", async () => {
    const hook = await webhook((n, res) => {
      res.statusCode = n < 3 ? 503 : 200;
      res.end();
    });
    const { push, errors } = sender();
    for (let i = 1; i <= 5; i++) push.send("t1", target(hook.url), `{"n":${i}}`);
    await push.idle();

    expect(errors).toEqual([]);
    expect(hook.received.map((r) => r.body)).toEqual([
      '{"n":1}',
      '{"n":1}',
      '{"n":1}',
      '{"n":1}',
      '{"n":2}',
      '{"n":3}',
      '{"n":4}',
      '{"n":5}',
    ]);
  });

  test("a webhook that does not answer holds back its own config only", async () => {
    const slow = await webhook(() => {});
    const fast = await webhook();
    const { push } = sender({ timeoutMs: 10_000 });
    push.send("t1", target(slow.url, { configId: "slow" }), "a");
    push.send("t1", target(fast.url, { configId: "fast" }), "b");
    push.send("t2", target(slow.url, { configId: "slow" }), "c");
    await until(() => fast.received.length === 1 && slow.received.length === 2);
    expect(fast.received[0]!.body).toBe("b");
  });

  test.each([429, 500, 502, 503, 504])("retries after HTTP %i", async (status) => {
    const hook = await webhook((n, res) => {
      res.statusCode = n === 0 ? status : 204;
      res.end();
    });
    const { push, errors } = sender();
    push.send("t1", target(hook.url), "{}");
    await push.idle();
    expect(errors).toEqual([]);
    expect(hook.received).toHaveLength(2);
  });

  test.each([400, 401, 404, 410])("does not retry HTTP %i", async (status) => {
    const hook = await webhook((_n, res) => {
      res.statusCode = status;
      res.end();
    });
    const { push, errors } = sender();
    push.send("t1", target(hook.url), "{}");
    await push.idle();
    expect(hook.received).toHaveLength(1);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toContain(`failed: HTTP ${status}`);
  });

  test("does not follow a redirect, nor retry it", async () => {
    const elsewhere = await webhook();
    const hook = await webhook((_n, res) => {
      res.writeHead(307, { Location: elsewhere.url });
      res.end();
    });
    const { push, errors } = sender();
    push.send("t1", target(hook.url), "{}");
    await push.idle();
    expect(hook.received).toHaveLength(1);
    expect(elsewhere.received).toHaveLength(0);
    expect(errors).toEqual([expect.stringContaining("HTTP 307 (redirects are not followed)")]);
  });

  test("gives up after maxAttempts and tells onError", async () => {
    const hook = await webhook((_n, res) => {
      res.statusCode = 500;
      res.end();
    });
    const { push, errors } = sender({ maxAttempts: 3 });
    push.send("t1", target(hook.url, { configId: "c9" }), "{}");
    await push.idle();
    expect(hook.received).toHaveLength(3);
    expect(errors).toEqual([`push notification to "${hook.url}" (config "c9") failed after 3 attempts: HTTP 500`]);
  });

  test("retries a refused connection, then delivers once the webhook is up", async () => {
    // A port nothing listens on, taken by the webhook after the first attempts failed.
    const probe = await webhook();
    const port = probe.port;
    const taken = servers.pop()!;
    taken.closeAllConnections();
    await new Promise((resolve) => taken.close(resolve));

    const attempts: string[] = [];
    const { push, errors } = sender({
      baseDelayMs: 50,
      maxAttempts: 20,
      // A host name, so each connection attempt shows up as a lookup.
      lookup: async (host) => {
        attempts.push(host);
        return [{ address: "127.0.0.1", family: 4 }];
      },
    });
    push.send("t1", target(`http://hook.test:${port}/hook`), "{}");
    await until(() => attempts.length >= 3);

    const received: string[] = [];
    const server = createServer((req, res) => {
      req.resume();
      req.on("end", () => {
        received.push(req.headers.host ?? "");
        res.end();
      });
    });
    servers.push(server);
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    await push.idle();
    expect(errors).toEqual([]);
    expect(received).toEqual([`hook.test:${port}`]);
  });

  test("reports a refused connection after the last attempt", async () => {
    const probe = await webhook();
    const url = probe.url;
    const taken = servers.pop()!;
    await new Promise((resolve) => taken.close(resolve));
    const { push, errors } = sender({ maxAttempts: 2 });
    push.send("t1", target(url), "{}");
    await push.idle();
    expect(errors).toEqual([expect.stringMatching(/failed after 2 attempts: connect ECONNREFUSED 127\.0\.0\.1/)]);
  });

  test("honours Retry-After, capped by maxDelayMs", async () => {
    const times: number[] = [];
    const hook = await webhook((n, res) => {
      times.push(Date.now());
      if (n === 0) res.writeHead(503, { "Retry-After": "1" });
      if (n === 1) res.writeHead(429, { "Retry-After": "3600" });
      res.end();
    });
    const { push, errors } = sender({ baseDelayMs: 1, maxDelayMs: 1500 });
    push.send("t1", target(hook.url), "{}");
    await push.idle();
    expect(errors).toEqual([]);
    expect(hook.received).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(950);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(1450);
    expect(times[2]! - times[1]!).toBeLessThan(3000);
  });

  test("times out an attempt that gets no answer, and retries it", async () => {
    const hook = await webhook(() => {});
    const { push, errors } = sender({ timeoutMs: 100, maxAttempts: 2 });
    const started = Date.now();
    push.send("t1", target(hook.url), "{}");
    await push.idle();
    expect(Date.now() - started).toBeLessThan(5000);
    expect(hook.received).toHaveLength(2);
    expect(errors).toEqual([expect.stringContaining("failed after 2 attempts: no answer within 100 ms")]);
  });

  test("drops the oldest pending notification beyond maxQueue", async () => {
    let release = () => {};
    const hook = await webhook((n, res) => {
      if (n === 0) release = () => res.end();
      else res.end();
    });
    const { push, errors } = sender({ maxQueue: 2 });
    push.send("t1", target(hook.url), "1");
    await until(() => hook.received.length === 1);
    for (const body of ["2", "3", "4", "5"]) push.send("t1", target(hook.url), body);
    expect(errors).toHaveLength(2);
    expect(errors[0]).toContain("dropped: more than 2 pending");
    release();
    await push.idle();
    expect(hook.received.map((r) => r.body)).toEqual(["1", "4", "5"]);
  });

  test("close() aborts the delivery in flight and drops the pending ones, quietly", async () => {
    const hook = await webhook(() => {});
    const { push, errors } = sender({ timeoutMs: 60_000 });
    push.send("t1", target(hook.url), "1");
    push.send("t1", target(hook.url), "2");
    await until(() => hook.received.length === 1);
    const started = Date.now();
    await push.close();
    expect(Date.now() - started).toBeLessThan(1000);
    await push.idle();
    push.send("t1", target(hook.url), "3");
    await new Promise((r) => setTimeout(r, 50));
    expect(hook.received.map((r) => r.body)).toEqual(["1"]);
    expect(errors).toEqual([]);
  });

  test("a throwing onError does not stop the queue", async () => {
    const hook = await webhook((n, res) => {
      res.statusCode = n === 0 ? 400 : 200;
      res.end();
    });
    const push = createPushSender({
      ...local,
      onError: () => {
        throw new Error("boom");
      },
    });
    senders.push(push);
    push.send("t1", target(hook.url), "1");
    push.send("t1", target(hook.url), "2");
    await push.idle();
    expect(hook.received.map((r) => r.body)).toEqual(["1", "2"]);
  });
});

describe("the SSRF guard at delivery", () => {
  test("refuses a host that resolved to a public address when checked and to 127.0.0.1 at delivery", async () => {
    const hook = await webhook();
    let calls = 0;
    // DNS rebinding: the first answer passes the check, the next points home.
    const lookup = async () => [{ address: calls++ === 0 ? "93.184.216.34" : "127.0.0.1", family: 4 }];
    const url = `http://rebind.test:${hook.port}/hook`;
    await checkWebhookUrl(url, { allow: { http: true }, lookup });

    const { push, errors } = sender({ allow: { http: true }, lookup });
    push.send("t1", target(url), "{}");
    await push.idle();
    expect(calls).toBe(2);
    expect(hook.received).toHaveLength(0);
    expect(errors).toEqual([
      `push notification to "${url}" (config "cfg") failed: host "rebind.test" resolves to 127.0.0.1, which is loopback`,
    ]);
  });

  test("connects to the address its lookup checked (the control: 127.0.0.1 allowed)", async () => {
    const hook = await webhook();
    const { push, errors } = sender({ lookup: async () => [{ address: "127.0.0.1", family: 4 }] });
    push.send("t1", target(`http://rebind.test:${hook.port}/hook`), "{}");
    await push.idle();
    expect(errors).toEqual([]);
    expect(hook.received.map((r) => r.headers.host)).toEqual([`rebind.test:${hook.port}`]);
  });

  test("refuses a host with one private address among public ones", async () => {
    const hook = await webhook();
    const lookup = lookupFrom({ "mixed.test": ["93.184.216.34", "127.0.0.1"] });
    const { push, errors } = sender({ allow: { http: true }, lookup });
    push.send("t1", target(`http://mixed.test:${hook.port}/`), "{}");
    await push.idle();
    expect(hook.received).toHaveLength(0);
    expect(errors).toEqual([expect.stringContaining("resolves to 127.0.0.1, which is loopback")]);
  });

  test("refuses a literal loopback address, http and a user name at delivery, without retrying", async () => {
    const hook = await webhook();
    const { push, errors } = sender({ allow: { http: true }, maxAttempts: 5 });
    push.send("t1", target(hook.url), "{}");
    await push.idle();
    expect(hook.received).toHaveLength(0);
    expect(errors).toEqual([expect.stringMatching(/failed: webhook URL ".*" is not allowed: address 127\.0\.0\.1 is loopback$/)]);

    const strict = sender({ allow: { addresses: ["127.0.0.1/32"] } });
    strict.push.send("t1", target(hook.url), "{}");
    await strict.push.idle();
    expect(strict.errors).toEqual([expect.stringContaining("it is not https")]);

    const userinfo = sender({ maxAttempts: 5 });
    userinfo.push.send("t1", target(`http://user:pw@127.0.0.1:${hook.port}/`), "{}");
    await userinfo.push.idle();
    expect(userinfo.errors).toEqual([expect.stringContaining("it carries a user name or password")]);
    expect(userinfo.errors.join()).not.toContain("pw");
    expect(hook.received).toHaveLength(0);
  });
});

describe("checkWebhookUrl", () => {
  const lookup = lookupFrom({
    localhost: ["127.0.0.1", "::1"],
    "example.com": ["93.184.216.34", "2606:2800:21f:cb07:6820:80da:af6b:8b2c"],
    "intranet.example": ["10.1.2.3"],
    "mixed.example": ["93.184.216.34", "192.168.1.10"],
    "v6private.example": ["fd12:3456::1"],
    // Resolvable, to show the name itself is refused.
    "metadata.google.internal": ["93.184.216.34"],
    metadata: ["93.184.216.34"],
  });

  const refused: [string, RegExp][] = [
    ["http://example.com/hook", /it is not https/],
    ["ftp://example.com/hook", /its scheme "ftp:" is not https/],
    ["/relative/hook", /it is not an absolute URL/],
    ["https://user:pw@example.com/hook", /it carries a user name or password/],
    ["https://127.0.0.1/hook", /address 127\.0\.0\.1 is loopback/],
    ["https://127.9.9.9/hook", /is loopback/],
    ["https://2130706433/hook", /address 127\.0\.0\.1 is loopback/],
    ["https://localhost/hook", /host "localhost" resolves to 127\.0\.0\.1, which is loopback/],
    ["https://10.0.0.1/hook", /is private/],
    ["https://192.168.1.1/hook", /is private/],
    ["https://172.16.0.1/hook", /is private/],
    ["https://172.31.255.255/hook", /is private/],
    ["https://169.254.169.254/latest/meta-data/", /address 169\.254\.169\.254 is link-local/],
    ["https://100.64.0.1/hook", /is carrier-grade NAT/],
    ["https://0.0.0.0/hook", /is unspecified/],
    ["https://224.0.0.1/hook", /is multicast/],
    ["https://255.255.255.255/hook", /is broadcast/],
    ["https://240.0.0.1/hook", /is reserved/],
    ["https://[::1]/hook", /address ::1 is loopback/],
    ["https://[::]/hook", /is unspecified/],
    ["https://[::ffff:127.0.0.1]/hook", /is loopback/],
    ["https://[::ffff:169.254.169.254]/hook", /is link-local/],
    ["https://[64:ff9b::a00:1]/hook", /is private/],
    ["https://[::7f00:1]/hook", /is not a public unicast address/],
    ["https://[fe80::1]/hook", /is link-local/],
    ["https://[fc00::1]/hook", /is unique-local/],
    ["https://[ff02::1]/hook", /is multicast/],
    ["https://metadata.google.internal/computeMetadata/v1/", /host "metadata\.google\.internal" is a cloud metadata service/],
    ["https://metadata.google.internal./computeMetadata/v1/", /is a cloud metadata service/],
    ["https://metadata/computeMetadata/v1/", /is a cloud metadata service/],
    ["https://intranet.example/hook", /host "intranet\.example" resolves to 10\.1\.2\.3, which is private/],
    ["https://mixed.example/hook", /resolves to 192\.168\.1\.10, which is private/],
    ["https://v6private.example/hook", /resolves to fd12:3456::1, which is unique-local/],
  ];

  test.each(refused)("refuses %s", async (url, why) => {
    const error = await checkWebhookUrl(url, { lookup }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(a2aErrorReason(error)).toBe("INVALID_PARAMS");
    const message = (error as Error).message;
    expect(message).toMatch(why);
    expect(message).toMatch(/^webhook URL ".*" is not allowed: /);
    expect(message).not.toContain("pw@");
  });

  test.each([
    ["https://example.com/hook", {}],
    ["https://93.184.216.34:8443/hook", {}],
    ["https://[2606:4700:4700::1111]/hook", {}],
    ["http://example.com/hook", { allow: { http: true } }],
    ["http://127.0.0.1:8080/hook", { allow: { http: true, addresses: ["127.0.0.1/32"] } }],
    ["https://[::ffff:127.0.0.1]/hook", { allow: { addresses: ["127.0.0.1"] } }],
    ["https://intranet.example/hook", { allow: { addresses: ["10.0.0.0/8"] } }],
    ["https://localhost/hook", { allow: { addresses: ["127.0.0.0/8", "::1/128"] } }],
    // Unresolvable now proves nothing: delivery resolves it again through the guard.
    ["https://nowhere.example/hook", {}],
  ] as [string, PushOptions][])("accepts %s with %j", async (url, options) => {
    await expect(checkWebhookUrl(url, { lookup, ...options })).resolves.toBeUndefined();
  });

  test("an allowed range covers only its own addresses", async () => {
    const options = { lookup, allow: { addresses: ["127.0.0.1/32"] } };
    await expect(checkWebhookUrl("https://localhost/hook", options)).rejects.toThrow(/resolves to ::1, which is loopback/);
    await expect(checkWebhookUrl("https://10.0.0.1/hook", options)).rejects.toThrow(/is private/);
  });

  test("names a bad allow.addresses entry", async () => {
    await expect(checkWebhookUrl("https://example.com/", { lookup, allow: { addresses: ["10.0.0.0/33"] } })).rejects.toThrow(
      'push allow.addresses: "10.0.0.0/33" is not an IP address or CIDR range',
    );
  });
});
