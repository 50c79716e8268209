import { existsSync } from "node:fs";
import { join } from "node:path";

/**
 * Vitest's global setup: many tests read the A2A protos and the code
 * generated from them (../shared/proto, staged by `npm run generate`). Without
 * them, say so once, plainly, instead of a hundred failed imports.
 */
export default function checkShared() {
  const root = join(import.meta.dirname, "..", "..");
  const proto = join(root, "..", "shared", "proto", "a2a.proto");
  if (!existsSync(proto)) {
    throw new Error(`${proto} is missing: the tests need this repository's shared folder beside it (../shared, with proto/ and tck/)`);
  }
  if (!existsSync(join(root, "gen", "a2a_pb.ts"))) {
    throw new Error("gen/a2a_pb.ts is missing: run `npm run generate` first (npm test and npm run test:unit do)");
  }
}
