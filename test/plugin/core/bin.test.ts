// The plugin's command line as a person meets it: --help, a terminal with
// nothing piped in, a typo. protoc and buf (stdin piped) are tested elsewhere.
import { execFile, spawnSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { describe, expect, test } from "vitest";
import { optionSummaries, parseOptions } from "../../../packages/plugin/src/options.js";
import { root } from "./helpers.js";

const run = promisify(execFile);
const bin = join(root, "packages", "plugin", "bin", "protoc-gen-a2a-http.js");
const failing = (args: string[]) =>
  run(process.execPath, [bin, ...args], { timeout: 20_000 }).then(
    () => {
      throw new Error(`${args.join(" ")} succeeded`);
    },
    (e: { code: number; stdout: string; stderr: string }) => e,
  );

describe("protoc-gen-a2a-http --help", () => {
  test.each(["--help", "-h"])("%s lists every option with its values and default, and the scaffold's flags; exit 0", async (flag) => {
    const { stdout, stderr } = await run(process.execPath, [bin, flag]);
    expect(stderr).toBe("");
    const defaults = parseOptions([]);
    expect(stdout).toContain(`  profile=none|a2a  (default ${defaults.profile})\n`);
    expect(stdout).toContain(`  server=express|fastify|hono|none  (default ${defaults.servers.join(", ")})\n`);
    expect(stdout).toContain(`  connect=true|false  (default ${defaults.connect})\n`);
    expect(stdout).toContain(`  runtime_import=<module>  (default ${defaults.runtimeImport})\n`);
    for (const [name, summary] of Object.entries(optionSummaries)) {
      expect(stdout).toContain(`  ${name}=`);
      expect(stdout).toContain(summary);
    }
    for (const flag of ["--framework", "--proto", "--service", "--port", "--from", "--force"]) expect(stdout).toContain(flag);
    expect(stdout).toContain("protoc-gen-a2a-http scaffold <dir>");
  });

  test("an unknown command is refused with the usage, exit 2", async () => {
    const e = await failing(["generate"]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/^protoc-gen-a2a-http: unknown command "generate"\n\n.*protoc and buf run it/s);
  });

  // `script` gives the plugin a terminal for stdin, as a person typing its name would.
  test.skipIf(!existsSync("/usr/bin/script"))("with no arguments on a terminal, it prints the usage and exits 2 instead of waiting", () => {
    const started = Date.now();
    const r = spawnSync("/usr/bin/script", ["-qec", `${process.execPath} ${bin}`, "/dev/null"], { encoding: "utf8", timeout: 20_000 });
    expect(r.status).toBe(2);
    expect(r.stdout).toContain("no CodeGeneratorRequest on stdin (it is a terminal)");
    expect(r.stdout).toContain("options (opt:, comma-separated under protoc)");
    expect(Date.now() - started).toBeLessThan(15_000);
  });

  test("scaffold names an unknown flag and the one meant", async () => {
    const e = await failing(["scaffold", "x", "--framwork", "hono"]);
    expect(e.code).toBe(2);
    expect(e.stderr).toMatch(/^protoc-gen-a2a-http scaffold: unknown flag "framwork" \(did you mean "framework"\?\)\n/);
  });
});

test("the options table (docs/usage.md) has a row for every option, with the default parseOptions gives", () => {
  const usage = readFileSync(join(root, "docs", "usage.md"), "utf8");
  const start = usage.indexOf("\n## Options\n");
  const readme = usage.slice(start, usage.indexOf("\n## ", start + 1));
  const rows = new Map([...readme.matchAll(/^\| `([a-z_]+)` \| [^|]+ \| ([^|]+) \|/gm)].map((m) => [m[1]!, m[2]!.trim()]));
  expect([...rows.keys()].sort()).toEqual(Object.keys(optionSummaries).sort());
  const d = parseOptions([]);
  expect(rows.get("profile")).toBe(`\`${d.profile}\``);
  expect(rows.get("connect")).toBe(`\`${d.connect}\``);
  expect(rows.get("runtime_import")).toBe(`\`${d.runtimeImport}\``);
});
