// The v0.3 HTTP+JSON routes the runtime serves (a2a-v03/rest.ts) are those of
// a2a-v0_3.proto's HttpRules (generated into gen/a2a-v0_3_http.ts): the same
// method and path shape for every rpc, each on the v1.0 rpc of the same
// meaning. The one difference is deliberate: create-config's rule says
// `task/*`, a typo that v0.3 clients do not follow (they POST to `tasks/*`).
import { describe, expect, it } from "vitest";
import { parsePathTemplate, templateShape } from "../../../packages/runtime/src/path-template.js";
import { A2A_V03_REST } from "../../../packages/runtime/src/a2a-v03/rest.js";
import { A2AServiceRoutes as V03Routes } from "../../../gen/a2a-v0_3_http.js";
import { A2AService as V1Service } from "../../../gen/a2a_pb.js";

/** v0.3 rpc (proto name) -> the v1.0 rpc that does its work. */
const v1RpcOf: Record<string, string> = {
  TaskSubscription: "SubscribeToTask",
  ListTaskPushNotificationConfig: "ListTaskPushNotificationConfigs",
  GetAgentCard: "GetExtendedAgentCard",
};

const shape = (template: string) => templateShape(parsePathTemplate(template));

describe("the v0.3 routes", () => {
  it("cover every HttpRule of a2a-v0_3.proto with the same method and path shape", () => {
    const ours = A2A_V03_REST.routes.map((r) => `${r.method} ${shape(r.template)} ${r.rpc}`);
    for (const r of V03Routes) {
      const v1 = v1RpcOf[r.descriptor.name] ?? r.descriptor.name;
      const template = r.template.replace("{parent=task/*/pushNotificationConfigs}", "{parent=tasks/*}/pushNotificationConfigs");
      expect(ours, `${r.method} ${r.template}`).toContain(`${r.method} ${shape(template)} ${v1}`);
    }
    // Subscribe is also taken on POST (the spec text); nothing else is extra.
    expect(ours).toHaveLength(V03Routes.length + 1);
    expect(ours).toContain(`POST ${shape("/v1/tasks/{id}:subscribe")} SubscribeToTask`);
  });

  it("name only rpcs of the v1.0 service", () => {
    const rpcs = new Set(V1Service.methods.map((m) => m.name));
    for (const r of A2A_V03_REST.routes) expect(rpcs.has(r.rpc), r.rpc).toBe(true);
  });
});
