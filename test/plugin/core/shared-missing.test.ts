// Without ../shared beside the repository, `npm run generate` (and so npm
// start, npm test, test:unit) stops at once with a line saying what is missing.
import { spawnSync } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, expect, test } from "vitest";
import { root } from "./helpers.js";

const tmp = mkdtempSync(join(tmpdir(), "a2a-http-no-shared-"));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

test("stage-protos names the missing ../shared/proto and exits 1", () => {
  const repo = join(tmp, "repo");
  mkdirSync(join(repo, "scripts"), { recursive: true });
  cpSync(join(root, "scripts", "stage-protos.mjs"), join(repo, "scripts", "stage-protos.mjs"));
  symlinkSync(join(root, "node_modules"), join(repo, "node_modules"));
  const r = spawnSync(process.execPath, [join(repo, "scripts", "stage-protos.mjs")], { encoding: "utf8", timeout: 20_000 });
  expect(r.status).toBe(1);
  expect(r.stderr).toContain(`stage-protos: no A2A protos in ${join(tmp, "shared", "proto")}.`);
  expect(r.stderr).toContain("expects its shared folder beside it (../shared");
});
