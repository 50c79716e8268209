import { expect, test } from "vitest";
import { request, runPlugin } from "./helpers.js";

/** The file's text after its header comment and imports. */
function body(content: string): string {
  const lines = content.split("\n");
  let i = lines.findLastIndex((l) => l.startsWith("import "));
  while (lines[i + 1] === "") i++;
  return lines.slice(i + 1).join("\n");
}

test.each([
  ["a2a.proto", "a2a_http.ts", "A2AService", "profile=a2a"],
  ["acme/edge/v1/edge.proto", "acme/edge/v1/edge_http.ts", "HTTPEdgeService", ""],
])("%s: the route file opens with the Handlers interface and its doc comment, then the route table", (proto, name, service, extra) => {
  const res = runPlugin(request("valid", [proto], `target=ts${extra ? "," + extra : ""}`));
  const text = body(res.file.find((f) => f.name === name)!.content);
  expect(text).toMatch(
    new RegExp(
      `^/\\*\\*\\n(?: \\*.*\\n)*? \\* @generated from service [\\w.]+\\.${service}\\n(?: \\*.*\\n)* \\*/\\nexport interface ${service}Handlers<`,
    ),
  );
  expect(text.indexOf(`export interface ${service}Handlers<`)).toBeLessThan(text.indexOf(`export const ${service}Routes =`));
});
