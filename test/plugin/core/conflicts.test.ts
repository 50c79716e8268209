// The conflict finder against a brute-force reference: every pair of
// templates with a compatible method and the same verb that can match one
// path is reported once, with a path both match and the pair's winner.
import fc from "fast-check";
import { expect, test } from "vitest";
import { createRouter, parsePathTemplate, type PathTemplate } from "a2a-http";
import { findConflicts } from "../../../packages/plugin/src/httprule/conflicts.js";

/** Whether two segment lists can match one request path (written independently of the finder). */
function overlaps(a: PathTemplate, b: PathTemplate): boolean {
  const x = a.segments;
  const y = b.segments;
  const memo = new Map<string, boolean>();
  const go = (i: number, j: number): boolean => {
    const key = `${i},${j}`;
    const known = memo.get(key);
    if (known !== undefined) return known;
    memo.set(key, false);
    let r: boolean;
    if (i === x.length && j === y.length) r = true;
    else if (x[i]?.kind === "**") r = go(i + 1, j) || (j < y.length && go(i, j + 1));
    else if (y[j]?.kind === "**") r = go(i, j + 1) || (i < x.length && go(i + 1, j));
    else if (i === x.length || j === y.length) r = false;
    else {
      const s = x[i]!;
      const t = y[j]!;
      r = (s.kind !== "literal" || t.kind !== "literal" || s.value === t.value) && go(i + 1, j + 1);
    }
    memo.set(key, r);
    return r;
  };
  return go(0, 0);
}

const method = fc.constantFrom("GET", "POST", "*");
const seg = fc.constantFrom("a", "b", "*", "{v}");
const template = fc
  .tuple(fc.array(seg, { maxLength: 4 }), fc.option(fc.array(seg, { maxLength: 2 }), { nil: undefined }), fc.constantFrom("", "", ":x"))
  .map(([head, deep, verb]) => {
    let n = 0;
    const name = (s: string) => (s === "{v}" ? `{v${n++}}` : s);
    const segs = head.map(name);
    // After "**", anything but a second "**" (grpc-gateway's rule, which design.md takes).
    if (deep) segs.push("**", ...deep.map(name));
    return (segs.length === 0 ? "/" : "/" + segs.join("/")) + (segs.length === 0 ? "" : verb);
  });
const bindingList = fc
  .uniqueArray(fc.tuple(method, template), {
    maxLength: 14,
    selector: ([m, t]) =>
      `${m} ${parsePathTemplate(t)
        .segments.map((s) => (s.kind === "literal" ? s.value : s.kind))
        .join("/")}:${parsePathTemplate(t).verb}`,
  })
  .map((l) => l.map(([m, t]) => ({ method: m, path: parsePathTemplate(t) })));

test("finds exactly the overlapping pairs, each with a shared path and the pair's winner", () => {
  fc.assert(
    fc.property(bindingList, (bindings) => {
      const found = findConflicts(bindings);
      const expected: [number, number][] = [];
      for (let i = 0; i < bindings.length; i++) {
        for (let j = i + 1; j < bindings.length; j++) {
          const a = bindings[i]!;
          const b = bindings[j]!;
          const methodsMeet = a.method === b.method || a.method === "*" || b.method === "*";
          if (methodsMeet && a.path.verb === b.path.verb && overlaps(a.path, b.path)) expected.push([i, j]);
        }
      }
      expect(found.map((c) => [c.first, c.second])).toEqual(expected);
      for (const c of found) {
        const a = bindings[c.first]!;
        const b = bindings[c.second]!;
        const pair = createRouter([a, b].map((x) => ({ method: x.method, template: x.path.template, path: x.path })));
        const m = pair.match(c.method, c.examplePath);
        expect(m && "index" in m, `${c.examplePath} for ${a.path.template} / ${b.path.template}`).toBe(true);
        const alone = (x: typeof a) =>
          createRouter([{ method: x.method, template: x.path.template, path: x.path }]).match(c.method, c.examplePath);
        expect(alone(a)).toHaveProperty("index", 0);
        expect(alone(b)).toHaveProperty("index", 0);
        expect(c.winner).toBe((m as { index: number }).index === 0 ? c.first : c.second);
      }
    }),
    { numRuns: 1500 },
  );
});

test("a2a-shaped tables: tenant twins overlap the plain routes only where a literal can be a tenant", () => {
  const t = (m: string, p: string) => ({ method: m, path: parsePathTemplate(p) });
  const bindings = [
    t("GET", "/tasks/{id}"),
    t("GET", "/{tenant}/tasks/{id}"),
    t("GET", "/tasks"),
    t("GET", "/{tenant}/tasks"),
    t("POST", "/tasks/{id}:cancel"),
    t("POST", "/{tenant}/tasks/{id}:cancel"),
  ];
  expect(findConflicts(bindings).map((c) => [c.first, c.second, c.examplePath, c.winner])).toEqual([[0, 3, "/tasks/tasks", 0]]);
});
