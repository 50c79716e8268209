// The A2A tenant rule, written once for every binding (HTTP+JSON, JSON-RPC,
// gRPC): a request acts for one tenant, the effective one, which is the
// path's `{tenant}` when the route has one, else the request's own `tenant`
// field (HTTP+JSON query or body, JSON-RPC params, gRPC field); a request
// whose tenants disagree is refused. The context factory sees that tenant
// and the handler gets it, in its context and in its request.
//
// Also here: what a tenant, or an id that a route binds into its path, may
// be. Such values end up in store keys and file or URL paths, so NUL, control
// characters, `/` and the dot segments are refused in every binding alike.
import type { DescMessage } from "@bufbuild/protobuf";
import { A2A_TENANT, A2AErrors } from "./a2a.js";
import { badRequest, type RpcError } from "./errors.js";
import type { RouteBinding } from "./route-binding.js";

/** Where a tenant came from, for error messages. */
export type TenantSource = "path" | "query" | "body" | "params" | "field";

/**
 * Why `value` cannot be a tenant or a path-bound id, or undefined when it can:
 * a NUL or other control character (C0, DEL, C1), a `/`, or `.` / `..` as the
 * whole value.
 */
export function pathValueProblem(value: string): string | undefined {
  if (value === "." || value === "..") return `is "${value}", a dot segment`;
  for (let i = 0; i < value.length; i++) {
    const c = value.charCodeAt(i);
    if (c === 0) return "contains a NUL character";
    if (c < 0x20 || (c >= 0x7f && c <= 0x9f)) return `contains the control character U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
    if (c === 0x2f) return 'contains "/"';
  }
  return undefined;
}

/** Throws 400 INVALID_ARGUMENT when `value` cannot be the field `field` (see {@link pathValueProblem}). */
export function checkPathValue(field: string, value: string): void {
  const why = pathValueProblem(value);
  if (why === undefined) return;
  throw A2AErrors.invalidParams(`the ${field} ${JSON.stringify(value)} ${why}; it cannot name a tenant or a resource`, [
    badRequest([{ field, description: why }]),
  ]);
}

/** 400 INVALID_ARGUMENT: two places of one request name different tenants. */
export function tenantConflict(a: string, aFrom: TenantSource, b: string, bFrom: TenantSource): RpcError {
  return A2AErrors.invalidParams(
    `the request names two tenants: ${JSON.stringify(a)} (${aFrom}) and ${JSON.stringify(b)} (${bFrom}); send one, or the same in both`,
    [badRequest([{ field: A2A_TENANT, description: `${aFrom} and ${bFrom} disagree` }])],
  );
}

/**
 * The effective tenant of two sources, the first (the path) winning when the
 * second agrees or is absent; "" counts as absent (proto3's unset string).
 * Throws {@link tenantConflict} when both are set and differ.
 */
export function effectiveTenant(
  first: string | undefined,
  firstFrom: TenantSource,
  second: string | undefined,
  secondFrom: TenantSource,
): string | undefined {
  const a = first === "" ? undefined : first;
  const b = second === "" ? undefined : second;
  if (a !== undefined && b !== undefined && a !== b) throw tenantConflict(a, firstFrom, b, secondFrom);
  return a ?? b;
}

/**
 * HTTP+JSON: the tenant a request acts for as known before its body is read,
 * the path's `{tenant}`, else (on a route that reads the query and whose
 * request has a tenant field) the query's; checks the route's one-segment
 * path variables as ids (only `{tenant}` on a service whose requests have no
 * tenant field: those keep HttpRule's rule for their own ids).
 */
export function tenantBeforeBody(
  route: RouteBinding,
  variables: Readonly<Record<string, string>>,
  rawQuery: string,
  tenantField: string | undefined,
): string | undefined {
  for (const v of checkedVariables(route, tenantField !== undefined)) {
    const value = variables[v.name];
    if (value !== undefined && value !== "") checkPathValue(v.label, value);
  }
  const fromPath = route.path.variables.length > 0 ? variables[A2A_TENANT] : undefined;
  if (route.body === "*" || tenantField === undefined) return fromPath || undefined;
  const fromQuery = queryTenant(rawQuery);
  if (fromQuery) checkPathValue(A2A_TENANT, fromQuery);
  return effectiveTenant(fromPath, "path", fromQuery, "query");
}

/**
 * A request of a dialect without tenants (A2A v0.3's `/v1/...` routes): no
 * tenant, and each path value passes the rule of a resource id, as a v1.0
 * route's do ({@link checkPathValue}).
 */
export function checkDialectPath(variables: Readonly<Record<string, string>>): undefined {
  for (const [name, value] of Object.entries(variables)) if (value !== "") checkPathValue(`path variable ${name}`, value);
  return undefined;
}

/** Per route: the one-segment path variables {@link tenantBeforeBody} checks, with the name its errors give them. */
const checkedByRoute = new WeakMap<RouteBinding, readonly { name: string; label: string }[]>();

function checkedVariables(route: RouteBinding, tenantScoped: boolean): readonly { name: string; label: string }[] {
  let out = checkedByRoute.get(route);
  if (out === undefined) {
    const list: { name: string; label: string }[] = [];
    for (const v of route.path.variables) {
      if (v.multiSegment) continue;
      const name = v.fieldPath.join(".");
      if (name === A2A_TENANT) list.push({ name, label: A2A_TENANT });
      else if (tenantScoped) list.push({ name, label: `path variable ${name}` });
    }
    checkedByRoute.set(route, (out = list));
  }
  return out;
}

/**
 * The decoded request acts for `tenant`, the one the context factory saw
 * (learnt from `seenFrom`), or is refused: its `tenant` field (local name
 * `field`) must be that tenant, or unset when there is none.
 */
export function checkDecodedTenant(
  message: object,
  field: string | undefined,
  tenant: string | undefined,
  seenFrom: TenantSource,
  decodedFrom: TenantSource,
): void {
  if (field === undefined) return;
  const decoded = (message as Record<string, unknown>)[field];
  const t = typeof decoded === "string" && decoded !== "" ? decoded : undefined;
  if (t !== tenant) throw tenantConflict(tenant ?? "", seenFrom, t ?? "", decodedFrom);
}

/** The local name of a message's top-level string field `tenant` (A2A's requests all have one), or undefined. */
export function tenantFieldOf(desc: DescMessage): string | undefined {
  const f = desc.fields.find((x) => x.name === A2A_TENANT && x.fieldKind === "scalar");
  return f?.localName;
}

/**
 * The tenant a raw query string names (its `tenant` parameter, decoded as
 * the request decoder decodes it), or undefined. Two values, or a malformed
 * escape, are a 400, as they would be once the query is decoded.
 */
export function queryTenant(rawQuery: string): string | undefined {
  if (rawQuery === "" || !rawQuery.includes(A2A_TENANT)) return undefined;
  let found: string | undefined;
  for (const part of rawQuery.split("&")) {
    const eq = part.indexOf("=");
    const name = decode(eq < 0 ? part : part.slice(0, eq));
    if (name !== A2A_TENANT) continue;
    const value = decode(eq < 0 ? "" : part.slice(eq + 1));
    if (value === undefined) throw A2AErrors.invalidParams('malformed percent-escape in query parameter "tenant"');
    if (found !== undefined) throw A2AErrors.invalidParams('query parameter "tenant" is given more than once');
    found = value;
  }
  return found;
}

/** A string member `tenant` of a parsed JSON object (an HTTP+JSON body, JSON-RPC params), or undefined. */
export function jsonTenant(json: unknown): string | undefined {
  if (json === null || typeof json !== "object" || Array.isArray(json)) return undefined;
  const t = (json as Record<string, unknown>)[A2A_TENANT];
  return typeof t === "string" ? t : undefined;
}

/**
 * The top-level fields (local names) that some HTTP binding of an rpc puts
 * in one path segment: in JSON-RPC and gRPC the same fields are checked with
 * {@link checkPathValue}, so that every binding refuses what the path refuses.
 * Only for rpcs whose request has a `tenant` field (A2A's): their path values
 * name tenant-scoped resources; another service's keep HttpRule's rule (a
 * decoded `%2F` is a `/`).
 */
export function pathBoundFields(routes: readonly RouteBinding[], rpc: string): { name: string; localName: string }[] {
  const out: { name: string; localName: string }[] = [];
  for (const r of routes) {
    if (r.rpc !== rpc || tenantFieldOf(r.input) === undefined) continue;
    for (const v of r.path.variables) {
      if (v.multiSegment || v.fieldPath.length !== 1) continue;
      const f = r.input.fields.find((x) => x.name === v.fieldPath[0] && x.fieldKind === "scalar");
      if (f && !out.some((o) => o.localName === f.localName)) out.push({ name: f.jsonName, localName: f.localName });
    }
  }
  return out;
}

/** Checks the path-bound string fields of a decoded request (see {@link pathBoundFields}). */
export function checkPathBound(message: object, fields: readonly { name: string; localName: string }[]): void {
  for (const f of fields) {
    const v = (message as Record<string, unknown>)[f.localName];
    if (typeof v === "string" && v !== "") checkPathValue(f.name, v);
  }
}

function decode(raw: string): string | undefined {
  const s = raw.includes("+") ? raw.replace(/\+/g, " ") : raw;
  if (!s.includes("%")) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    return undefined;
  }
}
