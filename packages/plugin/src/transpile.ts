import { createRequire } from "node:module";
import type * as TypeScript from "typescript";

/** What protoplugin hands a transpiler and takes back. */
interface FileInfo {
  name: string;
  content: string;
  preamble?: string | undefined;
}

/**
 * Turns the generated `.ts` files into `.js` and/or `.d.ts` (protoplugin's
 * `target=js`/`dts`) with this package's own TypeScript and its own lib
 * files. protoplugin's built-in transpiler reads the lib files through a
 * hoisted `@typescript/vfs`, which finds whatever `typescript` the user's
 * project has: TypeScript 7 ships none, and declaration emit then fails on
 * every inferred `Promise` (TS4057).
 *
 * The files are transpiled alone (`noResolve`), as protoplugin does: imports
 * of other modules stay as written, and types that only those modules
 * define are `any` in the declarations.
 */
export function transpile(
  files: FileInfo[],
  transpileJs: boolean,
  transpileDts: boolean,
  jsImportStyle: "module" | "legacy_commonjs",
): FileInfo[] {
  // Loaded only here: most runs use target=ts and never pay for it.
  const ts = createRequire(import.meta.url)("typescript") as typeof TypeScript;
  const options: TypeScript.CompilerOptions = {
    target: ts.ScriptTarget.ES2017,
    module: jsImportStyle === "legacy_commonjs" ? ts.ModuleKind.CommonJS : ts.ModuleKind.ES2020,
    moduleResolution: ts.ModuleResolutionKind.Node10,
    lib: ["lib.es2022.d.ts", "lib.dom.d.ts"],
    noResolve: true,
    strict: false,
    skipLibCheck: true,
    declaration: transpileDts,
    emitDeclarationOnly: transpileDts && !transpileJs,
    newLine: ts.NewLineKind.LineFeed,
    verbatimModuleSyntax: false,
    moduleDetection: ts.ModuleDetectionKind.Force,
  };
  const byName = new Map(files.map((f) => [f.name, f]));
  const host = ts.createCompilerHost(options);
  const readLib = host.getSourceFile.bind(host);
  host.getSourceFile = (fileName, languageVersion, onError) => {
    const file = byName.get(fileName);
    return file ? ts.createSourceFile(fileName, file.content, languageVersion, true) : readLib(fileName, languageVersion, onError);
  };
  host.fileExists = (fileName) => byName.has(fileName) || ts.sys.fileExists(fileName);
  host.getCurrentDirectory = () => "";

  const program = ts.createProgram({ rootNames: [...byName.keys()], options, host });
  const out: FileInfo[] = [];
  const result = program.emit(undefined, (fileName, content, _bom, _onError, sources) => {
    const source = sources?.length === 1 ? byName.get(sources[0]!.fileName) : undefined;
    if (!source) throw new Error(`transpiled ${fileName} maps to no generated file`);
    out.push({ name: fileName, content, preamble: source.preamble });
  });
  if (result.emitSkipped) {
    const text = ts.formatDiagnostics(result.diagnostics.slice(0, 5), {
      getCanonicalFileName: (f) => f,
      getCurrentDirectory: () => "",
      getNewLine: () => "\n",
    });
    throw new Error(
      `protoc-gen-a2a-http could not transpile its output to ${transpileJs ? "js" : ""}${transpileJs && transpileDts ? "+" : ""}${transpileDts ? "dts" : ""}; target=ts always works:\n${text}`,
    );
  }
  return out;
}
