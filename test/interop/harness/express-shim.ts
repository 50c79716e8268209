/**
 * Work-around, imported before `express` by the harnesses.
 *
 * vitest turns `ssr.resolve.conditions` of vitest.config.ts into Node
 * `--conditions` flags, and that list contains "import" (and "module"). Node
 * applies those flags to `require()` too, so Express 5's router, which does
 * `require("is-promise")`, gets that package's ESM entry (index.mjs): a
 * namespace object instead of the function, and every Express request that
 * reaches a route answers 500 "isPromise is not a function".
 *
 * Until the config drops "import"/"module" from `ssr.resolve.conditions`,
 * this puts the CommonJS entry of is-promise in the require cache under the
 * path the flags resolve to. When the conditions are fixed, it does nothing.
 */
import { createRequire } from "node:module";
import { dirname, join } from "node:path";

const require = createRequire(import.meta.url);
const routerRequire = createRequire(require.resolve("express"));
const resolved = routerRequire.resolve("router");
const fromRouter = createRequire(resolved);
const isPromisePath = fromRouter.resolve("is-promise");
if (typeof fromRouter("is-promise") !== "function") {
  const cjsPath = join(dirname(isPromisePath), "index.js");
  const cjs = fromRouter(cjsPath) as unknown;
  const cached = require.cache[isPromisePath];
  if (cached) cached.exports = cjs;
  else {
    // A minimal cache entry: `require` only reads `exports` (and `loaded`) of a cached module.
    require.cache[isPromisePath] = { id: isPromisePath, filename: isPromisePath, loaded: true, exports: cjs } as NodeJS.Module;
  }
}
