// The googleapis corpus: every proto of google-proto-files with a
// google.api.http rule, compiled with buf, generated one proto package at a
// time (a failure stops only its package, as buf would stop only that run), and
// type-checked under strict NodeNext beside protoc-gen-es's output.
// test/plugin/corpus/corpus.test.ts runs all of the generation and a sample of the
// type-check in `npm test`; `npm run corpus` (test/plugin/corpus/run.ts) does it all.
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, relative } from "node:path";
import { create, fromBinary, hasExtension } from "@bufbuild/protobuf";
import {
  CodeGeneratorRequestSchema,
  FileDescriptorSetSchema,
  type FileDescriptorProto,
  type FileDescriptorSet,
} from "@bufbuild/protobuf/wkt";
import ts from "typescript";
import { http } from "../../../packages/plugin/src/gen/google/api/annotations_pb.js";
import { diagnostics, plugin } from "../../../packages/plugin/src/plugin.js";
import { root } from "../core/helpers.js";

const require = createRequire(import.meta.url);
const googleProtos = dirname(require.resolve("google-proto-files/package.json"));
const googleProtosVersion: string = JSON.parse(readFileSync(join(googleProtos, "package.json"), "utf8")).version;

/** Options the corpus generates with: protos we only consume, so unreachable same-shape bindings are warnings. */
export const corpusParameter = "target=ts,import_extension=js,same_shape=warn,conflicts=comment";

/** The .proto files (relative to google-proto-files) that name google.api.http (a rule, or a comment about one). */
export function httpProtoFiles(): string[] {
  const out: string[] = [];
  const visit = (dir: string) => {
    for (const name of readdirSync(dir)) {
      const p = join(dir, name);
      if (statSync(p).isDirectory()) visit(p);
      else if (name.endsWith(".proto") && readFileSync(p, "utf8").includes("(google.api.http)")) out.push(relative(googleProtos, p));
    }
  };
  for (const top of ["google", "grafeas"]) visit(join(googleProtos, top));
  // These two define the option (and name it in comments); they have no rules.
  const definitions = new Set(["google/api/http.proto", "google/api/annotations.proto"]);
  return out
    .map((p) => p.split("\\").join("/"))
    .filter((p) => !definitions.has(p))
    .sort();
}

/**
 * A FileDescriptorSet (with imports and source info) of the given files, from
 * buf, cached under node_modules/.cache by google-proto-files' version and the
 * list of files.
 */
export function buildSet(files: readonly string[]): FileDescriptorSet {
  const cacheDir = join(root, "node_modules", ".cache", "a2a-http-corpus");
  mkdirSync(cacheDir, { recursive: true });
  const key = `${googleProtosVersion}-${files.length}-${hash(files.join("\n"))}`;
  const out = join(cacheDir, `${key}.binpb`);
  if (!existsSync(out)) {
    const tmp = `${out}.${process.pid}.tmp`;
    const args = ["build", googleProtos, "--as-file-descriptor-set", "-o", tmp, ...files.flatMap((f) => ["--path", join(googleProtos, f)])];
    const res = spawnSync(join(root, "node_modules", ".bin", "buf"), args, { encoding: "utf8", maxBuffer: 1 << 26 });
    if (res.status !== 0) throw new Error(`buf build failed:\n${res.stderr}`);
    renameSync(tmp, out);
  }
  return fromBinary(FileDescriptorSetSchema, readFileSync(out));
}

function hash(s: string): string {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193) >>> 0;
  return h.toString(16);
}

/** One proto package of the corpus and its files with http rules (proto names, with `.proto`). */
export interface CorpusPackage {
  readonly name: string;
  readonly files: readonly string[];
}

/** The corpus by proto package, in name order: the files given that have an rpc with a rule (not only a comment naming it). */
export function corpusPackages(set: FileDescriptorSet, files: readonly string[]): CorpusPackage[] {
  const wanted = new Set(files);
  const byPackage = new Map<string, string[]>();
  for (const f of set.file) {
    if (!wanted.has(f.name)) continue;
    if (!f.service.some((s) => s.method.some((m) => m.options !== undefined && hasExtension(m.options, http)))) continue;
    let list = byPackage.get(f.package);
    if (!list) byPackage.set(f.package, (list = []));
    list.push(f.name);
  }
  return [...byPackage].sort(([a], [b]) => (a < b ? -1 : 1)).map(([name, files]) => ({ name, files }));
}

/** Looks files up by name and lists their imports, transitively, in the set's (dependency) order. */
export class SetIndex {
  private readonly byName = new Map<string, FileDescriptorProto>();
  private readonly order = new Map<string, number>();
  constructor(readonly set: FileDescriptorSet) {
    set.file.forEach((f, i) => {
      this.byName.set(f.name, f);
      this.order.set(f.name, i);
    });
  }
  /** The files and everything they import, dependencies first. */
  closure(files: readonly string[]): FileDescriptorProto[] {
    const seen = new Set<string>();
    const visit = (name: string) => {
      if (seen.has(name)) return;
      seen.add(name);
      const f = this.byName.get(name);
      if (!f) throw new Error(`${name} is not in the descriptor set`);
      f.dependency.forEach(visit);
    };
    files.forEach(visit);
    return [...seen].sort((a, b) => this.order.get(a)! - this.order.get(b)!).map((n) => this.byName.get(n)!);
  }
}

export interface GeneratedPackage {
  readonly pkg: CorpusPackage;
  readonly files: readonly { name: string; content: string }[];
  /** This plugin's warnings, as it prints them on stderr. */
  readonly warnings: readonly string[];
  /** Set when generation failed. */
  readonly error?: string;
  readonly services: number;
  readonly rpcs: number;
  /** Route table rows (bindings served). */
  readonly bindings: number;
  readonly ms: number;
}

/** Runs this plugin in-process on one package, as buf would send it. */
export function generatePackage(index: SetIndex, pkg: CorpusPackage, parameter = corpusParameter): GeneratedPackage {
  const req = create(CodeGeneratorRequestSchema, {
    fileToGenerate: [...pkg.files],
    protoFile: index.closure(pkg.files),
    parameter,
    compilerVersion: { major: 5, minor: 29, patch: 0 },
  });
  const warnings: string[] = [];
  const saved = diagnostics.warn;
  diagnostics.warn = (line) => void warnings.push(line);
  const t0 = performance.now();
  try {
    const res = plugin.run(req);
    const ms = performance.now() - t0;
    const files = res.file.map((f) => ({ name: f.name, content: f.content }));
    const counts = { services: 0, rpcs: 0, bindings: 0 };
    for (const f of files) {
      if (!f.name.endsWith("_http.ts")) continue;
      counts.services += f.content.match(/^export const \w+Routes = \[$/gm)?.length ?? 0;
      counts.rpcs += f.content.match(/^ {2}\w+\(request: /gm)?.length ?? 0;
      counts.bindings += f.content.match(/^ {4}binding: "(?:primary|additional)",$/gm)?.length ?? 0;
    }
    return { pkg, files, warnings, ...counts, ms, ...(res.error ? { error: res.error } : {}) };
  } catch (e) {
    return {
      pkg,
      files: [],
      warnings,
      error: e instanceof Error ? e.message : String(e),
      services: 0,
      rpcs: 0,
      bindings: 0,
      ms: performance.now() - t0,
    };
  } finally {
    diagnostics.warn = saved;
  }
}

const protocGenEs: { run(req: unknown): { file: { name: string; content: string }[]; error?: string } } =
  require("@bufbuild/protoc-gen-es/dist/cjs/src/protoc-gen-es-plugin.js").protocGenEs;

/**
 * protoc-gen-es's output for the files and their imports (the well-known
 * types come from @bufbuild/protobuf/wkt), one run for all of them.
 */
export function protocGenEsFiles(index: SetIndex, files: readonly string[]): { name: string; content: string }[] {
  const protoFile = index.closure(files);
  const req = create(CodeGeneratorRequestSchema, {
    fileToGenerate: protoFile.map((f) => f.name).filter((n) => !n.startsWith("google/protobuf/")),
    protoFile,
    parameter: "target=ts,import_extension=js",
    compilerVersion: { major: 5, minor: 29, patch: 0 },
  });
  const res = protocGenEs.run(req);
  if (res.error) throw new Error(`protoc-gen-es: ${res.error}`);
  return res.file.map((f) => ({ name: f.name, content: f.content }));
}

/** Where generated files sit during a type-check (in memory only): inside the repository, so node_modules resolve. */
const virtualRoot = join(root, "test", "plugin", "corpus", ".gen");

const compilerOptions: ts.CompilerOptions = {
  target: ts.ScriptTarget.ES2022,
  lib: ["lib.es2023.d.ts", "lib.dom.d.ts"],
  module: ts.ModuleKind.NodeNext,
  moduleResolution: ts.ModuleResolutionKind.NodeNext,
  strict: true,
  exactOptionalPropertyTypes: true,
  verbatimModuleSyntax: true,
  isolatedModules: true,
  skipLibCheck: true,
  types: ["node"],
  noEmit: true,
};

/**
 * Type-checks this plugin's files under strict NodeNext, in memory, beside
 * protoc-gen-es's (which are in the program but not reported: their errors
 * are not ours). The runtime resolves from its built dist/ (run `npm run
 * build` first). Returns the formatted errors, "" for none.
 */
export function typeCheck(ours: readonly { name: string; content: string }[], es: readonly { name: string; content: string }[]): string {
  const memory = new Map<string, string>();
  for (const f of [...es, ...ours]) memory.set(join(virtualRoot, f.name), f.content);
  const host = ts.createCompilerHost(compilerOptions);
  const readFile = host.readFile.bind(host);
  const fileExists = host.fileExists.bind(host);
  const getSourceFile = host.getSourceFile.bind(host);
  host.readFile = (p) => memory.get(p) ?? readFile(p);
  host.fileExists = (p) => memory.has(p) || fileExists(p);
  const dirs = new Set<string>();
  for (const p of memory.keys()) for (let d = dirname(p); d.length > virtualRoot.length - 1 && !dirs.has(d); d = dirname(d)) dirs.add(d);
  const directoryExists = host.directoryExists?.bind(host);
  host.directoryExists = (d) => dirs.has(d) || (directoryExists ? directoryExists(d) : true);
  host.getSourceFile = (p, lang, onError, create) => {
    const text = memory.get(p);
    return text !== undefined ? ts.createSourceFile(p, text, lang) : getSourceFile(p, lang, onError, create);
  };
  const program = ts.createProgram({
    rootNames: ours.map((f) => join(virtualRoot, f.name)),
    options: compilerOptions,
    host,
  });
  const found = [...program.getGlobalDiagnostics(), ...program.getOptionsDiagnostics()];
  for (const f of ours) {
    const sf = program.getSourceFile(join(virtualRoot, f.name));
    if (!sf) {
      found.push({
        category: ts.DiagnosticCategory.Error,
        code: 0,
        file: undefined,
        start: undefined,
        length: undefined,
        messageText: `${f.name} is not in the program`,
      });
      continue;
    }
    found.push(...program.getSyntacticDiagnostics(sf), ...program.getSemanticDiagnostics(sf));
  }
  return ts.formatDiagnostics(found, {
    getCanonicalFileName: (p) => p,
    getCurrentDirectory: () => virtualRoot,
    getNewLine: () => "\n",
  });
}
