/**
 * The README's recipes, so that tests run exactly what users copy: each is a
 * fenced block right after an HTML comment `<!-- recipe: NAME -->`. NAME is
 * a file's path in the user's project, or `protoc` for the shell command.
 */
export function readmeRecipes(readme: string): { files: Map<string, string>; protoc: string } {
  const files = new Map<string, string>();
  let protoc: string | undefined;
  for (const m of readme.matchAll(/<!-- recipe: (\S+) -->\n```[a-z]*\n([\s\S]*?)```/g)) {
    const [, name, text] = m;
    if (name === "protoc") protoc = text!;
    else files.set(name!, text!);
  }
  for (const need of ["buf.yaml", "buf.gen.yaml"]) {
    if (!files.has(need)) throw new Error(`the README has no recipe for ${need}`);
  }
  if (protoc === undefined) throw new Error("the README has no protoc recipe");
  return { files, protoc };
}
