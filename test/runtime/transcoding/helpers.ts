import { expect } from "vitest";
import { toJson, type DescMessage, type Message } from "@bufbuild/protobuf";
import type { RouteBinding } from "../../../packages/runtime/src/route-binding.js";
import { LibraryServiceRoutes } from "../../../gen/acme/library/v1/library_http.js";
import { A2AServiceRoutes } from "../../../gen/a2a_http.js";
import { isRpcError, Code, type RpcError } from "../../../packages/runtime/src/errors.js";

export function lib(rpc: string, binding: "primary" | "additional" = "primary"): RouteBinding {
  const r = LibraryServiceRoutes.find((x) => x.rpc === rpc && x.binding === binding);
  if (!r) throw new Error(`no route ${rpc}`);
  return r;
}

export function a2a(rpc: string, binding: "primary" | "additional" = "primary"): RouteBinding {
  const r = A2AServiceRoutes.find((x) => x.rpc === rpc && x.binding === binding);
  if (!r) throw new Error(`no route ${rpc}`);
  return r;
}

export function json(schema: DescMessage, m: Message): unknown {
  return toJson(schema, m);
}

/** Runs `fn`, expects an RpcError with INVALID_ARGUMENT, and returns it. */
export function invalid(fn: () => unknown): RpcError {
  let err: unknown;
  try {
    fn();
  } catch (e) {
    err = e;
  }
  expect(err, "expected an RpcError").toBeDefined();
  expect(isRpcError(err), String(err)).toBe(true);
  const e = err as RpcError;
  expect(e.code).toBe(Code.INVALID_ARGUMENT);
  expect(e.httpStatus).toBe(400);
  return e;
}

/** The field names of the google.rpc.BadRequest detail. */
export function violations(e: RpcError): string[] {
  const d = e.details.find((x) => x["@type"] === "type.googleapis.com/google.rpc.BadRequest");
  return ((d?.["fieldViolations"] as { field: string }[] | undefined) ?? []).map((v) => v.field);
}
