// The stand-in for protoplugin's built-in transpiler (packages/plugin/src/protoplugin.ts):
// the plugin never loads TypeScript through it, and whoever calls it still gets the real one.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { expect, test } from "vitest";
import "../../../packages/plugin/src/protoplugin.js";

const require = createRequire(import.meta.url);
const path = join(dirname(require.resolve("@bufbuild/protoplugin")), "transpile.js");

test("protoplugin's transpiler is a stand-in until used, then the real one", () => {
  const standIn = require(path) as { transpile: (...a: unknown[]) => { name: string; content: string }[] };
  expect(standIn.transpile.toString()).toContain("delete require.cache");
  const out = standIn.transpile([{ name: "a.ts", content: "export const x: number = 1;\n" }], true, false, "module");
  expect(out.map((f) => f.name)).toEqual(["a.js"]);
  expect(out[0]!.content).toContain("export const x = 1;");
  // The cache now holds protoplugin's own module.
  expect((require(path) as { transpile: unknown }).transpile).not.toBe(standIn.transpile);
});
