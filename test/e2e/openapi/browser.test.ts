// Opens the example agent's /docs in headless Chromium (Debian's chromium
// package at /usr/bin/chromium, which .ci/run installs; never a downloaded
// browser), checks that every operation of the document is listed, and
// saves a screenshot under artifacts/ (gitignored). Requests to anything but
// the agent are refused and counted: the page must need no CDN.
import { existsSync, mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { chromium, type BrowserContext } from "playwright-core";
import { afterAll, beforeAll, expect, test } from "vitest";
import { startExampleAgent, type RunningAgent } from "../../../example/server.js";
import { root } from "../../plugin/core/helpers.js";

const executablePath = "/usr/bin/chromium";
const present = existsSync(executablePath);
const flags = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
export const screenshot = join(root, "artifacts", "docs.png");

let agent: RunningAgent | undefined;
let context: BrowserContext | undefined;
let profile = "";

beforeAll(async () => {
  if (!present) return;
  agent = await startExampleAgent({ framework: "hono", port: 0, grpcPort: -1 });
  // A fresh profile every run (launchPersistentContext is how Playwright takes a --user-data-dir).
  profile = mkdtempSync(join(tmpdir(), "a2a-http-docs-"));
  context = await chromium.launchPersistentContext(profile, {
    executablePath,
    headless: true,
    args: flags,
    viewport: { width: 1280, height: 2000 },
  });
}, 60_000);

afterAll(async () => {
  await context?.close();
  await agent?.close();
  if (profile) rmSync(profile, { recursive: true, force: true });
});

// Without the browser, CI fails (it installs one); elsewhere the test says why it skips.
test.skipIf(!present && !process.env["CI"])(
  `/docs lists every operation (needs ${executablePath}: apt-get install chromium)`,
  async () => {
    expect(present, `${executablePath} is missing: .ci/run installs Debian's chromium package`).toBe(true);
    const page = await context!.newPage();
    const foreign: string[] = [];
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(agent!.url + "/")) return route.continue();
      foreign.push(url);
      return route.abort();
    });
    const errors: string[] = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(`${agent!.url}/docs`, { waitUntil: "load" });
    const doc = (await (await fetch(`${agent!.url}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>;
    };
    const expected = Object.entries(doc.paths).flatMap(([path, item]) => Object.keys(item).map((m) => `${m.toUpperCase()} ${path}`));
    await page
      .locator(".opblock")
      .nth(expected.length - 1)
      .waitFor({ timeout: 30_000 });
    const listed = await page.$$eval(".opblock", (blocks) =>
      blocks.map(
        (b) =>
          `${b.querySelector(".opblock-summary-method")?.textContent?.trim()} ${b.querySelector(".opblock-summary-path")?.getAttribute("data-path")}`,
      ),
    );
    expect([...listed].sort()).toEqual([...expected].sort());
    await expect(page.locator(".info .title").textContent()).resolves.toContain("lf.a2a.v1.A2AService");
    mkdirSync(join(root, "artifacts"), { recursive: true });
    await page.screenshot({ path: screenshot, fullPage: false });
    expect(existsSync(screenshot)).toBe(true);
    expect(foreign).toEqual([]);
    expect(errors).toEqual([]);
  },
  90_000,
);
