// The HttpRule template grammar of design.md "HttpRule semantics": a template
// is accepted only where both grpc-gateway and the Envoy transcoder accept it.
// Cases are written from the facts in reference/httprule.md §1–2.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { parsePathTemplate, PathTemplateError, type PathTemplate } from "a2a-http";
import { templateShape } from "../../../packages/runtime/src/path-template.js";

/** The template written back with every variable's pattern spelled out. */
function render(t: PathTemplate): string {
  if (t.segments.length === 0) return "/";
  const out: string[] = [];
  let i = 0;
  while (i < t.segments.length) {
    const v = t.variables.find((x) => x.start === i);
    const text = (k: number) => {
      const s = t.segments[k]!;
      return s.kind === "literal" ? s.value : s.kind;
    };
    if (v) {
      const inner: string[] = [];
      for (let k = v.start; k < v.end; k++) inner.push(text(k));
      out.push(`{${v.fieldPath.join(".")}=${inner.join("/")}}`);
      i = v.end;
    } else {
      out.push(text(i));
      i++;
    }
  }
  return "/" + out.join("/") + (t.verb ? ":" + t.verb : "");
}

// [template, the same with every pattern written out]
const accepted: [string, string][] = [
  ["/", "/"],
  ["/a", "/a"],
  ["/a/b/c", "/a/b/c"],
  ["/v1/shelves/books", "/v1/shelves/books"],
  ["/*", "/*"],
  ["/**", "/**"],
  ["/a/*/b", "/a/*/b"],
  ["/a/**", "/a/**"],
  ["/*/*/*", "/*/*/*"],
  ["/*/**", "/*/**"],
  ["/**/a", "/**/a"],
  ["/a/**/b/c", "/a/**/b/c"],
  ["/{a}", "/{a=*}"],
  ["/{a=*}", "/{a=*}"],
  ["/{a=**}", "/{a=**}"],
  ["/{a.b.c}", "/{a.b.c=*}"],
  ["/{a_b}", "/{a_b=*}"],
  ["/{_x}", "/{_x=*}"],
  ["/{A1}", "/{A1=*}"],
  ["/{a}/{b}", "/{a=*}/{b=*}"],
  ["/{a.b}/{a.c}", "/{a.b=*}/{a.c=*}"],
  ["/{a}/{a_b}", "/{a=*}/{a_b=*}"],
  ["/{a}/x/{b=**}", "/{a=*}/x/{b=**}"],
  ["/v1/{name=shelves/*/books/*}", "/v1/{name=shelves/*/books/*}"],
  ["/v1/{name=tasks/*}", "/v1/{name=tasks/*}"],
  ["/v1/{parent=task/*/pushNotificationConfigs}", "/v1/{parent=task/*/pushNotificationConfigs}"],
  ["/v1/{name=tasks/*/pushNotificationConfigs/*}", "/v1/{name=tasks/*/pushNotificationConfigs/*}"],
  ["/v1/{parent=tasks/*}/pushNotificationConfigs", "/v1/{parent=tasks/*}/pushNotificationConfigs"],
  ["/a/{b=c/**/d}/e", "/a/{b=c/**/d}/e"],
  ["/a/{b=c/**}", "/a/{b=c/**}"],
  ["/{x=a/b/c}", "/{x=a/b/c}"],
  ["/{x=**}/tail", "/{x=**}/tail"],
  ["/a:b", "/a:b"],
  ["/{x}:verb", "/{x=*}:verb"],
  ["/a/{x=**}:v", "/a/{x=**}:v"],
  ["/a/*:v", "/a/*:v"],
  ["/a/**:v", "/a/**:v"],
  ["/**:v", "/**:v"],
  ["/message:send", "/message:send"],
  ["/tasks/{id=*}:cancel", "/tasks/{id=*}:cancel"],
  ["/{tenant}/tasks/{id=*}:subscribe", "/{tenant=*}/tasks/{id=*}:subscribe"],
  ["/v1/{name=buckets/*}:drain", "/v1/{name=buckets/*}:drain"],
  ["/a/{b=c/**/d}/e:f", "/a/{b=c/**/d}/e:f"],
  // After "**", any segments but a second "**" (grpc-gateway; Envoy takes only literals).
  ["/**/*", "/**/*"],
  ["/a/**/*", "/a/**/*"],
  ["/**/a/*", "/**/a/*"],
  ["/**/{a}", "/**/{a=*}"],
  ["/{a=**}/{b}", "/{a=**}/{b=*}"],
  ["/a/{b=**/*}", "/a/{b=**/*}"],
  ["/{a=c/**/d}/{e}:v", "/{a=c/**/d}/{e=*}:v"],
  [
    "/v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}",
    "/v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id=*}",
  ],
  ["/v1test2/{name=**/botSessions/*}", "/v1test2/{name=**/botSessions/*}"],
  ["/a:do-it", "/a:do-it"],
  ["/a:x%20y", "/a:x%20y"],
  ["/a:!$&'()*+,;=@~._-", "/a:!$&'()*+,;=@~._-"],
  ["/a=b&c;d", "/a=b&c;d"],
  ["/!$&'()*+,;=", "/!$&'()*+,;="],
  ["/@", "/@"],
  ["/a%20b", "/a%20b"],
  ["/a%2Fb", "/a%2Fb"],
  ["/a%2fb", "/a%2fb"],
  ["/~user", "/~user"],
  ["/.well-known/agent-card.json", "/.well-known/agent-card.json"],
  ["/-/_/~", "/-/_/~"],
  ["/a*", "/a*"],
  ["/***", "/***"],
  ["/{a=*b}", "/{a=*b}"],
  ["/v1/a=b&c=d;e=f", "/v1/a=b&c=d;e=f"],
  ["/{a}/{b}/{c}/{d}/{e}", "/{a=*}/{b=*}/{c=*}/{d=*}/{e=*}"],
];

describe("accepted templates", () => {
  test.each(accepted)("%s", (template, canonical) => {
    const t = parsePathTemplate(template);
    expect(t.template).toBe(template);
    expect(render(t)).toBe(canonical);
    // The canonical form parses to the same structure.
    const again = parsePathTemplate(canonical);
    expect(again.segments).toEqual(t.segments);
    expect(again.variables).toEqual(t.variables);
    expect(again.verb).toBe(t.verb);
  });
});

// [template, the reason PathTemplateError gives]
const rejected: [string, string][] = [
  ["", 'a template must start with "/"'],
  ["a", 'a template must start with "/"'],
  ["a/b", 'a template must start with "/"'],
  ["*", 'a template must start with "/"'],
  ["{a}", 'a template must start with "/"'],
  [":v", 'a template must start with "/"'],
  [" /a", 'a template must start with "/"'],
  ["//", 'empty segment ("//" or a trailing "/")'],
  ["//a", 'empty segment ("//" or a trailing "/")'],
  ["/a//b", 'empty segment ("//" or a trailing "/")'],
  ["/a/", 'empty segment ("//" or a trailing "/")'],
  ["/a/b/", 'empty segment ("//" or a trailing "/")'],
  ["/a/:v", 'empty segment ("//" or a trailing "/")'],
  ["/{a=b/}", 'empty segment in variable "a"'],
  ["/{a=b//c}", 'empty segment in variable "a"'],
  ["/{a=/b}", 'variable "a" must not capture the leading "/"'],
  ["/{a=/}", 'variable "a" must not capture the leading "/"'],
  ["/{}", '"" is not a field path (identifiers joined by ".")'],
  ["/{=*}", '"" is not a field path (identifiers joined by ".")'],
  ["/{a.}", '"a." is not a field path (identifiers joined by ".")'],
  ["/{.a}", '".a" is not a field path (identifiers joined by ".")'],
  ["/{a..b}", '"a..b" is not a field path (identifiers joined by ".")'],
  ["/{1a}", '"1a" is not a field path (identifiers joined by ".")'],
  ["/{a-b}", '"a-b" is not a field path (identifiers joined by ".")'],
  ["/{a b}", '"a b" is not a field path (identifiers joined by ".")'],
  ["/{a/b}", '"a/b" is not a field path (identifiers joined by ".")'],
  ["/{é}", '"é" is not a field path (identifiers joined by ".")'],
  ["/{a}{b}", '"a}{b" is not a field path (identifiers joined by ".")'],
  ["/{a", 'unterminated "{"'],
  ["/a/{b", 'unterminated "{"'],
  ["/{a=*", 'unterminated "{"'],
  ["/{a=**/b", 'unterminated "{"'],
  ["/a}", 'unbalanced "}"'],
  ["/}", 'unbalanced "}"'],
  ["/{a}}", 'unbalanced "}"'],
  ["/{a={b}}", "variables must not be nested"],
  ["/{a=x/{b}}", "variables must not be nested"],
  ["/{a{b}}", "variables must not be nested"],
  ["/a{b}", '"a{b}" mixes a variable with other text in one segment'],
  ["/a{b}c", '"a{b}c" mixes a variable with other text in one segment'],
  ["/{a}b", '"{a}b" mixes a variable with other text in one segment'],
  ["/x/{a}b/y", '"{a}b" mixes a variable with other text in one segment'],
  ["/a:b:c", 'a template has at most one ":" verb'],
  ["/{a}:b:c", 'a template has at most one ":" verb'],
  ["/v1/{name}:bla:baa", 'a template has at most one ":" verb'],
  ["/a:b/c", "the verb must come after the last segment"],
  ["/v1/a=b&c=d;e=f:g/x", "the verb must come after the last segment"],
  ["/a:", 'the verb after ":" is empty'],
  ["/{x}:", 'the verb after ":" is empty'],
  ["/:v", 'a verb needs a segment before it ("/:verb" is not allowed)'],
  ["/a:b c", 'the verb "b c" is not a valid literal'],
  ["/a:{b}", 'the verb "{b}" is not a valid literal'],
  ["/a:%zz", 'the verb "%zz" is not a valid literal'],
  ["/a:é", 'the verb "é" is not a valid literal'],
  ["/a b", '"a b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a?b", '"a?b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a#b", '"a#b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a%zz", '"a%zz" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a%2", '"a%2" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a%", '"a%" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/é", '"é" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a[b]", '"a[b]" is not a valid literal (RFC 3986 pchar, no ":")'],
  ['/a"b', '"a\\"b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a|b", '"a|b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a^b", '"a^b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a`b", '"a`b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a<b>", '"a<b>" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a\\b", '"a\\\\b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a\tb", '"a\\tb" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/a/{x=var:verb}", '"var:verb" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/{x=a b}", '"a b" is not a valid literal (RFC 3986 pchar, no ":")'],
  ["/**/**", 'a template has at most one "**"'],
  ["/a/**/**", 'a template has at most one "**"'],
  ["/a/**/b/**", 'a template has at most one "**"'],
  ["/{a=**}/{b=**}", 'a template has at most one "**"'],
  ["/{a=**}/x/{b=y/**}", 'a template has at most one "**"'],
  ["/{a=**/b/**}", 'a template has at most one "**"'],
  ["/**/{a=**}:v", 'a template has at most one "**"'],
  ["/{a}/{a}", 'field path "a" is bound twice'],
  ["/{a.b}/x/{a.b=**}", 'field path "a.b" is bound twice'],
  ["/{a=}", 'variable "a" has an empty pattern'],
  ["/x/{a.b=}", 'variable "a.b" has an empty pattern'],
];

describe("rejected templates", () => {
  test.each(rejected)("%j", (template, reason) => {
    let error: unknown;
    try {
      parsePathTemplate(template);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(PathTemplateError);
    const e = error as PathTemplateError;
    expect(e.reason).toBe(reason);
    expect(e.template).toBe(template);
    expect(e.message).toBe(`invalid path template ${JSON.stringify(template)}: ${reason}`);
  });

  test("a value that is not a string", () => {
    expect(() => parsePathTemplate(undefined as unknown as string)).toThrow(PathTemplateError);
    expect(() => parsePathTemplate(42 as unknown as string)).toThrow(PathTemplateError);
  });
});

describe("the parsed structure", () => {
  test("the root has no segments", () => {
    expect(parsePathTemplate("/")).toEqual({ template: "/", segments: [], verb: "", variables: [] });
  });

  test("a single-segment variable", () => {
    expect(parsePathTemplate("/tasks/{id}")).toEqual({
      template: "/tasks/{id}",
      segments: [{ kind: "literal", value: "tasks" }, { kind: "*" }],
      verb: "",
      variables: [{ fieldPath: ["id"], start: 1, end: 2, multiSegment: false }],
    });
  });

  test("{x} and {x=*} are the same", () => {
    const a = parsePathTemplate("/a/{x}");
    const b = parsePathTemplate("/a/{x=*}");
    expect(a.segments).toEqual(b.segments);
    expect(a.variables).toEqual(b.variables);
  });

  test("a multi-segment variable flattens into the segments it covers", () => {
    const t = parsePathTemplate("/v1/{book.name=shelves/*/books/*}:move");
    expect(t.segments).toEqual([
      { kind: "literal", value: "v1" },
      { kind: "literal", value: "shelves" },
      { kind: "*" },
      { kind: "literal", value: "books" },
      { kind: "*" },
    ]);
    expect(t.verb).toBe("move");
    expect(t.variables).toEqual([{ fieldPath: ["book", "name"], start: 1, end: 5, multiSegment: true }]);
  });

  test("a variable of one literal segment is single-segment; one of several literals is multi-segment", () => {
    expect(parsePathTemplate("/{x=a}").variables[0]!.multiSegment).toBe(false);
    expect(parsePathTemplate("/{x=a/b}").variables[0]!.multiSegment).toBe(true);
  });

  test("variables after ** (Firestore's ListDocuments): the ranges and kinds of both", () => {
    const t = parsePathTemplate("/v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}");
    expect(t.variables).toEqual([
      { fieldPath: ["parent"], start: 1, end: 8, multiSegment: true },
      { fieldPath: ["collection_id"], start: 8, end: 9, multiSegment: false },
    ]);
    expect(t.segments[7]).toEqual({ kind: "**" });
    expect(t.segments[8]).toEqual({ kind: "*" });
  });

  test("** makes a variable multi-segment even alone", () => {
    expect(parsePathTemplate("/files/{path=**}").variables).toEqual([{ fieldPath: ["path"], start: 1, end: 2, multiSegment: true }]);
  });

  test("v0.3's typo template binds parent over three segments, the middle one a *", () => {
    const t = parsePathTemplate("/v1/{parent=task/*/pushNotificationConfigs}");
    expect(t.segments.map((s) => (s.kind === "literal" ? s.value : s.kind))).toEqual(["v1", "task", "*", "pushNotificationConfigs"]);
    expect(t.variables).toEqual([{ fieldPath: ["parent"], start: 1, end: 4, multiSegment: true }]);
  });

  test("several variables, in template order", () => {
    const t = parsePathTemplate("/{tenant}/tasks/{task_id=*}/pushNotificationConfigs/{id=*}");
    expect(t.variables.map((v) => [v.fieldPath.join("."), v.start, v.end])).toEqual([
      ["tenant", 0, 1],
      ["task_id", 2, 3],
      ["id", 4, 5],
    ]);
  });

  test("a literal keeps its raw text (percent-escapes are not decoded)", () => {
    expect(parsePathTemplate("/a%20b").segments).toEqual([{ kind: "literal", value: "a%20b" }]);
  });

  test("the shape drops variable names", () => {
    expect(templateShape(parsePathTemplate("/v1/{name=shelves/*}/books/{id}:x"))).toBe("/v1/shelves/*/books/*:x");
    expect(templateShape(parsePathTemplate("/tasks/{id}"))).toBe(templateShape(parsePathTemplate("/tasks/{name=*}")));
    expect(templateShape(parsePathTemplate("/"))).toBe("/");
  });
});

describe("properties", () => {
  const literal = fc.stringMatching(/^(?:[A-Za-z0-9\-._~!$&'()+,;=@]|%[0-9A-F]{2})+$/).filter((s) => s !== "");
  const ident = fc.stringMatching(/^[A-Za-z_][A-Za-z0-9_]{0,6}$/);
  const plain = fc.oneof(literal, fc.constant("*"));
  // A template in canonical form: literals and "*", at most one "**" with
  // literals and "*" after it, variables over one or more of those, an optional verb.
  const template = fc
    .record({
      head: fc.array(
        fc.oneof(
          plain.map((s) => ({ text: s, deep: false })),
          fc.tuple(ident, fc.array(plain, { minLength: 1, maxLength: 3 })).map(([n, p]) => ({ var: n, text: p.join("/"), deep: false })),
        ),
        { maxLength: 4 },
      ),
      deep: fc.option(fc.tuple(fc.option(ident, { nil: undefined }), fc.array(plain, { maxLength: 2 })), { nil: undefined }),
      verb: fc.option(literal, { nil: undefined }),
    })
    .map(({ head, deep, verb }) => {
      const parts: string[] = [];
      const names = new Set<string>();
      for (const h of head) {
        if ("var" in h && !names.has(h.var!)) {
          names.add(h.var!);
          parts.push(`{${h.var}=${h.text}}`);
        } else parts.push(h.text);
      }
      if (deep) {
        const [name, tail] = deep;
        if (name !== undefined && !names.has(name)) parts.push(`{${name}=**}`, ...tail);
        else parts.push("**", ...tail);
      }
      if (parts.length === 0) return "/";
      return "/" + parts.join("/") + (verb ? ":" + verb : "");
    });

  test("every generated valid template parses and renders back to itself", () => {
    fc.assert(
      fc.property(template, (t) => {
        expect(render(parsePathTemplate(t))).toBe(t);
      }),
      { numRuns: 500 },
    );
  });

  test("variables cover disjoint, increasing segment ranges inside the template", () => {
    fc.assert(
      fc.property(template, (t) => {
        const p = parsePathTemplate(t);
        let last = 0;
        for (const v of p.variables) {
          expect(v.start).toBeGreaterThanOrEqual(last);
          expect(v.end).toBeGreaterThan(v.start);
          expect(v.end).toBeLessThanOrEqual(p.segments.length);
          last = v.end;
        }
        expect(p.segments.filter((s) => s.kind === "**").length).toBeLessThanOrEqual(1);
      }),
      { numRuns: 300 },
    );
  });

  test("the parser never throws anything but PathTemplateError", () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("/", "{", "}", "=", "*", ":", ".", "a", "b", "%", "2", "F", " ") }), (s) => {
        try {
          parsePathTemplate(s);
        } catch (e) {
          expect(e).toBeInstanceOf(PathTemplateError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
