// The client fills a template the way the server's router reads it back: here,
// "**" takes zero or more segments on both sides.
import { describe, expect, it } from "vitest";
import { parsePathTemplate } from "../../../packages/runtime/src/path-template.js";
import { createRouter } from "../../../packages/runtime/src/router.js";
import { choosePlan, compileBinding } from "../../../packages/runtime/src/client/plan.js";
import type { RouteBinding } from "../../../packages/runtime/src/route-binding.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";

const getFile = LibraryServiceRoutes.find((r) => r.rpc === "getFile")!;

function binding(template: string): RouteBinding {
  return { ...getFile, method: "GET", template, path: parsePathTemplate(template) };
}

describe("** in a variable, client and server alike", () => {
  const cases: [template: string, value: string, fits: boolean][] = [
    ["/v1/{path=docs/**}", "docs", true],
    ["/v1/{path=docs/**}", "docs/a", true],
    ["/v1/{path=docs/**}", "docs/a/b c", true],
    ["/v1/{path=docs/**}", "doc", false],
    ["/v1/{path=docs/**}", "other/a", false],
    ["/v1/{path=**/raw}", "raw", true],
    ["/v1/{path=**/raw}", "a/b/raw", true],
    ["/v1/{path=**/raw}", "a/b/rawer", false],
    ["/v1/{path=a/**/z}", "a/z", true],
    ["/v1/{path=a/**/z}", "a/m/n/z", true],
    ["/v1/{path=a/**/z}", "az", false],
    ["/v1/{path=a/*/**}", "a/b", true],
    ["/v1/{path=a/*/**}", "a", false],
    ["/v1/{path=**}", "x/y", true],
  ];
  it.each(cases)("%s with %j: fits %s, and the router reads the same value back", (template, value, fits) => {
    const b = binding(template);
    const plan = compileBinding(b, "GET");
    const json = { path: value };
    if (!fits) {
      expect(() => choosePlan("getFile", [plan], { ...json })).toThrow(/does not match the pattern/);
      return;
    }
    const { path } = choosePlan("getFile", [plan], { ...json });
    const match = createRouter([b]).match("GET", path);
    expect(match && "variables" in match ? match.variables : match).toEqual({ path: value });
  });
});
