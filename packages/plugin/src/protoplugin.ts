import { createRequire } from "node:module";

/**
 * @bufbuild/protoplugin, loaded through its CommonJS build. Its ESM build
 * imports the TypeScript compiler as ESM, which makes Node scan all 9 MB of
 * typescript.js for named exports: about a second of start-up on every
 * `buf generate`, against a plain `require` (what protoc-gen-es does).
 * Descriptors are plain data, so the CommonJS and ESM copies of
 * @bufbuild/protobuf interoperate.
 */
export const protoplugin = createRequire(import.meta.url)("@bufbuild/protoplugin") as typeof import("@bufbuild/protoplugin");
