#!/usr/bin/env node
// `npm run security`: every probe of the security checklist (docs/security.md)
// against the example agent, one line per probe. Each module under
// scripts/security/ exports `run(probe)` and calls
// `probe(name, ok, detail, reported)` once per check it makes; the modules
// start and stop the servers they need themselves (127.0.0.1 only). Exit
// status 1 when any probe fails. `reported` ({as, issue}) marks a weakness
// found and reported, not yet fixed: the probe passes while the check fails
// with exactly that outcome (`detail === as`), and fails once it passes (drop
// the mark) or fails otherwise.
import { readdirSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const dir = join(dirname(fileURLToPath(import.meta.url)), "security");
const only = process.argv[2];
let failed = 0;
let total = 0;
let reportedCount = 0;
const probe = (name, ok, detail = "", reported = undefined) => {
  total++;
  let pass = ok;
  if (reported !== undefined) {
    pass = !ok && detail === reported.as;
    if (pass) reportedCount++;
    detail += ok
      ? `; passes now: drop its reported mark (${reported.issue})`
      : pass
        ? `; REPORTED, not yet fixed: ${reported.issue}`
        : `; not the reported outcome (${reported.as})`;
  }
  if (!pass) failed++;
  console.log(`${pass ? "ok  " : "FAIL"} ${name}${detail ? ` — ${detail}` : ""}`);
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
console.log(
  `${total - failed}/${total} probes passed${reportedCount ? ` (${reportedCount} of them a reported weakness, not yet fixed)` : ""}`,
);
process.exit(failed ? 1 : 0);
