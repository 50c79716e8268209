import { defineConfig } from "vitest/config";
import base from "./vitest.config.js";

// `npm run toolchains` (scripts/toolchains.mjs): the end-to-end smoke that
// runs on each pinned Node (test/e2e/toolchains), outside `npm test`. The
// base config's aliases and global setup, and this one file only (mergeConfig
// would add to the base's include, not replace it).
export default defineConfig({
  ...base,
  test: {
    ...base.test,
    // One run of the smoke file, not the base's projects (the lean client's second run).
    projects: undefined,
    include: ["test/e2e/toolchains/smoke.ts"],
    testTimeout: 300_000,
    hookTimeout: 300_000,
  },
});
