import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";

/**
 * The recipes of the README and docs/*.md, so that tests run exactly what
 * users copy: each is a fenced block right after an HTML comment
 * `<!-- recipe: NAME -->`. NAME is a file's path in the user's project, or
 * the name of a shell recipe (`protoc`, `quickstart`, `quickstart-call`).
 * A name used twice is an error: each recipe lives in one place.
 */
export function docRecipes(root: string): Map<string, string> {
  const sources = [
    "README.md",
    ...readdirSync(join(root, "docs"))
      .filter((f) => f.endsWith(".md"))
      .map((f) => `docs/${f}`),
  ];
  const recipes = new Map<string, string>();
  const where = new Map<string, string>();
  for (const source of sources) {
    const text = readFileSync(join(root, source), "utf8");
    for (const m of text.matchAll(/<!-- recipe: (\S+) -->\n```[a-z]*\n([\s\S]*?)```/g)) {
      const [, name, body] = m;
      if (where.has(name!)) throw new Error(`recipe ${name} is in both ${where.get(name!)} and ${source}`);
      where.set(name!, source);
      recipes.set(name!, body!);
    }
  }
  return recipes;
}

/** The shell recipes, by name; the rest are files of the user's project. */
export const shellRecipes = ["protoc", "quickstart", "quickstart-call", "scaffold-registry"];

/** One recipe, or an error naming the one that is missing. */
export function recipe(recipes: Map<string, string>, name: string): string {
  const text = recipes.get(name);
  if (text === undefined) throw new Error(`the README and docs/ have no recipe ${name}`);
  return text;
}
