#!/usr/bin/env node
// `npm run security`: every probe of the security checklist (docs/security.md)
// against the example agent, one line per probe. Each module under
// scripts/security/ exports `run(probe)` and calls
// `probe(name, ok, detail)` once per check it makes; the modules start and
// stop the servers they need themselves (127.0.0.1 only). Exit status 1 when
// any probe fails.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = join(dirname(fileURLToPath(import.meta.url)), "security");
const only = process.argv[2];
let failed = 0;
let total = 0;
const probe = (name, ok, detail = "") => {
  total++;
  if (!ok) failed++;
  console.log(`${ok ? "ok  " : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
};
for (const file of readdirSync(dir)
  .filter((f) => f.endsWith(".mjs"))
  .sort()) {
  if (only && !file.includes(only)) continue;
  const mod = await import(pathToFileURL(join(dir, file)).href);
  try {
    await mod.run(probe);
  } catch (err) {
    probe(`${file}: ran to the end`, false, err instanceof Error ? (err.stack ?? err.message) : String(err));
  }
}
console.log(`${total - failed}/${total} probes passed`);
process.exit(failed ? 1 : 0);
