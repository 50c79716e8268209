// The router of design.md ("The runtime's public API", "HttpRule semantics"):
// precedence with backtracking, verbs, percent-decoding, trailing slash, the
// root, `**`, and 404 vs 405. Table cases are written from the facts in
// reference/httprule.md §2–4; property tests check the client encoding rules
// against the router and the precedence against a brute-force reference.
import fc from "fast-check";
import { describe, expect, test } from "vitest";
import { createFileRegistry } from "@bufbuild/protobuf";
import { Code, createRouter, parsePathTemplate, RpcError, type RouterBinding } from "a2a-http";
import { readServiceRoutes } from "../../../packages/plugin/src/httprule/service.js";
import { fixtureSet } from "../../plugin/core/helpers.js";

type Expect = { route: string; vars?: Record<string, string> } | { allow: string[] } | 404 | 400;

/** Routes written as "METHOD /template"; the result names the matched route the same way. */
function router(routes: readonly string[]) {
  const bindings: RouterBinding[] = routes.map((r) => {
    const sp = r.indexOf(" ");
    return { method: r.slice(0, sp), template: r.slice(sp + 1) };
  });
  const r = createRouter(bindings);
  return (method: string, path: string): Expect => {
    let m;
    try {
      m = r.match(method, path);
    } catch (e) {
      expect(e).toBeInstanceOf(RpcError);
      expect((e as RpcError).code).toBe(Code.INVALID_ARGUMENT);
      expect((e as RpcError).httpStatus).toBe(400);
      return 400;
    }
    if (m === undefined) return 404;
    if ("allow" in m) return { allow: [...m.allow] };
    return Object.keys(m.variables).length === 0 ? { route: routes[m.index]! } : { route: routes[m.index]!, vars: { ...m.variables } };
  };
}

type Case = [method: string, path: string, expected: Expect];

function table(name: string, routes: readonly string[], cases: readonly Case[]) {
  describe(name, () => {
    const match = router(routes);
    test.each(cases.map(([m, p, e]) => [`${m} ${JSON.stringify(p)}`, m, p, e] as const))("%s", (_n, m, p, e) => {
      expect(match(m, p)).toEqual(e);
    });
    // The answer never depends on the order of the routes.
    test("same answers with the routes in reverse order", () => {
      const reversed = router([...routes].reverse());
      for (const [m, p, e] of cases) expect(reversed(m, p), `${m} ${p}`).toEqual(e);
    });
  });
}

const r = (route: string, vars?: Record<string, string>): Expect => (vars ? { route, vars } : { route });
const allow = (...methods: string[]): Expect => ({ allow: methods });

table(
  "precedence: literal beats *, which beats **",
  ["GET /a/b/c", "GET /a/*/c", "GET /a/**", "GET /a/b/*", "GET /*/b/c", "GET /x/{v=**}/y", "GET /x/*/z", "GET /"],
  [
    ["GET", "/a/b/c", r("GET /a/b/c")],
    ["GET", "/a/q/c", r("GET /a/*/c")],
    ["GET", "/a/b/q", r("GET /a/b/*")],
    ["GET", "/q/b/c", r("GET /*/b/c")],
    ["GET", "/a", r("GET /a/**")],
    ["GET", "/a/", r("GET /a/**")],
    ["GET", "/a/b", r("GET /a/**")],
    ["GET", "/a/q/q", r("GET /a/**")],
    ["GET", "/a/b/c/d", r("GET /a/**")],
    ["GET", "/a/b/c/d/e/f/g", r("GET /a/**")],
    ["GET", "/a//c", r("GET /a/**")],
    ["GET", "/x/y", r("GET /x/{v=**}/y", { v: "" })],
    ["GET", "/x/1/y", r("GET /x/{v=**}/y", { v: "1" })],
    ["GET", "/x/1/2/y", r("GET /x/{v=**}/y", { v: "1/2" })],
    ["GET", "/x/y/y", r("GET /x/{v=**}/y", { v: "y" })],
    ["GET", "/x/1/z", r("GET /x/*/z")],
    ["GET", "/x/z", 404],
    ["GET", "/x/1/2/z", 404],
    ["GET", "/", r("GET /")],
    ["GET", "/q", 404],
    ["GET", "/q/b/q", 404],
    ["GET", "/q/b/c/d", 404],
    ["POST", "/a/b/c", allow("GET")],
    ["POST", "/a/zzz", allow("GET")],
    ["POST", "/nowhere", 404],
  ],
);

table(
  "backtracking across several levels",
  ["GET /a/b/c/d", "GET /a/*/c/e", "GET /a/b/*/f", "GET /*/b/c/g", "GET /*/*/*/*/h"],
  [
    ["GET", "/a/b/c/d", r("GET /a/b/c/d")],
    ["GET", "/a/b/c/e", r("GET /a/*/c/e")],
    ["GET", "/a/b/c/f", r("GET /a/b/*/f")],
    ["GET", "/a/b/c/g", r("GET /*/b/c/g")],
    ["GET", "/z/b/c/g", r("GET /*/b/c/g")],
    ["GET", "/a/b/c/h", 404],
    ["GET", "/z/b/c/d", 404],
    ["GET", "/a/z/c/e", r("GET /a/*/c/e")],
    ["GET", "/a/z/c/f", 404],
    ["GET", "/a/b/c/d/h", r("GET /*/*/*/*/h")],
    ["GET", "/a/b/c/d/i", 404],
  ],
);

table(
  "* against ** at the same depth (Envoy's m011/m012 shapes)",
  ["GET /c/*/d/e", "GET /c/*/d/**", "GET /c/f/d/e", "GET /c/{x}/v/d/{y}"],
  [
    ["GET", "/c/x/d/e", r("GET /c/*/d/e")],
    ["GET", "/c/f/d/e", r("GET /c/f/d/e")],
    ["GET", "/c/x/d/e/f", r("GET /c/*/d/**")],
    ["GET", "/c/f/d/e/f", r("GET /c/*/d/**")],
    ["GET", "/c/x/d", r("GET /c/*/d/**")],
    ["GET", "/c/x/d/f", r("GET /c/*/d/**")],
    ["GET", "/c/x/v/d/w", r("GET /c/{x}/v/d/{y}", { x: "x", y: "w" })],
    ["GET", "/c//v/d/w", 404],
    ["GET", "/c/x/v/d/w/x", 404],
    ["GET", "/c", 404],
  ],
);

table(
  "segments after ** (googleapis: Firestore ListDocuments, remoteworkers)",
  [
    "GET /v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}",
    "GET /v1/{name=projects/*/databases/*/documents/*/**}",
    "GET /v1test2/{name=**/botSessions/*}",
    "POST /v1test2/{parent=**}/botSessions",
  ],
  [
    [
      "GET",
      "/v1/projects/p/databases/d/documents/rooms/r1/messages",
      r("GET /v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}", {
        parent: "projects/p/databases/d/documents/rooms/r1",
        collection_id: "messages",
      }),
    ],
    // "**" takes nothing: parent is the document collection itself.
    [
      "GET",
      "/v1/projects/p/databases/d/documents/rooms/messages",
      r("GET /v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}", {
        parent: "projects/p/databases/d/documents/rooms",
        collection_id: "messages",
      }),
    ],
    // One segment after documents/: only the plain name route has room for it.
    [
      "GET",
      "/v1/projects/p/databases/d/documents/rooms",
      r("GET /v1/{name=projects/*/databases/*/documents/*/**}", { name: "projects/p/databases/d/documents/rooms" }),
    ],
    // The multi-segment value keeps %2F; the single-segment one after it is decoded.
    [
      "GET",
      "/v1/projects/p/databases/d/documents/a%2Fb/c/x%2Fy",
      r("GET /v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id}", {
        parent: "projects/p/databases/d/documents/a%2Fb/c",
        collection_id: "x/y",
      }),
    ],
    ["GET", "/v1/projects/p/databases/d/documents", 404],
    ["GET", "/v1test2/botSessions/s1", r("GET /v1test2/{name=**/botSessions/*}", { name: "botSessions/s1" })],
    ["GET", "/v1test2/a/b/botSessions/s1", r("GET /v1test2/{name=**/botSessions/*}", { name: "a/b/botSessions/s1" })],
    [
      "GET",
      "/v1test2/botSessions/botSessions/botSessions/s1",
      r("GET /v1test2/{name=**/botSessions/*}", { name: "botSessions/botSessions/botSessions/s1" }),
    ],
    ["GET", "/v1test2/a/botSessions", allow("POST")],
    ["GET", "/v1test2/a/sessions/s1", 404],
    ["POST", "/v1test2/a/b/botSessions", r("POST /v1test2/{parent=**}/botSessions", { parent: "a/b" })],
    ["POST", "/v1test2/a/botSessions/s1", allow("GET")],
    ["GET", "/v1test2/a/b/botSessions", allow("POST")],
  ],
);

table(
  "after **, the literal > * > ** rule still decides segment by segment",
  ["GET /a/**/b/{x}", "GET /a/**/{y}", "GET /a/{z}", "GET /a/b/{w}/c"],
  [
    // At "b": a literal after ** beats a "*" after **, which beats ** taking "b".
    ["GET", "/a/b/q", r("GET /a/**/b/{x}", { x: "q" })],
    ["GET", "/a/q/q", r("GET /a/**/{y}", { y: "q" })],
    // A "*" right after /a beats "**" at that segment.
    ["GET", "/a/q", r("GET /a/{z}", { z: "q" })],
    ["GET", "/a/b", r("GET /a/{z}", { z: "b" })],
    // The literal route is tried first and fails at its end; backtracking finds ** routes.
    ["GET", "/a/b/q/c", r("GET /a/b/{w}/c", { w: "q" })],
    ["GET", "/a/b/q/d", r("GET /a/**/{y}", { y: "d" })],
    ["GET", "/a/q/b/q", r("GET /a/**/b/{x}", { x: "q" })],
    ["GET", "/a/q/q/b/b", r("GET /a/**/b/{x}", { x: "b" })],
    ["GET", "/a", 404],
  ],
);

table(
  "the method is part of the key, and a literal that fails on method falls back to *",
  ["GET /a/{x}", "POST /a/b", "DELETE /a/b/{c}", "PUT /a/*/c"],
  [
    ["GET", "/a/b", r("GET /a/{x}", { x: "b" })],
    ["POST", "/a/b", r("POST /a/b")],
    ["PUT", "/a/b", allow("GET", "POST")],
    ["POST", "/a/c", allow("GET")],
    ["DELETE", "/a/b/c", r("DELETE /a/b/{c}", { c: "c" })],
    ["PUT", "/a/b/c", r("PUT /a/*/c")],
    ["GET", "/a/b/c", allow("DELETE", "PUT")],
    ["PATCH", "/a/q/c", allow("PUT")],
    ["GET", "/a/q/d", 404],
  ],
);

table(
  "HTTP methods: case, custom kinds, kind *",
  ["GET /r", "POST /r", "DELETE /r/{id}", "PATCH /r/{id}", "PURGE /r/{id}", "* /any/{id}", "get /low"],
  [
    ["GET", "/r", r("GET /r")],
    ["get", "/r", r("GET /r")],
    ["Post", "/r", r("POST /r")],
    ["PUT", "/r", allow("GET", "POST")],
    ["HEAD", "/r", allow("GET", "POST")],
    ["OPTIONS", "/r", allow("GET", "POST")],
    ["DELETE", "/r/1", r("DELETE /r/{id}", { id: "1" })],
    ["PATCH", "/r/1", r("PATCH /r/{id}", { id: "1" })],
    ["PURGE", "/r/1", r("PURGE /r/{id}", { id: "1" })],
    ["purge", "/r/1", r("PURGE /r/{id}", { id: "1" })],
    ["PUT", "/r/1", allow("DELETE", "PATCH", "PURGE")],
    ["GET", "/any/1", r("* /any/{id}", { id: "1" })],
    ["POST", "/any/1", r("* /any/{id}", { id: "1" })],
    ["BREW", "/any/1", r("* /any/{id}", { id: "1" })],
    ["GET", "/any", 404],
    ["GET", "/low", r("get /low")],
    ["POST", "/low", allow("GET")],
  ],
);

table(
  "custom verbs",
  [
    "GET /tasks/{id}",
    "POST /tasks/{id}:cancel",
    "GET /tasks/{id}:subscribe",
    "POST /tasks/{id}:subscribe",
    "GET /files/{path=**}",
    "GET /files/{path=**}:raw",
    "POST /{a}/{b}:verb",
    "GET /foo/{a}",
    "POST /message:send",
    "POST /message:stream",
  ],
  [
    ["GET", "/tasks/abc", r("GET /tasks/{id}", { id: "abc" })],
    ["GET", "/tasks/abc:cancel", allow("POST")],
    ["POST", "/tasks/abc:cancel", r("POST /tasks/{id}:cancel", { id: "abc" })],
    ["DELETE", "/tasks/abc:cancel", allow("POST")],
    ["GET", "/tasks/abc:subscribe", r("GET /tasks/{id}:subscribe", { id: "abc" })],
    ["POST", "/tasks/abc:subscribe", r("POST /tasks/{id}:subscribe", { id: "abc" })],
    ["PUT", "/tasks/abc:subscribe", allow("GET", "POST")],
    // No route uses the verb "other", so the colon is part of the value.
    ["GET", "/tasks/abc:other", r("GET /tasks/{id}", { id: "abc:other" })],
    ["GET", "/tasks/a:b", r("GET /tasks/{id}", { id: "a:b" })],
    ["GET", "/tasks/abc:", r("GET /tasks/{id}", { id: "abc:" })],
    ["GET", "/tasks/:x", r("GET /tasks/{id}", { id: ":x" })],
    // Only the text after the LAST colon is a verb.
    ["POST", "/tasks/a:b:cancel", r("POST /tasks/{id}:cancel", { id: "a:b" })],
    ["GET", "/tasks/a:b:cancel", allow("POST")],
    ["GET", "/tasks/a:cancel:b", r("GET /tasks/{id}", { id: "a:cancel:b" })],
    // An escaped colon is never a verb.
    ["GET", "/tasks/abc%3Acancel", r("GET /tasks/{id}", { id: "abc:cancel" })],
    ["GET", "/tasks/abc%3acancel", r("GET /tasks/{id}", { id: "abc:cancel" })],
    ["POST", "/tasks/abc%3Acancel", allow("GET")],
    // A last segment that is only ":verb" leaves an empty segment.
    ["POST", "/tasks/:cancel", 404],
    ["GET", "/tasks:cancel", 404],
    // A colon before the last "/" does not start a verb.
    ["GET", "/foo/other:verb/hello", 404],
    ["GET", "/foo/a:b", r("GET /foo/{a}", { a: "a:b" })],
    // Once a route uses a verb, a request with that verb can only match routes with it.
    ["GET", "/foo/other:verb", allow("POST")],
    ["POST", "/foo/other:verb", r("POST /{a}/{b}:verb", { a: "foo", b: "other" })],
    ["POST", "/some:verb/const:verb", r("POST /{a}/{b}:verb", { a: "some:verb", b: "const" })],
    ["GET", "/files/a/b:raw", r("GET /files/{path=**}:raw", { path: "a/b" })],
    ["GET", "/files/a/b", r("GET /files/{path=**}", { path: "a/b" })],
    ["GET", "/files:raw", r("GET /files/{path=**}:raw", { path: "" })],
    ["GET", "/files/a:b/c", r("GET /files/{path=**}", { path: "a:b/c" })],
    ["GET", "/files/a/b:c", r("GET /files/{path=**}", { path: "a/b:c" })],
    ["POST", "/message:send", r("POST /message:send")],
    ["POST", "/message:stream", r("POST /message:stream")],
    ["GET", "/message:send", allow("POST")],
    ["POST", "/message", 404],
    ["POST", "/message:sendx", 404],
    ["POST", "/message:SEND", 404],
    // Trailing slashes are dropped before the verb is looked for.
    ["GET", "/tasks/abc:cancel/", allow("POST")],
    ["POST", "/tasks/abc:cancel/", r("POST /tasks/{id}:cancel", { id: "abc" })],
    ["GET", "/tasks/abc/", r("GET /tasks/{id}", { id: "abc" })],
  ],
);

// Every printable ASCII character, percent-encoded, decodes to itself in a
// single-segment variable; in a multi-segment one only %2F stays as written.
const ascii = Array.from({ length: 0x7f - 0x20 }, (_, i) => String.fromCharCode(0x20 + i));
const hex = (c: string) => "%" + c.charCodeAt(0).toString(16).toUpperCase().padStart(2, "0");

table(
  "percent-decoding",
  ["GET /s/{v}", "GET /m/{v=**}", "GET /p/{v=x/*/y/*}", "GET /lit%20eral/{v}", "GET /foo", "GET /q/{v}/tail"],
  [
    ...ascii.map((c): Case => ["GET", `/s/a${hex(c)}b`, r("GET /s/{v}", { v: `a${c}b` })]),
    ...ascii.map((c): Case => ["GET", `/m/a${hex(c)}b/c`, r("GET /m/{v=**}", { v: c === "/" ? "a%2Fb/c" : `a${c}b/c` })]),
    ["GET", "/s/a%2Fb", r("GET /s/{v}", { v: "a/b" })],
    ["GET", "/s/a%2fb", r("GET /s/{v}", { v: "a/b" })],
    ["GET", "/s/p%20q%2Fr+", r("GET /s/{v}", { v: "p q/r+" })],
    ["GET", "/s/a+b", r("GET /s/{v}", { v: "a+b" })],
    ["GET", "/s/%2B", r("GET /s/{v}", { v: "+" })],
    ["GET", "/s/%25", r("GET /s/{v}", { v: "%" })],
    ["GET", "/s/%2525", r("GET /s/{v}", { v: "%25" })],
    ["GET", "/s/%25zz", r("GET /s/{v}", { v: "%zz" })],
    ["GET", "/s/caf%C3%A9", r("GET /s/{v}", { v: "café" })],
    ["GET", "/s/caf%c3%a9", r("GET /s/{v}", { v: "café" })],
    ["GET", "/s/%E2%9C%93", r("GET /s/{v}", { v: "✓" })],
    ["GET", "/s/%F0%9F%98%80", r("GET /s/{v}", { v: "😀" })],
    ["GET", "/s/%3F%23%5B%5D", r("GET /s/{v}", { v: "?#[]" })],
    ["GET", "/s/a=b&c", r("GET /s/{v}", { v: "a=b&c" })],
    ["GET", "/s/!$'()*,;@", r("GET /s/{v}", { v: "!$'()*,;@" })],
    ["GET", "/s/~._-", r("GET /s/{v}", { v: "~._-" })],
    ["GET", "/s/%2F", r("GET /s/{v}", { v: "/" })],
    ["GET", "/s/%2F%2F", r("GET /s/{v}", { v: "//" })],
    ["GET", "/s/a%2Fb%2Fc", r("GET /s/{v}", { v: "a/b/c" })],
    ["GET", "/m/a%2Fb/c", r("GET /m/{v=**}", { v: "a%2Fb/c" })],
    ["GET", "/m/a%2fb", r("GET /m/{v=**}", { v: "a%2fb" })],
    ["GET", "/m/a%20b/c%3Ad", r("GET /m/{v=**}", { v: "a b/c:d" })],
    ["GET", "/m/%2F", r("GET /m/{v=**}", { v: "%2F" })],
    ["GET", "/m/a+b", r("GET /m/{v=**}", { v: "a+b" })],
    ["GET", "/m/%252F", r("GET /m/{v=**}", { v: "%2F" })],
    ["GET", "/m/caf%C3%A9/x", r("GET /m/{v=**}", { v: "café/x" })],
    ["GET", "/m/%2F%C3%A9%2F", r("GET /m/{v=**}", { v: "%2Fé%2F" })],
    ["GET", "/p/x/a%2Fb/y/c%20d", r("GET /p/{v=x/*/y/*}", { v: "x/a%2Fb/y/c d" })],
    ["GET", "/p/x/a/y", 404],
    ["GET", "/q/a%2Fb/tail", r("GET /q/{v}/tail", { v: "a/b" })],
    // Literals are compared with the raw text.
    ["GET", "/lit%20eral/x", r("GET /lit%20eral/{v}", { v: "x" })],
    ["GET", "/lit eral/x", 404],
    ["GET", "/lit%2520eral/x", 404],
    ["GET", "/foo", r("GET /foo")],
    ["GET", "/fo%6F", 404],
    ["GET", "/FOO", 404],
    // Malformed escapes are a 400 wherever they stand.
    ["GET", "/s/%", 400],
    ["GET", "/s/%2", 400],
    ["GET", "/s/a%2", 400],
    ["GET", "/s/%zz", 400],
    ["GET", "/s/%G0", 400],
    ["GET", "/s/%0G", 400],
    ["GET", "/s/%%41", 400],
    ["GET", "/m/a/%/b", 400],
    ["GET", "/foo/%", 400],
    ["GET", "/%", 400],
    ["GET", "/nowhere/%zz", 400],
    // After a good escape, at the very end, and in the verb.
    ["GET", "/s/a%41%", 400],
    ["GET", "/s/%41%4", 400],
    ["GET", "/s/%4g", 400],
    ["GET", "/s/%41%42", r("GET /s/{v}", { v: "AB" })],
    ["GET", "/s/a%41b%2", 400],
    ["GET", "/foo:%zz", 400],
    // ...and so are escapes that are not UTF-8.
    ["GET", "/s/%C3", 400],
    ["GET", "/s/%C3%28", 400],
    ["GET", "/s/%FF", 400],
    ["GET", "/s/%ED%A0%80", 400],
    ["GET", "/s/%E2%9C", 400],
    ["GET", "/m/%C3/x", 400],
    ["GET", "/m/%C3%2F", 400],
    ["GET", "/p/x/%80/y/z", 400],
  ],
);

table(
  "trailing slash, empty segments and the root",
  ["GET /", "GET /a", "GET /a/{b}", "GET /deep/**", "GET /v/{x=**}"],
  [
    ["GET", "/", r("GET /")],
    ["GET", "", r("GET /")],
    ["GET", "//", r("GET /")],
    ["GET", "/a", r("GET /a")],
    ["GET", "/a/", r("GET /a")],
    ["GET", "/a//", r("GET /a")],
    ["GET", "/a/x", r("GET /a/{b}", { b: "x" })],
    ["GET", "/a/x/", r("GET /a/{b}", { b: "x" })],
    ["GET", "/a/x//", r("GET /a/{b}", { b: "x" })],
    ["GET", "//a", 404],
    ["GET", "/a//x", 404],
    ["GET", "a", 404],
    ["GET", "a/b", 404],
    ["GET", "/deep", r("GET /deep/**")],
    ["GET", "/deep/", r("GET /deep/**")],
    ["GET", "/deep/1/2/3/", r("GET /deep/**")],
    ["GET", "/deep//x", r("GET /deep/**")],
    ["GET", "/v", r("GET /v/{x=**}", { x: "" })],
    ["GET", "/v/a/b/", r("GET /v/{x=**}", { x: "a/b" })],
    ["GET", "/v/a//b", r("GET /v/{x=**}", { x: "a//b" })],
    ["POST", "/", allow("GET")],
    ["POST", "", allow("GET")],
  ],
);

table(
  "** matches zero or more segments wherever it stands",
  ["GET /**", "GET /a/**/b", "GET /a/{x=c/**/d}/e", "GET /k/**:v"],
  [
    ["GET", "/", r("GET /**")],
    ["GET", "/z", r("GET /**")],
    ["GET", "/z/y/x", r("GET /**")],
    ["GET", "/a/b", r("GET /a/**/b")],
    ["GET", "/a/1/b", r("GET /a/**/b")],
    ["GET", "/a/1/2/3/b", r("GET /a/**/b")],
    ["GET", "/a/b/b", r("GET /a/**/b")],
    ["GET", "/a/1/2", r("GET /**")],
    ["GET", "/a/c/d/e", r("GET /a/{x=c/**/d}/e", { x: "c/d" })],
    ["GET", "/a/c/1/d/e", r("GET /a/{x=c/**/d}/e", { x: "c/1/d" })],
    ["GET", "/a/c/1/2/d/e", r("GET /a/{x=c/**/d}/e", { x: "c/1/2/d" })],
    ["GET", "/a/c/d/d/e", r("GET /a/{x=c/**/d}/e", { x: "c/d/d" })],
    ["GET", "/a/c/d", r("GET /**")],
    ["GET", "/k:v", r("GET /k/**:v")],
    ["GET", "/k/1/2:v", r("GET /k/**:v")],
    ["GET", "/z:v", 404],
    ["POST", "/anything/at/all", allow("GET")],
  ],
);

table(
  "a rule for any method beside rules for named ones",
  ["GET /x/{id}", "* /x/{id}", "POST /y", "* /y/{a}/z", "DELETE /y/{a}/z", "PUT /w/{a}", "* /w/b"],
  [
    ["GET", "/x/1", r("GET /x/{id}", { id: "1" })],
    ["get", "/x/1", r("GET /x/{id}", { id: "1" })],
    ["POST", "/x/1", r("* /x/{id}", { id: "1" })],
    ["BREW", "/x/1", r("* /x/{id}", { id: "1" })],
    ["brew", "/x/1", r("* /x/{id}", { id: "1" })],
    ["PUT", "/y", allow("POST")],
    ["DELETE", "/y/a/z", r("DELETE /y/{a}/z", { a: "a" })],
    ["PATCH", "/y/a/z", r("* /y/{a}/z", { a: "a" })],
    // The literal with any method beats the variable's named method.
    ["PUT", "/w/b", r("* /w/b")],
    ["PUT", "/w/c", r("PUT /w/{a}", { a: "c" })],
    ["GET", "/w/c", allow("PUT")],
  ],
);

table(
  "verbs that end alike, and one longer than the path",
  ["POST /t/{id}:cancel", "POST /t/{id}:xcancel", "POST /t/{id}:el", "GET /t/{id}", "GET /t/{id}:abcdefghijklmnop"],
  [
    ["POST", "/t/a:cancel", r("POST /t/{id}:cancel", { id: "a" })],
    ["POST", "/t/a:xcancel", r("POST /t/{id}:xcancel", { id: "a" })],
    ["POST", "/t/ax:cancel", r("POST /t/{id}:cancel", { id: "ax" })],
    ["POST", "/t/a:el", r("POST /t/{id}:el", { id: "a" })],
    ["POST", "/t/a:b:el", r("POST /t/{id}:el", { id: "a:b" })],
    ["POST", "/t/a:cel", allow("GET")],
    ["GET", "/t/a:cel", r("GET /t/{id}", { id: "a:cel" })],
    ["GET", "/t/a:x:cancel", allow("POST")],
    ["GET", "/t/:el", 404],
    ["GET", "/t/q:abcdefghijklmnop", r("GET /t/{id}:abcdefghijklmnop", { id: "q" })],
    ["GET", "/t/q:abcdefghijklmnop/", r("GET /t/{id}:abcdefghijklmnop", { id: "q" })],
    ["GET", "/t/q:bcdefghijklmnop", r("GET /t/{id}", { id: "q:bcdefghijklmnop" })],
    ["GET", "/:abcdefghijklmnop", 404],
    ["GET", "/t:abcdefghijklmnop", 404],
    ["GET", ":el", 404],
    ["GET", "/abcdefghijklmnop", 404],
  ],
);

// More literals at one node than are compared in place: they are looked up by name.
const many = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa", "lambda"];
table(
  "many literals at one node",
  [...many.map((l) => `GET /l/${l}`), "GET /l/{v}", "POST /l/gamma", "GET /l/{v}/lambda"],
  [
    ...many.map((l): Case => ["GET", `/l/${l}`, r(`GET /l/${l}`)]),
    ["GET", "/l/mu", r("GET /l/{v}", { v: "mu" })],
    ["GET", "/l/alph", r("GET /l/{v}", { v: "alph" })],
    ["GET", "/l/alpha2", r("GET /l/{v}", { v: "alpha2" })],
    ["POST", "/l/gamma", r("POST /l/gamma")],
    ["PUT", "/l/gamma", allow("GET", "POST")],
    ["POST", "/l/alpha", allow("GET")],
    ["GET", "/l/alpha/lambda", r("GET /l/{v}/lambda", { v: "alpha" })],
    ["GET", "/l/alpha/kappa", 404],
  ],
);

table(
  "no root route",
  ["GET /a"],
  [
    ["GET", "/", 404],
    ["GET", "", 404],
    ["GET", "/b", 404],
    ["POST", "/", 404],
  ],
);

describe("variables", () => {
  test("nested field paths are keyed by the dotted path", () => {
    const m = createRouter([{ method: "GET", template: "/v1/{book.shelf.id}/{book.id=books/*}" }]).match("GET", "/v1/s1/books/b1");
    expect(m).toEqual({ index: 0, variables: { "book.shelf.id": "s1", "book.id": "books/b1" } });
  });

  test("a field named __proto__ is an own property and pollutes nothing", () => {
    const m = createRouter([{ method: "GET", template: "/x/{__proto__}/{constructor}" }]).match("GET", "/x/evil/c");
    expect(m && "index" in m).toBe(true);
    const vars = (m as { variables: Record<string, string> }).variables;
    expect(Object.getOwnPropertyDescriptor(vars, "__proto__")?.value).toBe("evil");
    expect(Object.getOwnPropertyDescriptor(vars, "constructor")?.value).toBe("c");
    expect(({} as Record<string, unknown>)["evil"]).toBeUndefined();
    expect(Object.getPrototypeOf(vars)).toBe(Object.prototype);
  });

  test("a pre-parsed template is used as given", () => {
    const path = parsePathTemplate("/t/{id}");
    const m = createRouter([{ method: "GET", template: "/t/{id}", path }]).match("GET", "/t/1");
    expect(m).toEqual({ index: 0, variables: { id: "1" } });
  });

  test("the malformed escape error names the path", () => {
    const router = createRouter([{ method: "GET", template: "/s/{v}" }]);
    expect(() => router.match("GET", "/s/%zz")).toThrow('malformed percent-escape in path "/s/%zz"');
    expect(() => router.match("GET", "/s/%C3")).toThrow('path segment "%C3" is not valid percent-encoded UTF-8');
  });
});

describe("building a router", () => {
  test("two bindings with the same method and shape are refused", () => {
    expect(() =>
      createRouter([
        { method: "GET", template: "/a/{x}" },
        { method: "GET", template: "/a/{y=*}" },
      ]),
    ).toThrow("bindings 0 and 1 are both GET /a/*: the same method and path shape cannot be routed");
    expect(() =>
      createRouter([
        { method: "get", template: "/a" },
        { method: "GET", template: "/a" },
      ]),
    ).toThrow(/bindings 0 and 1/);
  });

  test("the same shape under another method or verb is fine", () => {
    expect(() =>
      createRouter([
        { method: "GET", template: "/a/{x}" },
        { method: "POST", template: "/a/{y}" },
        { method: "GET", template: "/a/{y}:v" },
      ]),
    ).not.toThrow();
  });

  test("an invalid template is refused", () => {
    expect(() => createRouter([{ method: "GET", template: "/a//b" }])).toThrow(/invalid path template/);
  });

  test("an empty router answers 404", () => {
    expect(createRouter([]).match("GET", "/")).toBeUndefined();
  });
});

// ---------------------------------------------------------------------------
// A2A: every route of a2a.proto and its tenant twin.

function serviceRoutes(file: string, service: string) {
  const registry = createFileRegistry(fixtureSet("valid"));
  const svc = registry.getService(service);
  if (!svc || svc.file.name !== file) throw new Error(`${service} not in ${file}`);
  return readServiceRoutes(svc);
}

describe("a2a.proto", () => {
  const routes = serviceRoutes("a2a", "lf.a2a.v1.A2AService");
  const bindings = routes.bindings;
  const router = createRouter(bindings.map((b) => ({ method: b.method, template: b.path.template, path: b.path })));
  const values: Record<string, string> = { tenant: "acme", id: "task-1", task_id: "task-1" };

  /** The template with every variable filled in (single-segment encoding). */
  const fill = (template: string, vals: Record<string, string>) =>
    template.replace(/\{([\w.]+)(?:=\*)?\}/g, (_, name: string) => encodeSegment(vals[name]!));

  test("has the eleven rpcs, each with a tenant twin", () => {
    const primaries = bindings.filter((b) => !b.additional);
    expect(primaries).toHaveLength(11);
    for (const p of primaries) {
      const twin = bindings.find((b) => b.additional && b.rpc === p.rpc);
      expect(twin, p.rpc.name).toBeDefined();
      expect(twin!.method).toBe(p.method);
      expect(twin!.path.template).toBe("/{tenant}" + p.path.template);
    }
  });

  test.each(bindings.map((b, i) => [`${b.method} ${b.path.template}`, i] as const))("serves %s", (_n, i) => {
    const b = bindings[i]!;
    const expected: Record<string, string> = {};
    for (const v of b.path.variables) expected[v.fieldPath.join(".")] = values[v.fieldPath.join(".")]!;
    expect(router.match(b.method, fill(b.path.template, values))).toEqual({ index: i, variables: expected });
  });

  test.each(bindings.map((b, i) => [`${b.method} ${b.path.template}`, i] as const))("serves %s with awkward values", (_n, i) => {
    const b = bindings[i]!;
    const awkward: Record<string, string> = { tenant: "a/b c", id: "x:cancel/%2F", task_id: "é?#" };
    const expected: Record<string, string> = {};
    for (const v of b.path.variables) expected[v.fieldPath.join(".")] = awkward[v.fieldPath.join(".")]!;
    expect(router.match(b.method, fill(b.path.template, awkward))).toEqual({ index: i, variables: expected });
  });

  const index = (method: string, template: string) => bindings.findIndex((b) => b.method === method && b.path.template === template);

  test("GET /tasks/abc:cancel is a 405 that allows POST", () => {
    expect(router.match("GET", "/tasks/abc:cancel")).toEqual({ allow: ["POST"] });
    expect(router.match("GET", "/acme/tasks/abc:cancel")).toEqual({ allow: ["POST"] });
  });

  test("GET /tasks/a%2Fb gives id a/b", () => {
    expect(router.match("GET", "/tasks/a%2Fb")).toEqual({ index: index("GET", "/tasks/{id=*}"), variables: { id: "a/b" } });
  });

  test("the overlapping pairs resolve by precedence", () => {
    expect(router.match("GET", "/tasks/tasks")).toEqual({ index: index("GET", "/tasks/{id=*}"), variables: { id: "tasks" } });
    expect(router.match("GET", "/tasks/extendedAgentCard")).toEqual({
      index: index("GET", "/tasks/{id=*}"),
      variables: { id: "extendedAgentCard" },
    });
    // Backtracking: /tasks/{id} cannot take a third segment, so the tenant route does.
    expect(router.match("GET", "/tasks/tasks/t1")).toEqual({
      index: index("GET", "/{tenant}/tasks/{id=*}"),
      variables: { tenant: "tasks", id: "t1" },
    });
    expect(router.match("GET", "/tasks/tasks/pushNotificationConfigs")).toEqual({
      index: index("GET", "/tasks/{task_id=*}/pushNotificationConfigs"),
      variables: { task_id: "tasks" },
    });
  });

  test("SubscribeToTask is GET in the proto; POST is a 405 at the router", () => {
    expect(router.match("POST", "/tasks/t:subscribe")).toEqual({ allow: ["GET"] });
  });

  test("the push config routes share one path under three methods", () => {
    expect(router.match("PUT", "/tasks/t/pushNotificationConfigs/c")).toEqual({ allow: ["DELETE", "GET"] });
    expect(router.match("PUT", "/tasks/t/pushNotificationConfigs")).toEqual({ allow: ["GET", "POST"] });
  });

  test("unknown paths are 404", () => {
    expect(router.match("GET", "/nope/nope/nope/nope/nope/nope")).toBeUndefined();
    expect(router.match("POST", "/message:unknown")).toBeUndefined();
  });
});

describe("every template of a2a.proto and a2a-v0_3.proto parses", () => {
  test.each([
    ["a2a", "lf.a2a.v1.A2AService", 22],
    ["a2a-v0_3", "a2a.v1.A2AService", 10],
  ] as const)("%s", (file, service, count) => {
    const routes = serviceRoutes(file, service);
    expect(routes.bindings).toHaveLength(count);
    for (const b of routes.bindings) expect(parsePathTemplate(b.path.template)).toEqual(b.path);
  });

  test("v0.3's {name=tasks/*} and the typo {parent=task/*/pushNotificationConfigs} are served", () => {
    const routes = serviceRoutes("a2a-v0_3", "a2a.v1.A2AService");
    const bs = routes.bindings;
    const router = createRouter(bs.map((b) => ({ method: b.method, template: b.path.template })));
    const at = (method: string, path: string) => {
      const m = router.match(method, path);
      return m && "index" in m ? [`${bs[m.index]!.method} ${bs[m.index]!.path.template}`, m.variables] : m;
    };
    expect(at("GET", "/v1/tasks/t1")).toEqual(["GET /v1/{name=tasks/*}", { name: "tasks/t1" }]);
    expect(at("POST", "/v1/tasks/t1:cancel")).toEqual(["POST /v1/{name=tasks/*}:cancel", { name: "tasks/t1" }]);
    expect(at("POST", "/v1/task/t1/pushNotificationConfigs")).toEqual([
      "POST /v1/{parent=task/*/pushNotificationConfigs}",
      { parent: "task/t1/pushNotificationConfigs" },
    ]);
    expect(at("GET", "/v1/tasks/t1/pushNotificationConfigs")).toEqual([
      "GET /v1/{parent=tasks/*}/pushNotificationConfigs",
      { parent: "tasks/t1" },
    ]);
    expect(at("GET", "/v1/tasks/t1/pushNotificationConfigs/c1")).toEqual([
      "GET /v1/{name=tasks/*/pushNotificationConfigs/*}",
      { name: "tasks/t1/pushNotificationConfigs/c1" },
    ]);
    // The typo means the POST does not live under /tasks/.
    expect(at("POST", "/v1/tasks/t1/pushNotificationConfigs")).toEqual({ allow: ["GET"] });
  });
});

// ---------------------------------------------------------------------------
// Properties.

/** The client rule for a single-segment value: escape every byte but [-_.~0-9a-zA-Z]. */
function encodeSegment(value: string): string {
  let out = "";
  for (const byte of new TextEncoder().encode(value)) {
    const c = String.fromCharCode(byte);
    out += /[-_.~0-9a-zA-Z]/.test(c) ? c : "%" + byte.toString(16).toUpperCase().padStart(2, "0");
  }
  return out;
}

/** The client rule for a multi-segment value: the same, but "/" stays. */
function encodeMulti(value: string): string {
  return value.split("/").map(encodeSegment).join("/");
}

// Well-formed Unicode (no lone surrogates), with the characters that matter most.
const char = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(..."%/:+?#[]@!$&'()*,;= ~._-aZ09", "%2F", "%25", "é", "✓", "😀", "\u0000", "\u007f") },
  { weight: 2, arbitrary: fc.string({ unit: "grapheme", minLength: 1, maxLength: 1 }) },
);
const text = (min: number) => fc.array(char, { minLength: min, maxLength: 12 }).map((a) => a.join(""));
const notDot = (s: string) => s !== "." && s !== "..";
const segment = text(1)
  .map((s) => s.replaceAll("/", ""))
  .filter((s) => s !== "" && notDot(s));

describe("client-encoded values come back unchanged", () => {
  const routes = [
    "GET /s/{v}",
    "GET /m/{v=**}",
    "GET /shelves/{v=shelves/*/books/*}",
    "POST /v1/{a}/x/{b=**}:act",
    "POST /tasks/{id}:cancel",
    "GET /tasks/{id}",
    "GET /{tenant}/tasks/{id}",
  ];
  const bindings = routes.map((r) => ({ method: r.split(" ")[0]!, template: r.split(" ")[1]! }));
  const router = createRouter(bindings);
  const at = (method: string, path: string) => {
    const m = router.match(method, path);
    return m && "index" in m ? { route: routes[m.index], variables: m.variables } : m;
  };

  test("a single-segment value", () => {
    const value = text(1).filter(notDot);
    fc.assert(
      fc.property(value, (v) => {
        expect(at("GET", "/s/" + encodeSegment(v))).toEqual({ route: "GET /s/{v}", variables: { v } });
      }),
      { numRuns: 1000 },
    );
  });

  test("a multi-segment ** value", () => {
    fc.assert(
      fc.property(fc.array(segment, { minLength: 1, maxLength: 5 }), (segs) => {
        const v = segs.join("/");
        expect(at("GET", "/m/" + encodeMulti(v))).toEqual({ route: "GET /m/{v=**}", variables: { v } });
      }),
      { numRuns: 1000 },
    );
  });

  test("a multi-segment value with a pattern", () => {
    fc.assert(
      fc.property(segment, segment, (s, b) => {
        const v = `shelves/${s}/books/${b}`;
        expect(at("GET", "/shelves/" + encodeMulti(v))).toEqual({
          route: "GET /shelves/{v=shelves/*/books/*}",
          variables: { v },
        });
      }),
      { numRuns: 500 },
    );
  });

  test("two variables and a verb", () => {
    fc.assert(
      fc.property(segment, fc.array(segment, { minLength: 1, maxLength: 4 }), (a, bs) => {
        const b = bs.join("/");
        expect(at("POST", `/v1/${encodeSegment(a)}/x/${encodeMulti(b)}:act`)).toEqual({
          route: "POST /v1/{a}/x/{b=**}:act",
          variables: { a, b },
        });
      }),
      { numRuns: 500 },
    );
  });

  test("a task id next to verbs and a tenant", () => {
    fc.assert(
      fc.property(segment, segment, (tenant, id) => {
        expect(at("POST", `/tasks/${encodeSegment(id)}:cancel`)).toEqual({
          route: "POST /tasks/{id}:cancel",
          variables: { id },
        });
        expect(at("GET", `/tasks/${encodeSegment(id)}`)).toEqual({ route: "GET /tasks/{id}", variables: { id } });
        expect(at("GET", `/${encodeSegment(tenant)}/tasks/${encodeSegment(id)}`)).toEqual({
          route: "GET /{tenant}/tasks/{id}",
          variables: { tenant, id },
        });
      }),
      { numRuns: 500 },
    );
  });

  test("encoded paths never make the router throw", () => {
    fc.assert(
      fc.property(text(0), (v) => {
        expect(() => router.match("GET", "/" + encodeMulti(v))).not.toThrow();
      }),
      { numRuns: 1000 },
    );
  });
});

describe("precedence against a brute-force reference", () => {
  // Templates over a tiny alphabet, so that they overlap a lot.
  const tseg = fc.constantFrom("a", "b", "*");
  const tmpl = fc
    .tuple(fc.array(tseg, { maxLength: 4 }), fc.option(fc.array(tseg, { maxLength: 2 }), { nil: undefined }))
    .map(([head, deep]) => {
      const segs = deep ? [...head, "**", ...deep] : head;
      return segs.length === 0 ? "/" : "/" + segs.join("/");
    });
  const routeSet = fc.uniqueArray(tmpl, {
    minLength: 1,
    maxLength: 12,
    selector: (t) => t,
  });
  const path = fc.array(fc.constantFrom("a", "b", "c"), { maxLength: 6 }).map((s) => "/" + s.join("/"));

  type Key = number[];
  /**
   * Every way a template matches a path, as the depth-first search would rank
   * it: per template segment (0 literal, 1 `*`, 2 `**` plus the segments it
   * takes), then -1 for "ends here" (which the search tries before going deeper).
   */
  function keys(template: string, reqPath: string): Key[] {
    const t = template === "/" ? [] : template.slice(1).split("/");
    const p = reqPath === "/" ? [] : reqPath.slice(1).split("/");
    const out: Key[] = [];
    const go = (i: number, j: number, key: number[]) => {
      if (i === t.length) {
        if (j === p.length) out.push([...key, -1]);
        return;
      }
      const s = t[i]!;
      if (s === "**") {
        for (let n = 0; j + n <= p.length; n++) go(i + 1, j + n, [...key, 2, n]);
      } else if (j < p.length) {
        if (s === "*" && p[j] !== "") go(i + 1, j + 1, [...key, 1, 0]);
        if (s !== "*" && s === p[j]) go(i + 1, j + 1, [...key, 0, 0]);
      }
    };
    go(0, 0, []);
    return out;
  }
  const less = (x: Key, y: Key) => {
    for (let k = 0; k < Math.min(x.length, y.length); k++) if (x[k] !== y[k]) return x[k]! < y[k]!;
    return x.length < y.length;
  };

  test("the router picks the template the reference ranks first", () => {
    fc.assert(
      fc.property(routeSet, fc.array(path, { minLength: 1, maxLength: 10 }), (templates, paths) => {
        const router = createRouter(templates.map((template) => ({ method: "GET", template })));
        for (const p of paths) {
          let best: { t: string; key: Key } | undefined;
          for (const t of templates) {
            for (const key of keys(t, p)) if (!best || less(key, best.key)) best = { t, key };
          }
          const m = router.match("GET", p);
          const got = m && "index" in m ? templates[m.index] : undefined;
          expect(got, `${p} among ${templates.join(" ")}`).toBe(best?.t);
        }
      }),
      { numRuns: 1000 },
    );
  });

  test("the answer does not depend on the order of the routes", () => {
    fc.assert(
      fc.property(
        routeSet.chain((ts) => fc.tuple(fc.constant(ts), fc.shuffledSubarray(ts, { minLength: ts.length }))),
        fc.array(path, { minLength: 1, maxLength: 10 }),
        ([ts, shuffled], paths) => {
          const a = createRouter(ts.map((template) => ({ method: "GET", template })));
          const b = createRouter(shuffled.map((template) => ({ method: "GET", template })));
          for (const p of paths) {
            const ma = a.match("GET", p);
            const mb = b.match("GET", p);
            expect(ma && "index" in ma ? ts[ma.index] : ma).toEqual(mb && "index" in mb ? shuffled[mb.index] : mb);
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});
