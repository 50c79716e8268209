// In-process plugin tests on the committed FileDescriptorSets of test/fixtures
// (rebuild them with test/fixtures/build.sh): one test per rejection message of
// the rule reader, the template parser, the service check and the options, and
// the conflict report on stderr and in the generated comment.
import { afterEach, beforeEach, describe, expect, test } from "vitest";
import { diagnostics } from "../../../packages/plugin/src/plugin.js";
import { request, runPlugin, thrown } from "./helpers.js";

const generate = (file: string, parameter = "target=ts") => runPlugin(request("invalid", [file], parameter));

/** What the plugin says for a rejected rule on rpc `Call` of `bad.<name>.Svc`. */
const onCall = (name: string, template: string, reason: string) =>
  `invalid http rule on bad.${name}.Svc.Call: ${reason} (${template === "" ? "" : `template ${JSON.stringify(template)} in `}bad/${name}.proto)`;

// case (file bad/<case>.proto) -> [template named in the message, reason]
const templateRejections: Record<string, [string, string]> = {
  t_no_slash: ["a/b", 'a template must start with "/"'],
  t_nested: ["/{a={b}}", "variables must not be nested"],
  t_unbalanced: ["/a}", 'unbalanced "}"'],
  t_two_verbs: ["/a:b:c", 'a template has at most one ":" verb'],
  t_verb_not_last: ["/a:b/c", "the verb must come after the last segment"],
  t_unterminated: ["/{id", 'unterminated "{"'],
  t_empty_verb: ["/{id}:", 'the verb after ":" is empty'],
  t_bad_verb: ["/a:b c", 'the verb "b c" is not a valid literal'],
  t_verb_only: ["/:verb", 'a verb needs a segment before it ("/:verb" is not allowed)'],
  t_empty_segment: ["/a//b", 'empty segment ("//" or a trailing "/")'],
  t_trailing_slash: ["/a/", 'empty segment ("//" or a trailing "/")'],
  t_empty_in_var: ["/{name=a//b}", 'empty segment in variable "name"'],
  t_mixed_before: ["/a{id}", '"a{id}" mixes a variable with other text in one segment'],
  t_mixed_after: ["/{id}a", '"{id}a" mixes a variable with other text in one segment'],
  t_bad_literal: ["/a b", '"a b" is not a valid literal (RFC 3986 pchar, no ":")'],
  t_colon_in_var: ["/a/{name=var:verb}", '"var:verb" is not a valid literal (RFC 3986 pchar, no ":")'],
  t_two_deep: ["/a/**/**", 'a template has at most one "**"'],
  t_bad_ident: ["/{1id}", '"1id" is not a field path (identifiers joined by ".")'],
  t_empty_var: ["/{}", '"" is not a field path (identifiers joined by ".")'],
  t_bound_twice: ["/{id}/{id}", 'field path "id" is bound twice'],
  t_empty_pattern: ["/{id=}", 'variable "id" has an empty pattern'],
  t_leading_slash: ["/{name=/a}", 'variable "name" must not capture the leading "/"'],
};

const ruleRejections: Record<string, [string, string]> = {
  f_unknown: ["/v1/{nmae}", 'path variable "nmae" is not a field of bad.common.Req'],
  f_unknown_nested: ["/v1/{inner.nope}", 'path variable "inner.nope" is not a field of bad.common.Inner'],
  f_list: ["/v1/{tags}", 'path variable "tags" is a list field; it must be singular'],
  f_map: ["/v1/{labels}", 'path variable "labels" is a map field; it must be singular'],
  f_through_scalar: ["/v1/{name.x}", 'path variable "name.x" goes through "name", which is not a message'],
  f_message: ["/v1/{inner}", 'path variable "inner" is a message field (bad.common.Inner); it must be a scalar or enum'],
  f_bytes: ["/v1/{blob}", 'path variable "blob" is a bytes field; it must be a string, number, bool or enum'],
  body_unknown: ["/v1/things", 'body "nope" is not a field of bad.common.Req'],
  body_bound: ["/v1/things/{name}", 'body field "name" is also bound by the path'],
  get_body: ["/v1/things", "a GET binding cannot have a body (fetch refuses to send one)"],
  head_body: ["/v1/things", "a HEAD binding cannot have a body (fetch refuses to send one)"],
  response_body_unknown: ["/v1/things", 'response_body "nope" is not a field of bad.common.Res'],
  no_pattern: ["", "the rule sets no pattern (get, put, post, delete, patch or custom)"],
  custom_kind: ["/v1/things", 'custom kind "GET X" is not an HTTP method token'],
  custom_kind_empty: ["/v1/things", 'custom kind "" is not an HTTP method token'],
  nested_bindings: ["/v1/b", "additional_bindings must not be nested"],
  same_shape_rpc: ["/v1/things/{name}", 'it has the same method and shape as "/v1/things/{id}", so one of them could never be reached'],
  same_shape_rpc_case: [
    "/v1/things/{name}",
    'it has the same method and shape as "/v1/things/{id}", so one of them could never be reached',
  ],
};

describe("rejections of the path template parser reach the user with file, rpc and template", () => {
  test.each(Object.entries(templateRejections))("%s", (name, [template, reason]) => {
    expect(thrown(() => generate(`bad/${name}.proto`))).toBe(onCall(name, template, reason));
  });
});

describe("rejections of the rule reader", () => {
  test.each(Object.entries(ruleRejections))("%s", (name, [template, reason]) => {
    expect(thrown(() => generate(`bad/${name}.proto`))).toBe(onCall(name, template, reason));
  });
});

test("two rpcs of one service with the same method and template shape", () => {
  expect(thrown(() => generate("bad/same_shape_service.proto"))).toBe(
    'invalid http rule on bad.same_shape_service.Svc.Fetch: GET "/v1/things/{name}" has the same shape as "/v1/things/{id}" of Get, so one of them could never be reached (template "/v1/things/{name}" in bad/same_shape_service.proto)',
  );
});

// Cases of the invalid set that generate by default, with a warning on stderr.
const generatedWithWarning = ["client_streaming", "bidi_streaming", "t_after_deep"];

describe("rules that generate with a warning (streaming=warn, same_shape=warn)", () => {
  let warnings: string[];
  const saved = diagnostics.warn;
  beforeEach(() => {
    warnings = [];
    diagnostics.warn = (line) => void warnings.push(line);
  });
  afterEach(() => {
    diagnostics.warn = saved;
  });
  const warning = (name: string, line: string) => `protoc-gen-a2a-http: warning: bad/${name}.proto: bad.${name}.Svc: ${line}`;

  test.each([
    ["client_streaming", "client-streaming"],
    ["bidi_streaming", "bidi-streaming"],
  ])("%s: left out of every file, with a warning naming the rpc (the default)", (name, kind) => {
    const res = generate(`bad/${name}.proto`);
    expect(res.error ?? "").toBe("");
    // Call is the service's only rpc, so nothing is left to write.
    expect(res.file).toEqual([]);
    expect(warnings).toEqual([
      warning(name, `Call is a ${kind} rpc, which HTTP/JSON cannot carry: left out of the routes, servers and client`),
    ]);
  });

  test.each([
    ["client_streaming", "/v1/upload", "a client-streaming rpc cannot be served over HTTP/JSON"],
    ["bidi_streaming", "/v1/chat", "a bidi-streaming rpc cannot be served over HTTP/JSON"],
  ])("%s: streaming=error fails generation", (name, template, reason) => {
    expect(thrown(() => generate(`bad/${name}.proto`, "target=ts,streaming=error"))).toBe(onCall(name, template, reason));
    expect(warnings).toEqual([]);
  });

  test("a variable after ** is served, with a warning that Envoy rejects the template", () => {
    const res = generate("bad/t_after_deep.proto");
    const routes = res.file.find((f) => f.name === "bad/t_after_deep_http.ts")!.content;
    expect(routes).toContain('template: "/{name=**}/{id}"');
    expect(warnings).toEqual([
      warning(
        "t_after_deep",
        'GET /{name=**}/{id} (Call) has a variable or "*" after "**": served here and by grpc-gateway, but Envoy\'s gRPC-JSON transcoder rejects the template',
      ),
    ]);
  });

  test.each([
    [
      "same_shape_rpc",
      "GET /v1/things/{name} (Call) can never be reached: GET /v1/things/{id} (Call) has the same shape and comes first; left out",
    ],
    [
      "same_shape_service",
      "GET /v1/things/{name} (Fetch) can never be reached: GET /v1/things/{id} (Get) has the same shape and comes first; left out",
    ],
  ])("%s: same_shape=warn keeps the first binding in proto order and names the other", (name, line) => {
    const res = generate(`bad/${name}.proto`, "target=ts,same_shape=warn");
    expect(warnings).toEqual([warning(name, line)]);
    const routes = res.file.find((f) => f.name === `bad/${name}_http.ts`)!.content;
    expect(routes).toContain('template: "/v1/things/{id}"');
    expect(routes).not.toContain('template: "/v1/things/{name}"');
  });

  test("same_shape=warn: an rpc whose every binding is unreachable leaves the handlers and the client", () => {
    const res = generate("bad/same_shape_service.proto", "target=ts,same_shape=warn");
    const routes = res.file.find((f) => f.name === "bad/same_shape_service_http.ts")!.content;
    const client = res.file.find((f) => f.name === "bad/same_shape_service_http_client.ts")!.content;
    expect(routes).toContain("\n  get(request");
    expect(routes).not.toContain("\n  fetch(request");
    expect(client).not.toContain("\n  fetch(request");
  });
});

test("every rejection case has a test, and every test a case", async () => {
  const { fixtureSet } = await import("./helpers.js");
  const files = fixtureSet("invalid")
    .file.map((f) => f.name)
    .filter((n) => n.startsWith("bad/") && n !== "bad/common.proto")
    .sort();
  const tested = [...Object.keys(templateRejections), ...Object.keys(ruleRejections), "same_shape_service", ...generatedWithWarning]
    .map((n) => `bad/${n}.proto`)
    .sort();
  expect(files).toEqual(tested);
});

test("the rejection stops generation of the other files too (nothing half-written)", () => {
  expect(() => runPlugin(request("invalid", ["bad/common.proto", "bad/f_unknown.proto"], "target=ts"))).toThrow(/path variable "nmae"/);
});

test("a file without services, or whose services have no rules, yields no files", () => {
  expect(runPlugin(request("invalid", ["bad/common.proto"], "target=ts")).file).toEqual([]);
});

describe("plugin options", () => {
  const a2a = (parameter: string) => runPlugin(request("valid", ["a2a.proto"], parameter));
  const validList =
    "valid options are profile, server, client, stub, agent, connect, json_codec, conflicts, openapi, streaming, same_shape, runtime_import and protoplugin's target, import_extension, js_import_style, keep_empty_files, ts_nocheck, elide_plugin_version, rewrite_imports";

  test("an unknown option is named, with the list of valid ones", () => {
    expect(thrown(() => a2a("target=ts,flavour=mild"))).toBe(`invalid option "flavour=mild": unknown option "flavour"; ${validList}`);
  });
  test("an unknown option without a value", () => {
    expect(thrown(() => a2a("target=ts,profile=a2a,verbose"))).toBe(
      `invalid option "profile=a2a,verbose": unknown option "verbose"; ${validList}`,
    );
  });
  test.each([
    ["profile=openapi", 'option "profile=openapi" is not valid; profile takes one of none, a2a'],
    ["server=koa", 'option "server=koa" is not valid; server takes one of express, fastify, hono, none'],
    ["client=yes", 'option "client=yes" is not valid; client takes one of true, false, lean'],
    ["stub=", 'option "stub=" is not valid; stub takes one of true, false'],
    ["conflicts=ignore", 'option "conflicts=ignore" is not valid; conflicts takes one of comment, warn, error'],
    ["streaming=skip", 'option "streaming=skip" is not valid; streaming takes one of warn, error'],
    ["same_shape=first", 'option "same_shape=first" is not valid; same_shape takes one of error, warn'],
    ["runtime_import=", 'option "runtime_import" needs a module name, e.g. runtime_import=a2a-http'],
  ])("malformed value %s", (option, reason) => {
    expect(thrown(() => a2a(`target=ts,${option}`))).toBe(`invalid option "${option}": ${reason}`);
  });
  test.each([
    ["servr=express", 'unknown option "servr" (did you mean "server"?); '],
    ["profile=A2", 'option "profile=A2" is not valid (did you mean "a2a"?); profile takes one of none, a2a'],
    ["target=tss", 'target takes one of ts, js, dts, js+dts, ts+js, ts+dts, ts+js+dts (did you mean "ts"?)'],
  ])("a near miss %s says what was meant", (option, reason) => {
    expect(thrown(() => a2a(option))).toContain(`invalid option "${option}": ${reason}`);
  });
  test.each([
    ["target=python", "target takes one of ts, js, dts, js+dts, ts+js, ts+dts, ts+js+dts"],
    ["target=ts+rust", "target takes one of ts, js, dts, js+dts, ts+js, ts+dts, ts+js+dts"],
    ["import_extension=mjs", 'import_extension takes one of js, ts, none (did you mean "js"?)'],
    ["js_import_style=amd", "js_import_style takes one of module, legacy_commonjs"],
    ["keep_empty_files=maybe", "keep_empty_files takes one of true, false"],
  ])("a malformed protoplugin option %s lists the valid values", (option, reason) => {
    expect(thrown(() => a2a(option))).toBe(`invalid option "${option}": ${reason}`);
  });
  test("protoplugin's option spellings stay valid (dts+js, .js, 1)", () => {
    expect(a2a("target=dts+js,import_extension=.js,keep_empty_files=1,conflicts=comment").error ?? "").toBe("");
  });
  test("relative imports end in .js unless import_extension says otherwise (NodeNext needs it)", () => {
    const content = (parameter: string) => a2a(parameter).file.find((f) => f.name === "a2a_http.ts")!.content;
    expect(content("target=ts")).toContain('from "./a2a_pb.js"');
    expect(content("target=ts,import_extension=none")).toContain('from "./a2a_pb"');
  });
  test("valid options are accepted", () => {
    const res = a2a(
      "target=ts,profile=a2a,server=express,server=hono,client=false,stub=false,conflicts=comment,streaming=error,same_shape=warn,runtime_import=@acme/rt",
    );
    const routes = res.file.find((f) => f.name === "a2a_http.ts");
    expect(routes?.content).toContain('from "@acme/rt"');
  });
  test("connect=true writes the connect-es adapter, importing <runtime_import>/connect; it is off by default", () => {
    expect(a2a("target=ts,profile=a2a").file.some((f) => f.name.endsWith("_http_connect.ts"))).toBe(false);
    const on = a2a("target=ts,profile=a2a,connect=true,runtime_import=@acme/rt").file.find((f) => f.name === "a2a_http_connect.ts");
    expect(on?.content).toContain('from "@acme/rt/connect"');
    expect(on?.content).toContain("export function a2aServiceConnect");
    expect(thrown(() => a2a("connect=maybe"))).toContain('option "connect=maybe" is not valid');
  });
  test("json_codec (default true) writes <file>_http_json.ts, importing <runtime_import>/codegenv1, and the route table uses it", () => {
    const on = a2a("target=ts,runtime_import=@acme/rt");
    const codecs = on.file.find((f) => f.name === "a2a_http_json.ts")?.content ?? "";
    expect(codecs).toContain('from "@acme/rt/codegenv1"');
    expect(codecs).toContain("export const TaskJson: MessageJsonCodec<typeof TaskSchema>");
    const routes = on.file.find((f) => f.name === "a2a_http.ts")!.content;
    expect(routes).toContain("json: { input: GetTaskRequestJson, output: TaskJson }");
    expect(routes).toContain('from "./a2a_http_json.js"');
    const off = a2a("target=ts,json_codec=false");
    expect(off.file.some((f) => f.name.endsWith("_http_json.ts"))).toBe(false);
    expect(off.file.find((f) => f.name === "a2a_http.ts")!.content).not.toContain("json:");
    expect(thrown(() => a2a("json_codec=yes"))).toContain('option "json_codec=yes" is not valid');
  });
});

describe("the conflict report", () => {
  let warnings: string[];
  const saved = diagnostics.warn;
  beforeEach(() => {
    warnings = [];
    diagnostics.warn = (line) => void warnings.push(line);
  });
  afterEach(() => {
    diagnostics.warn = saved;
  });

  const a2aPairs = [
    "GET /tasks/{id=*} (GetTask) and GET /{tenant}/tasks (ListTasks) both match /tasks/tasks; the first, GetTask, wins",
    "GET /tasks/{id=*} (GetTask) and GET /{tenant}/extendedAgentCard (GetExtendedAgentCard) both match /tasks/extendedAgentCard; the first, GetTask, wins",
    "GET /{tenant}/tasks/{id=*} (GetTask) and GET /tasks/{task_id=*}/pushNotificationConfigs (ListTaskPushNotificationConfigs) both match /tasks/tasks/pushNotificationConfigs; the second, ListTaskPushNotificationConfigs, wins",
    "GET /tasks/{task_id=*}/pushNotificationConfigs/{id=*} (GetTaskPushNotificationConfig) and GET /{tenant}/tasks/{task_id=*}/pushNotificationConfigs (ListTaskPushNotificationConfigs) both match /tasks/tasks/pushNotificationConfigs/pushNotificationConfigs; the first, GetTaskPushNotificationConfig, wins",
  ];

  test("is quiet by default: a2a.proto's known overlaps are documented, not printed on every run", () => {
    const res = runPlugin(request("valid", ["a2a.proto"], "target=ts,profile=a2a"));
    expect(warnings).toEqual([]);
    const content = res.file.find((f) => f.name === "a2a_http.ts")!.content;
    for (const p of a2aPairs) expect(content).toContain(` * - ${p}\n`);
  });

  test("names the overlapping pairs of a2a.proto on stderr with conflicts=warn", () => {
    runPlugin(request("valid", ["a2a.proto"], "target=ts,profile=a2a,conflicts=warn"));
    expect(warnings).toEqual(a2aPairs.map((p) => `protoc-gen-a2a-http: warning: a2a.proto: lf.a2a.v1.A2AService: ${p}`));
  });

  test("and in the generated route file's comment", () => {
    const res = runPlugin(request("valid", ["a2a.proto"], "target=ts,conflicts=comment"));
    expect(warnings).toEqual([]);
    const content = res.file.find((f) => f.name === "a2a_http.ts")!.content;
    for (const p of a2aPairs) expect(content).toContain(` * - ${p}\n`);
  });

  test("conflicts=error fails generation on the first pair", () => {
    expect(thrown(() => runPlugin(request("valid", ["a2a.proto"], "target=ts,conflicts=error")))).toBe(
      `overlapping templates: a2a.proto: lf.a2a.v1.A2AService: ${a2aPairs[0]}`,
    );
  });

  test("a custom rule of kind * overlaps every method, and */ in a template cannot close the comment", () => {
    const res = runPlugin(request("valid", ["acme/edge/v1/edge.proto"], "target=ts,conflicts=comment"));
    const content = res.file.find((f) => f.name === "acme/edge/v1/edge_http.ts")!.content;
    const line =
      "GET /v1/*\\/list/{name=**} (ListObjects) and * /v1/any/{id} (Anything) both match /v1/any/list; the second, Anything, wins";
    expect(content).toContain(` * - ${line}\n`);
    const start = content.indexOf("/**\n * The HTTP bindings of acme.edge.v1.HTTPEdgeService");
    const close = content.indexOf("*/", start + 3);
    expect(content.slice(close, close + 16)).toBe("*/\nexport const ");
  });

  test("a2a-v0_3.proto has no overlapping pairs; the library has its own", () => {
    runPlugin(request("valid", ["a2a-v0_3.proto"], "target=ts"));
    expect(warnings).toEqual([]);
  });
});
