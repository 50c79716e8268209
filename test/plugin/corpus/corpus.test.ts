// The googleapis corpus in `npm test`: every package of google-proto-files
// with HttpRules generates (about 5 s, after a buf build that is cached in
// node_modules/.cache), and a sample type-checks under strict NodeNext beside
// protoc-gen-es's output. `npm run corpus` type-checks all of it.
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { create, createFileRegistry, equals, getOption, hasOption, type DescFile } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import { beforeAll, describe, expect, test } from "vitest";
import { fieldBehaviorReader } from "../../../packages/plugin/src/emit/field-behavior.js";
import { http } from "../../../packages/plugin/src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../../packages/plugin/src/gen/google/api/http_pb.js";
import { httpRuleOf } from "../../../packages/plugin/src/httprule/bindings.js";
import { commentsOf, docText, fileNames, type Commented } from "../../../packages/plugin/src/emit/file-cache.js";
import { protoplugin } from "../../../packages/plugin/src/protoplugin.js";
import { nestedTypes } from "@bufbuild/protobuf/reflect";
import {
  buildSet,
  corpusPackages,
  generatePackage,
  httpProtoFiles,
  protocGenEsFiles,
  SetIndex,
  typeCheck,
  type CorpusPackage,
  type GeneratedPackage,
} from "./corpus.js";

// The sample: the APIs of the issue (kms, secretmanager, tasks, run, workflows,
// redis, functions, longrunning, iam) and every kind of corpus warning
// (Firestore's segments after **, BigQuery Storage's same-shape bindings,
// discoveryengine's and logging's bidi-streaming rpcs).
const sample = [
  "google.cloud.kms.v1",
  "google.cloud.secretmanager.v1",
  "google.cloud.tasks.v2",
  "google.cloud.run.v2",
  "google.cloud.workflows.v1",
  "google.cloud.redis.v1",
  "google.cloud.functions.v2",
  "google.longrunning",
  "google.iam.v1",
  "google.firestore.v1",
  "google.cloud.bigquery.storage.v1",
  "google.devtools.remoteworkers.v1test2",
  "google.logging.v2",
];

let index: SetIndex;
let packages: CorpusPackage[];
let results: GeneratedPackage[];

beforeAll(() => {
  const files = httpProtoFiles();
  const set = buildSet(files);
  index = new SetIndex(set);
  packages = corpusPackages(set, files);
  results = packages.map((p) => generatePackage(index, p));
}, 240_000);

const warningsOf = (pkg: string) =>
  results.find((r) => r.pkg.name === pkg)!.warnings.map((w) => w.replace(/^protoc-gen-a2a-http: warning: /, ""));

describe("every package of google-proto-files with HttpRules", () => {
  test("generates, none failing", () => {
    expect(packages.length).toBeGreaterThan(400);
    expect(results.filter((r) => r.error !== undefined).map((r) => `${r.pkg.name}: ${r.error}`)).toEqual([]);
  });

  test("and writes a route table for every file with a rule", () => {
    const missing = results.flatMap((r) => r.pkg.files.filter((p) => !r.files.some((f) => f.name === p.replace(/\.proto$/, "_http.ts"))));
    expect(missing).toEqual([]);
  });

  test("client- and bidi-streaming rpcs are left out with a warning naming each, the rest of the package generates", () => {
    const lines = warningsOf("google.cloud.discoveryengine.v1");
    expect(lines).toContain(
      "google/cloud/discoveryengine/v1/grounded_generation_service.proto: google.cloud.discoveryengine.v1.GroundedGenerationService: StreamGenerateGroundedContent is a bidi-streaming rpc, which HTTP/JSON cannot carry: left out of the routes, servers and client",
    );
    const de = results.find((r) => r.pkg.name === "google.cloud.discoveryengine.v1")!;
    const routes = de.files.find((f) => f.name === "google/cloud/discoveryengine/v1/grounded_generation_service_http.ts")!.content;
    expect(routes).toContain('rpc: "checkGrounding"');
    expect(routes).not.toContain("streamGenerateGroundedContent");
    expect(warningsOf("google.actions.sdk.v2")).toContain(
      "google/actions/sdk/v2/actions_sdk.proto: google.actions.sdk.v2.ActionsSdk: WriteDraft is a client-streaming rpc, which HTTP/JSON cannot carry: left out of the routes, servers and client",
    );
  });

  test("Firestore's ListDocuments generates (a variable after **), with the Envoy warning", () => {
    expect(warningsOf("google.firestore.v1")).toContain(
      'google/firestore/v1/firestore.proto: google.firestore.v1.Firestore: GET /v1/{parent=projects/*/databases/*/documents/*/**}/{collection_id} (ListDocuments) has a variable or "*" after "**": served here and by grpc-gateway, but Envoy\'s gRPC-JSON transcoder rejects the template',
    );
  });

  test("BigQuery Storage's same-shape GET bindings: the later one (SplitReadStream) is named as unreachable", () => {
    for (const v of ["v1", "v1beta2"]) {
      expect(warningsOf(`google.cloud.bigquery.storage.${v}`)).toContain(
        `google/cloud/bigquery/storage/${v}/storage.proto: google.cloud.bigquery.storage.${v}.BigQueryRead: GET /${v}/{name=projects/*/locations/*/sessions/*/streams/*} (SplitReadStream) can never be reached: GET /${v}/{read_stream=projects/*/locations/*/sessions/*/streams/*} (ReadRows) has the same shape and comes first; left out`,
      );
    }
  });
});

describe("a sample", () => {
  test("type-checks under strict NodeNext beside protoc-gen-es's output", () => {
    const chosen = results.filter((r) => sample.includes(r.pkg.name));
    expect(chosen.map((r) => r.pkg.name).sort()).toEqual([...sample].sort());
    const ours = chosen.flatMap((r) => r.files);
    const es = protocGenEsFiles(
      index,
      chosen.flatMap((r) => r.pkg.files),
    );
    expect(typeCheck(ours, es)).toBe("");
  }, 180_000);

  // file-cache.ts stands in for protoplugin's per-call name and comment
  // lookups; these hold it to protoplugin's own answers on real protos.
  describe("names and JSDoc equal protoplugin's own", () => {
    const require = createRequire(import.meta.url);
    // protoplugin's CommonJS build, beside its index (the package exports only the index).
    const internal = (file: string) => require(join(dirname(require.resolve("@bufbuild/protoplugin")), file));
    const names = internal("names.js") as {
      generatedDescName(d: unknown): string;
      generatedShapeName(d: unknown): string;
    };
    const jsdoc = internal("jsdoc.js") as { createJsDocTextFromDesc(d: unknown): string };
    let files: DescFile[];
    beforeAll(() => {
      const chosen = packages.filter((p) => sample.includes(p.name)).flatMap((p) => p.files);
      const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: index.closure(chosen) }));
      files = [...registry.files];
    });

    test("descriptor and type names of every message, enum, service and file", () => {
      let n = 0;
      for (const file of files) {
        const ours = fileNames(file);
        for (const [desc, name] of ours.schema) {
          expect(name, desc.toString()).toBe(names.generatedDescName(desc));
          n++;
        }
        for (const [desc, name] of ours.shape) {
          expect(name, desc.toString()).toBe(names.generatedShapeName(desc));
          n++;
        }
      }
      expect(n).toBeGreaterThan(1000);
    });

    test("the JSDoc text of every service and rpc", () => {
      let n = 0;
      for (const file of files) {
        for (const s of file.services) {
          expect(docText(s)).toBe(jsdoc.createJsDocTextFromDesc(s));
          for (const m of s.methods) expect(docText(m), m.toString()).toBe(jsdoc.createJsDocTextFromDesc(m));
          n += 1 + s.methods.length;
        }
      }
      expect(n).toBeGreaterThan(200);
    });

    test("google.api.field_behavior of every field, as getOption reads it", () => {
      const behaviors = fieldBehaviorReader(files);
      const ext = files
        .find((f) => f.name === "google/api/field_behavior")!
        .extensions.find((e) => e.typeName === "google.api.field_behavior")!;
      let set = 0;
      for (const file of files) {
        for (const t of nestedTypes(file)) {
          if (t.kind !== "message") continue;
          for (const field of t.fields) {
            const list = getOption(field, ext) as number[];
            const b = behaviors(field);
            expect([b.required, b.outputOnly, b.inputOnly], field.toString()).toEqual([
              list.includes(2),
              list.includes(3),
              list.includes(4),
            ]);
            if (list.length > 0) set++;
          }
        }
      }
      expect(set).toBeGreaterThan(500);
    });

    test("google.api.http of every rpc, as getOption reads it", () => {
      let n = 0;
      for (const file of files) {
        for (const m of file.services.flatMap((s) => s.methods)) {
          const rule = httpRuleOf(m);
          expect(rule !== undefined, m.toString()).toBe(hasOption(m, http));
          if (rule === undefined) continue;
          expect(equals(HttpRuleSchema, rule, getOption(m, http)), m.toString()).toBe(true);
          n++;
        }
      }
      expect(n).toBeGreaterThan(200);
    });

    test("the comments of every message, field, oneof, enum and value (OpenAPI descriptions)", () => {
      let n = 0;
      const check = (d: Commented) => {
        const want = protoplugin.getComments(d);
        expect(commentsOf(d), d.toString()).toEqual({
          ...(want.leading !== undefined ? { leading: want.leading } : {}),
          ...(want.trailing !== undefined ? { trailing: want.trailing } : {}),
        });
        n++;
      };
      for (const file of files) {
        for (const t of nestedTypes(file)) {
          if (t.kind === "message") {
            check(t);
            t.fields.forEach(check);
            t.oneofs.forEach(check);
          } else if (t.kind === "enum") {
            check(t);
            t.values.forEach(check);
          } else check(t);
        }
      }
      expect(n).toBeGreaterThan(1000);
    });
  });
});
