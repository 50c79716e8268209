import { expect, test } from "vitest";
import { withoutInternalComments } from "../../../packages/plugin/src/emit/jsdoc.js";
import { request, runPlugin } from "./helpers.js";

test.each([
  ["(-- api-linter: a\n    b --)\nCreates a config.\n\n", "Creates a config.\n\n"],
  ["Gets a thing. (-- internal note --) Really.\n", "Gets a thing.  Really.\n"],
  ["One.\n(-- x --)\n(-- y\n --)\nTwo.\n", "One.\n\n\nTwo.\n".replace("\n\n\n", "\n\n")],
  ["No blocks (-- unclosed\n", "No blocks (-- unclosed\n"],
  ["Plain text.\n", "Plain text.\n"],
])("AIP internal comment blocks are dropped: %j", (text, want) => {
  expect(withoutInternalComments(text)).toBe(want);
});

test("a2a.proto's api-linter notes do not reach the generated JSDoc", () => {
  const res = runPlugin(request("valid", ["a2a.proto"], "target=ts,profile=a2a"));
  for (const f of res.file) expect(f.content, f.name).not.toContain("api-linter");
  const routes = res.file.find((f) => f.name === "a2a_http.ts")!.content;
  expect(routes).toContain("   * Creates a push notification config for a task.\n");
});
