import type { DescMethod, DescService } from "@bufbuild/protobuf";
import { hasWildcardAfterDeep, isUnservableStream, readBindings, ruleError, shapeKey, type HttpBinding } from "./bindings.js";
import { findConflicts, type TemplateConflict } from "./conflicts.js";

/** The HTTP surface of one service: its bindings in proto order, and where they overlap. */
export interface ServiceRoutes {
  readonly service: DescService;
  readonly bindings: readonly HttpBinding[];
  /** The rpcs that have at least one binding, in proto order. */
  readonly rpcs: readonly DescMethod[];
  /** The rpcs that have no google.api.http rule at all, in proto order. */
  readonly unbound: readonly DescMethod[];
  readonly conflicts: readonly TemplateConflict[];
  /** What was left out or will not run everywhere, one line each (without the file name). */
  readonly warnings: readonly string[];
}

/** What to do with rules that a proto's owner may not be able to change. */
export interface ReadOptions {
  /** A client- or bidi-streaming rpc with a rule: leave it out with a warning, or fail. */
  readonly streaming: "warn" | "error";
  /** Two bindings with the same method and shape: fail, or keep the first in proto order with a warning. */
  readonly sameShape: "error" | "warn";
}

const defaults: ReadOptions = { streaming: "warn", sameShape: "error" };

/**
 * Reads every binding of every rpc of a service. Throws {@link HttpRuleError}
 * for an invalid rule. A client- or bidi-streaming rpc is left out (or an
 * error, with `streaming: "error"`); two bindings (of any rpcs) with the same
 * method and template shape, which no router can tell apart, are an error (or
 * the later one is dropped, with `sameShape: "warn"`).
 */
export function readServiceRoutes(service: DescService, options: ReadOptions = defaults): ServiceRoutes {
  const warnings: string[] = [];
  const bindings: HttpBinding[] = [];
  const seen = new Map<string, HttpBinding>();
  const unbound: DescMethod[] = [];
  for (const rpc of service.methods) {
    const own = readBindings(rpc);
    if (own.length === 0) {
      unbound.push(rpc);
      continue;
    }
    if (isUnservableStream(rpc)) {
      const kind = rpc.methodKind.replace("_", "-");
      if (options.streaming === "error") {
        throw ruleError(rpc, own[0]!.path.template, `a ${kind} rpc cannot be served over HTTP/JSON`);
      }
      warnings.push(`${rpc.name} is a ${kind} rpc, which HTTP/JSON cannot carry: left out of the routes, servers and client`);
      continue;
    }
    for (const b of own) {
      const prior = seen.get(shapeKey(b));
      if (prior) {
        const reason =
          prior.rpc === b.rpc
            ? `it has the same method and shape as ${JSON.stringify(prior.path.template)}, so one of them could never be reached`
            : `${b.method} ${JSON.stringify(b.path.template)} has the same shape as ${JSON.stringify(prior.path.template)} of ${prior.rpc.name}, so one of them could never be reached`;
        if (options.sameShape === "error") throw ruleError(b.rpc, b.path.template, reason);
        warnings.push(
          `${b.method} ${b.path.template} (${b.rpc.name}) can never be reached: ${prior.method} ${prior.path.template} (${prior.rpc.name}) has the same shape and comes first; left out`,
        );
        continue;
      }
      seen.set(shapeKey(b), b);
      bindings.push(b);
      if (hasWildcardAfterDeep(b.path)) {
        warnings.push(
          `${b.method} ${b.path.template} (${b.rpc.name}) has a variable or "*" after "**": served here and by grpc-gateway, but Envoy's gRPC-JSON transcoder rejects the template`,
        );
      }
    }
  }
  const bound = new Set(bindings.map((b) => b.rpc));
  const rpcs = service.methods.filter((m) => bound.has(m));
  return { service, bindings, rpcs, unbound, conflicts: findConflicts(bindings), warnings };
}

/** One line per conflict, e.g. `GET /tasks/{id=*} (GetTask) and GET /{tenant}/tasks (ListTasks) both match /tasks/tasks; GetTask wins`. */
export function describeConflict(routes: ServiceRoutes, c: TemplateConflict): string {
  const a = routes.bindings[c.first]!;
  const b = routes.bindings[c.second]!;
  const w = routes.bindings[c.winner]!;
  const name = (x: HttpBinding) => `${x.method} ${x.path.template} (${x.rpc.name})`;
  return `${name(a)} and ${name(b)} both match ${c.examplePath}; ${w === a ? "the first" : "the second"}, ${w.rpc.name}, wins`;
}
