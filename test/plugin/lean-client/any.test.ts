// google.protobuf.Any in a lean client: read and written by protobuf-es with
// the client's `registry`, as the reflective client does; without the
// registry, a typed Any is an error of the answer (INTERNAL) or the request
// (INVALID_ARGUMENT), as there. A hand-written lean table: no test proto has an Any.
import { create, createRegistry, fromJson } from "@bufbuild/protobuf";
import { AnySchema, anyPack } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { Code, RpcError } from "../../../packages/runtime/src/errors.js";
import { createLeanClient, leanAny, type LeanMessage, type LeanRoute } from "../../../packages/runtime/src/client/index.js";
import { file_a2a, TaskSchema } from "../../../gen/a2a_pb.js";

const $Holder: LeanMessage = {
  typeName: "t.v1.Holder",
  fields: [
    { j: "detail", t: leanAny },
    { j: "details", t: leanAny, c: "l" },
  ],
};
const routes: LeanRoute[] = [{ name: "Echo", method: "POST", path: [["echo"], "", []], body: "*", input: $Holder, output: $Holder }];
const registry = createRegistry(file_a2a);
const task = create(TaskSchema, { id: "t1", contextId: "c1" });
const typed = { "@type": "type.googleapis.com/lf.a2a.v1.Task", id: "t1", contextId: "c1" };

function client(answer: unknown, withRegistry: boolean, sent: string[] = []) {
  const fetch = async (_url: RequestInfo | URL, init?: RequestInit) => {
    sent.push(String(init?.body));
    return new Response(JSON.stringify(answer), { headers: { "content-type": "application/json" } });
  };
  return createLeanClient<{ echo(r: unknown): Promise<Record<string, unknown>> }>("t.v1.T", routes, {
    baseUrl: "http://agent.test",
    fetch,
    ...(withRegistry ? { registry } : {}),
  });
}

describe("google.protobuf.Any in a client=lean client", () => {
  it("reads a typed Any with the registry, as fromJson does", async () => {
    const got = await client({ detail: typed, details: [typed, {}] }, true).echo({});
    expect(got["detail"]).toEqual(fromJson(AnySchema, typed, { registry }));
    expect(got["details"]).toEqual([fromJson(AnySchema, typed, { registry }), fromJson(AnySchema, {})]);
  });

  it("writes an Any packed from a message, with the registry", async () => {
    const sent: string[] = [];
    await client({}, true, sent).echo({ detail: anyPack(TaskSchema, task) });
    expect(JSON.parse(sent[0]!)).toEqual({ detail: typed });
  });

  it("without the registry, a typed Any in the answer is INTERNAL and in the request INVALID_ARGUMENT", async () => {
    const read = await client({ detail: typed }, false)
      .echo({})
      .catch((e: unknown) => e);
    expect(read).toBeInstanceOf(RpcError);
    expect((read as RpcError).code).toBe(Code.INTERNAL);
    const write = await client({}, false)
      .echo({ detail: anyPack(TaskSchema, task) })
      .catch((e: unknown) => e);
    expect((write as RpcError).code).toBe(Code.INVALID_ARGUMENT);
  });
});
