// Generated code and the runtime's .d.ts under the TypeScript versions users
// have: TypeScript 7 (the native compiler, `typescript-7` here) and the oldest
// the docs support, 5.4.5 (what @bufbuild/protoplugin itself uses;
// `typescript-oldest` here). Both run the tsc command, strict NodeNext, over
// the A2A output of `npm run generate` (gen/: protoc-gen-es's and ours,
// target=ts) and a googleapis sample generated here (the plugin in process
// on google-proto-files, as test/plugin/corpus does), with the runtime from
// its built dist/*.d.ts as users resolve it.
//
// With skipLibCheck off, so the runtime's .d.ts are checked too. TypeScript
// 5.4 cannot read some .d.ts of protobuf-es 2.17, connect-es and Hono
// (`Uint8Array<ArrayBuffer>`: generic since 5.7): those errors, and only
// those, are expected under 5.4 (with skipLibCheck, as most projects set it,
// 5.4 reports nothing: the same run less those lines).
import { writeStrictTsconfig } from "../strict-tsconfig.js";
import { execFile } from "node:child_process";
import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, test } from "vitest";
import { buildSet, corpusPackages, generatePackage, httpProtoFiles, protocGenEsFiles, SetIndex } from "../../plugin/corpus/corpus.js";

const run = promisify(execFile);
const root = join(import.meta.dirname, "..", "..", "..");
// Inside the repository, so that a2a-http, @bufbuild/protobuf and the frameworks resolve from its node_modules.
const work = join(root, "node_modules", ".cache", `a2a-http-typescript-${process.pid}`);
afterAll(() => rmSync(work, { recursive: true, force: true }));

const sample = ["google.cloud.tasks.v2", "google.cloud.kms.v1", "google.longrunning", "google.iam.v1"];

const versionOf = (alias: string) =>
  (JSON.parse(readFileSync(join(root, "node_modules", alias, "package.json"), "utf8")) as { version: string }).version;

function writeTsconfig(name: string, skipLibCheck: boolean) {
  writeStrictTsconfig(join(work, name), [join(root, "gen", "*.ts"), "googleapis/**/*.ts"], skipLibCheck);
}

/** tsc's error lines ("" for none): it exits non-zero on any. */
async function tsc(alias: string, tsconfig: string): Promise<string[]> {
  try {
    await run(process.execPath, [join(root, "node_modules", alias, "bin", "tsc"), "-p", join(work, tsconfig)], {
      cwd: root,
      maxBuffer: 16 << 20,
    });
    return [];
  } catch (e) {
    const err = e as { stdout?: string; stderr?: string };
    return `${err.stdout ?? ""}${err.stderr ?? ""}`.split("\n").filter((l) => l.trim() !== "");
  }
}

beforeAll(() => {
  const files = httpProtoFiles();
  const set = buildSet(files);
  const index = new SetIndex(set);
  const packages = corpusPackages(set, files).filter((p) => sample.includes(p.name));
  expect(packages.map((p) => p.name).sort()).toEqual([...sample].sort());
  const ours = packages.flatMap((p) => {
    const r = generatePackage(index, p, "target=ts,import_extension=js");
    if (r.error) throw new Error(`${p.name}: ${r.error}`);
    return r.files;
  });
  const es = protocGenEsFiles(
    index,
    packages.flatMap((p) => p.files),
  );
  for (const f of [...es, ...ours]) {
    const path = join(work, "googleapis", f.name);
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, f.content);
  }
  writeTsconfig("tsconfig.json", false);
}, 240_000);

test("TypeScript 7: the A2A output, the googleapis sample and the runtime's .d.ts type-check (skipLibCheck off)", async () => {
  expect(versionOf("typescript-7")).toMatch(/^7\./);
  expect(await tsc("typescript-7", "tsconfig.json")).toEqual([]);
}, 120_000);

test("TypeScript 5.4, the oldest supported: every error is a third-party .d.ts that needs 5.7; none in generated code or the runtime", async () => {
  expect(versionOf("typescript-oldest")).toBe("5.4.5");
  const errors = await tsc("typescript-oldest", "tsconfig.json");
  const ours = errors.filter(
    (l) => !/^node_modules\/(@bufbuild\/protobuf|@connectrpc\/connect|hono)\/.*error TS2315: Type 'Uint8Array' is not generic\.$/.test(l),
  );
  expect(ours).toEqual([]);
}, 180_000);
