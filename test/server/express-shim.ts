/**
 * Imported before `express`. Under vitest, the `import` condition in
 * vitest.config.ts's ssr.resolve.conditions also applies to `require()`, so
 * Express 5's router gets is-promise's ESM namespace instead of its function
 * and fails requests with "isPromise is not a function". This puts the
 * CommonJS entry in the require cache first; outside vitest it does nothing.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const req = createRequire(import.meta.url);
const fromRouter = createRequire(createRequire(req.resolve("express")).resolve("router"));
const target = fromRouter.resolve("is-promise");
if (typeof fromRouter("is-promise") !== "function") {
  const exports = fromRouter(join(dirname(target), "index.js")) as unknown;
  const cached = req.cache[target];
  if (cached) cached.exports = exports;
  else req.cache[target] = { id: target, filename: target, loaded: true, exports } as NodeJS.Module;
}
