import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { readBindings, ruleError, type HttpBinding } from "./bindings.js";
import { findConflicts, type TemplateConflict } from "./conflicts.js";
import { templateShape } from "a2a-http/routing";

/** The HTTP surface of one service: its bindings in proto order, and where they overlap. */
export interface ServiceRoutes {
  readonly service: DescService;
  readonly bindings: readonly HttpBinding[];
  /** The rpcs that have at least one binding, in proto order. */
  readonly rpcs: readonly DescMethod[];
  readonly conflicts: readonly TemplateConflict[];
}

/**
 * Reads every binding of every rpc of a service. Throws {@link HttpRuleError}
 * for an invalid rule, or for two bindings (of any rpcs) with the same
 * method and template shape, which no router can tell apart.
 */
export function readServiceRoutes(service: DescService): ServiceRoutes {
  const bindings = service.methods.flatMap(readBindings);
  const seen = new Map<string, HttpBinding>();
  for (const b of bindings) {
    const key = `${b.method.toUpperCase()} ${templateShape(b.path)}`;
    const prior = seen.get(key);
    if (prior && prior.rpc !== b.rpc) {
      throw ruleError(
        b.rpc,
        b.path.template,
        `${b.method} ${JSON.stringify(b.path.template)} has the same shape as ${JSON.stringify(prior.path.template)} of ${prior.rpc.name}, so one of them could never be reached`,
      );
    }
    seen.set(key, b);
  }
  const bound = new Set(bindings.map((b) => b.rpc));
  const rpcs = service.methods.filter((m) => bound.has(m));
  return { service, bindings, rpcs, conflicts: findConflicts(bindings) };
}

/** One line per conflict, e.g. `GET /tasks/{id=*} (GetTask) and GET /{tenant}/tasks (ListTasks) both match /tasks/tasks; GetTask wins`. */
export function describeConflict(routes: ServiceRoutes, c: TemplateConflict): string {
  const a = routes.bindings[c.first]!;
  const b = routes.bindings[c.second]!;
  const w = routes.bindings[c.winner]!;
  const name = (x: HttpBinding) => `${x.method} ${x.path.template} (${x.rpc.name})`;
  return `${name(a)} and ${name(b)} both match ${c.examplePath}; ${w === a ? "the first" : "the second"}, ${w.rpc.name}, wins`;
}
