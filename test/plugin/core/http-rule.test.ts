// httpRuleOf (packages/plugin/src/httprule/bindings.ts) decodes an rpc's
// google.api.http rule from its options' unknown records instead of
// getOption: the same rule, for every rpc of the fixtures and for a rule
// split over two records (merged). The corpus test checks googleapis' rpcs.
import { create, createFileRegistry, equals, getOption, hasOption, setExtension, toBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema, MethodOptionsSchema } from "@bufbuild/protobuf/wkt";
import { expect, test } from "vitest";
import { http } from "../../../packages/plugin/src/gen/google/api/annotations_pb.js";
import { HttpRuleSchema } from "../../../packages/plugin/src/gen/google/api/http_pb.js";
import { httpRuleOf } from "../../../packages/plugin/src/httprule/bindings.js";
import { fixtureSet } from "./helpers.js";

test("every rpc of the fixtures: the rule getOption reads, or none where hasOption says none", () => {
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: fixtureSet("valid").file }));
  let rules = 0;
  let without = 0;
  for (const file of registry.files) {
    for (const rpc of file.services.flatMap((s) => s.methods)) {
      const rule = httpRuleOf(rpc);
      expect(rule !== undefined, rpc.toString()).toBe(hasOption(rpc, http));
      if (rule === undefined) {
        without++;
        continue;
      }
      expect(equals(HttpRuleSchema, rule, getOption(rpc, http)), rpc.toString()).toBe(true);
      rules++;
    }
  }
  expect(rules).toBeGreaterThan(20);
  expect(without).toBeGreaterThan(0);
});

test("a rule given in two records is merged, as getOption merges it", () => {
  const registry = createFileRegistry(create(FileDescriptorSetSchema, { file: fixtureSet("valid").file }));
  const rpc = [...registry.files].flatMap((f) => f.services)[0]!.methods[0]!;
  const options = create(MethodOptionsSchema);
  setExtension(options, http, create(HttpRuleSchema, { pattern: { case: "get", value: "/v1/a" } }));
  const first = options.$unknown![0]!;
  setExtension(options, http, create(HttpRuleSchema, { body: "*", additionalBindings: [{ pattern: { case: "post", value: "/v1/b" } }] }));
  options.$unknown = [first, ...options.$unknown!];
  const twice = { ...rpc, proto: { ...rpc.proto, options } } as typeof rpc;
  const rule = httpRuleOf(twice)!;
  expect(toBinary(HttpRuleSchema, rule)).toEqual(toBinary(HttpRuleSchema, getOption(twice, http)));
  expect([rule.pattern.case, rule.pattern.value, rule.body, rule.additionalBindings.length]).toEqual(["get", "/v1/a", "*", 1]);
});
