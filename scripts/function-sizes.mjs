#!/usr/bin/env node
// Lists the functions longer than N lines and the files longer than M lines
// in packages/*/src, generated files aside (gen/ directories, *_pb.ts and the
// plugin's own outputs *_http*.ts): the size targets of issue 42 item 4.
//
//   node scripts/function-sizes.mjs [--functions N] [--files M] [--json]
//
// Defaults 200 and 800. A function is a declaration, a function expression,
// an arrow function, a method, a constructor or an accessor; its lines run
// from its first token (its doc comment left out) to its last, both counted,
// nested functions included. Its name is its own, else the variable,
// property or class member it is assigned to, else `<anonymous>`. Prints one
// line a finding (`function <file> <name> <lines>`, `file <file> <lines>`),
// or with --json an array of { kind, file, name?, lines }; exits 0 either way
// (test/architecture/sizes.test.ts holds the allow-list).
import { readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import ts from "typescript";

const root = fileURLToPath(new URL("..", import.meta.url));

/** Whether a path below packages/ is generated code. */
export function isGenerated(path) {
  return /(^|\/)gen\//.test(path) || /_pb\.ts$/.test(path) || /_http(_[a-z]+)?\.ts$/.test(path);
}

function sourceFiles(dir) {
  const out = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) {
      if (entry.name !== "node_modules") out.push(...sourceFiles(path));
    } else if (/\.[cm]?ts$/.test(entry.name) && !/\.d\.[cm]?ts$/.test(entry.name)) out.push(path);
  }
  return out;
}

function nameOf(node) {
  if (ts.isConstructorDeclaration(node)) return `${className(node.parent)}.constructor`;
  if (node.name !== undefined) {
    const own = node.name.getText();
    return ts.isClassLike(node.parent) ? `${className(node.parent)}.${own}` : own;
  }
  const p = node.parent;
  if (ts.isVariableDeclaration(p) || ts.isPropertyAssignment(p) || ts.isPropertyDeclaration(p)) return p.name.getText();
  if (ts.isBinaryExpression(p) && p.operatorToken.kind === ts.SyntaxKind.EqualsToken) return p.left.getText();
  return "<anonymous>";
}

function className(c) {
  return c.name?.getText() ?? "<class>";
}

function isFunction(node) {
  return (
    ts.isFunctionDeclaration(node) ||
    ts.isFunctionExpression(node) ||
    ts.isArrowFunction(node) ||
    ts.isMethodDeclaration(node) ||
    ts.isConstructorDeclaration(node) ||
    ts.isGetAccessorDeclaration(node) ||
    ts.isSetAccessorDeclaration(node)
  );
}

/** Every function and file of packages/*\/src with its length in lines, generated files aside. */
export function measure() {
  const functions = [];
  const files = [];
  for (const pkg of readdirSync(join(root, "packages"))) {
    let paths;
    try {
      paths = sourceFiles(join(root, "packages", pkg, "src"));
    } catch {
      continue;
    }
    for (const path of paths) {
      const file = relative(root, path).split("\\").join("/");
      if (isGenerated(file)) continue;
      const text = readFileSync(path, "utf8");
      const sf = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
      files.push({ file, lines: sf.getLineStarts().length - (text.endsWith("\n") ? 1 : 0) });
      const visit = (node) => {
        if (isFunction(node) && node.body !== undefined) {
          const first = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line;
          const last = sf.getLineAndCharacterOfPosition(node.getEnd()).line;
          functions.push({ file, name: nameOf(node), lines: last - first + 1 });
        }
        ts.forEachChild(node, visit);
      };
      visit(sf);
    }
  }
  return { functions, files };
}

/** The functions over `maxFunction` lines and the files over `maxFile`, longest first. */
export function oversized(maxFunction, maxFile) {
  const { functions, files } = measure();
  return [
    ...functions.filter((f) => f.lines > maxFunction).map((f) => ({ kind: "function", ...f })),
    ...files.filter((f) => f.lines > maxFile).map((f) => ({ kind: "file", ...f })),
  ].sort((a, b) => b.lines - a.lines);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const args = process.argv.slice(2);
  const num = (flag, fallback) => {
    const at = args.indexOf(flag);
    if (at < 0) return fallback;
    const n = Number(args[at + 1]);
    if (!Number.isInteger(n) || n < 0) {
      console.error(`${flag} takes a whole number`);
      process.exit(2);
    }
    return n;
  };
  const found = oversized(num("--functions", 200), num("--files", 800));
  if (args.includes("--json")) console.log(JSON.stringify(found, null, 2));
  else for (const f of found) console.log(f.kind === "file" ? `file ${f.file} ${f.lines}` : `function ${f.file} ${f.name} ${f.lines}`);
}
