/**
 * The strictest tsconfig a user of NodeNext would write, for the tests that
 * type-check generated code and the runtime's .d.ts as a project would
 * (test/e2e/package, test/e2e/typescript).
 */
import { writeFileSync } from "node:fs";

/** Writes `path`: strict NodeNext over `include`, no emit; `skipLibCheck` as asked. */
export function writeStrictTsconfig(path: string, include: readonly string[], skipLibCheck = true): void {
  writeFileSync(
    path,
    JSON.stringify({
      compilerOptions: {
        target: "ES2022",
        lib: ["ES2023", "DOM"],
        module: "NodeNext",
        moduleResolution: "NodeNext",
        strict: true,
        exactOptionalPropertyTypes: true,
        noUncheckedIndexedAccess: true,
        verbatimModuleSyntax: true,
        skipLibCheck,
        types: ["node"],
        noEmit: true,
      },
      include,
    }),
  );
}
