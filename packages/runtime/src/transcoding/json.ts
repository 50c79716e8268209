// JSON bodies: parsing, forbidden keys, and pointing at the field a ProtoJSON error is about.
import { fromJson, type DescEnum, type DescField, type DescMessage, type JsonValue, type Message, type Registry } from "@bufbuild/protobuf";
import { isFieldError } from "@bufbuild/protobuf/reflect";
import { badRequest, Code, RpcError } from "../errors.js";
import type { MessageJsonCodec } from "../codegen/index.js";
import { checkJson, DEFAULT_MAX_ELEMENTS, findForbiddenKey } from "./bounds.js";
import { fieldByName } from "./names.js";
import { enumValueList } from "./values.js";

/**
 * Parses a request body. An empty (or all-whitespace) text is `undefined`;
 * a leading byte order mark is dropped;
 * invalid JSON is INVALID_ARGUMENT. Then {@link checkJson} (bounds.ts): an
 * object key `__proto__` or `constructor` at any depth and a number that is
 * not finite (`1e400`) are INVALID_ARGUMENT, more than `maxElements` values
 * RESOURCE_EXHAUSTED (413).
 */
export function parseJsonBody(text: string, maxElements = DEFAULT_MAX_ELEMENTS): unknown {
  if (text === "") return undefined;
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // a UTF-8 byte order mark
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (text.trim() === "") return undefined;
    const why = e instanceof Error ? e.message : String(e);
    throw new RpcError(Code.INVALID_ARGUMENT, `the request body is not valid JSON: ${why}`);
  }
  checkJson(value, maxElements);
  return value;
}

export { findForbiddenKey };

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === "object" && v !== null && !Array.isArray(v);
}

function reason(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    if (isFieldError(cause)) return cause.message;
    // "cannot decode message x.Y from JSON: ..." -> "..."
    const m = /^cannot decode [^:]* from JSON:? ?(.*)$/s.exec(e.message);
    return m?.[1] || e.message;
  }
  return String(e);
}

const MAX_LOCATE_DEPTH = 32;

/**
 * After fromJson failed on `json`, finds the deepest field whose value is
 * at fault, as a JSON path ("message.parts[0].text"). Costly, so it only runs
 * on the error path.
 */
function locate(
  desc: DescMessage,
  json: unknown,
  prefix: string,
  opts: { ignoreUnknownFields: true; registry?: Registry },
  depth: number,
): { path: string; description: string } | undefined {
  if (!isPlainObject(json) || depth > MAX_LOCATE_DEPTH || desc.typeName.startsWith("google.protobuf.")) return undefined;
  for (const key of Object.keys(json)) {
    const f = fieldByName(desc, key);
    if (f === undefined) continue;
    const value = json[key];
    try {
      fromJson(desc, { [key]: value } as JsonValue, opts);
    } catch (e) {
      const path = prefix === "" ? f.jsonName : `${prefix}.${f.jsonName}`;
      if (f.fieldKind === "message") {
        return locate(f.message, value, path, opts, depth + 1) ?? { path, description: reason(e) };
      }
      if (f.fieldKind === "list" && f.listKind === "message" && Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          try {
            fromJson(f.message, value[i] as JsonValue, opts);
          } catch (e2) {
            const p = `${path}[${i}]`;
            return locate(f.message, value[i], p, opts, depth + 1) ?? { path: p, description: reason(e2) };
          }
        }
      }
      if (f.fieldKind === "map" && f.mapKind === "message" && isPlainObject(value)) {
        for (const k of Object.keys(value)) {
          try {
            fromJson(f.message, value[k] as JsonValue, opts);
          } catch (e2) {
            const p = `${path}[${JSON.stringify(k)}]`;
            return locate(f.message, value[k], p, opts, depth + 1) ?? { path: p, description: reason(e2) };
          }
        }
      }
      return { path, description: reason(e) };
    }
  }
  return undefined;
}

/**
 * Turns a fromJson failure on `json` (for `desc`) into INVALID_ARGUMENT
 * naming the field at fault by its JSON path.
 */
export function jsonError(desc: DescMessage, json: unknown, e: unknown, registry: Registry | undefined): RpcError {
  const opts = registry ? { ignoreUnknownFields: true as const, registry } : { ignoreUnknownFields: true as const };
  let where: { path: string; description: string } | undefined;
  try {
    where = locate(desc, json, "", opts, 0);
  } catch {
    where = undefined;
  }
  if (where === undefined) {
    // Errors that involve several keys (a oneof set twice, a field by both of
    // its names), or the recursion limit: name what protobuf-es names.
    let path = "";
    const cause = e instanceof Error ? (e as { cause?: unknown }).cause : undefined;
    if (isFieldError(cause)) {
      const f = cause.field();
      path = f.kind === "field" ? f.jsonName : f.name;
    }
    where = { path, description: reason(e) };
  }
  const subject = where.path === "" ? "the request body" : `field "${where.path}"`;
  return new RpcError(Code.INVALID_ARGUMENT, `invalid value for ${subject}: ${where.description}`, [
    badRequest([{ field: where.path, description: where.description }]),
  ]);
}

/**
 * Reads a message from its ProtoJSON, ignoring unknown fields but not
 * unknown enum names. With `ignoreUnknownFields`, protobuf-es (like
 * protobuf's own JSON parsers) reads an enum name it does not know as
 * unset, so `"role": "ROLE_BOGUS"` would be lost silently, or reported as a
 * missing REQUIRED field. The strict parse runs first, so a request without
 * unknown keys is parsed once; only when it fails is the lenient one run and
 * the JSON searched for an enum name that it dropped.
 */
export function messageFromJson(desc: DescMessage, json: JsonValue, registry: Registry | undefined, codec?: MessageJsonCodec): Message {
  // The generated reader succeeds only where protobuf-es's lenient parse
  // gives the same message and no enum name was dropped (it gives up on an
  // unknown one), so its answer is the answer; otherwise on as before.
  const fast = codec?.read(json);
  if (fast !== undefined) return fast;
  try {
    return fromJson(desc, json, registry ? { registry } : undefined);
  } catch {
    // an unknown key, an unknown enum name, or a real error: see below
  }
  let message: Message;
  try {
    message = fromJson(desc, json, registry ? { ignoreUnknownFields: true, registry } : { ignoreUnknownFields: true });
  } catch (e) {
    throw jsonError(desc, json, e, registry);
  }
  const bad = findUnknownEnumName(desc, json, "", 0);
  if (bad) {
    const description = enumValueList(bad.enum);
    throw new RpcError(Code.INVALID_ARGUMENT, `invalid enum value ${JSON.stringify(bad.value)} for field "${bad.path}": ${description}`, [
      badRequest([{ field: bad.path, description }]),
    ]);
  }
  return message;
}

const enumNames = new WeakMap<DescEnum, Set<string>>();

function isEnumName(e: DescEnum, value: string): boolean {
  let names = enumNames.get(e);
  if (!names) enumNames.set(e, (names = new Set(e.values.map((v) => v.name))));
  return names.has(value);
}

interface UnknownEnumName {
  readonly path: string;
  readonly value: string;
  readonly enum: DescEnum;
}

/** The first enum name in `json` (for `desc`) that the enum does not define, by JSON path. */
function findUnknownEnumName(desc: DescMessage, json: unknown, prefix: string, depth: number): UnknownEnumName | undefined {
  // fromJson has parsed this JSON already, so its nesting is within protobuf-es's limits.
  if (!isPlainObject(json) || depth > MAX_LOCATE_DEPTH * 4 || desc.typeName.startsWith("google.protobuf.")) return undefined;
  for (const key of Object.keys(json)) {
    const f = fieldByName(desc, key);
    const value = json[key];
    if (f === undefined || value === null) continue;
    const path = prefix === "" ? f.jsonName : `${prefix}.${f.jsonName}`;
    const found = unknownIn(f, value, path, depth);
    if (found) return found;
  }
  return undefined;
}

function unknownIn(f: DescField, value: unknown, path: string, depth: number): UnknownEnumName | undefined {
  const check = (e: DescEnum, v: unknown, p: string) =>
    typeof v === "string" && !isEnumName(e, v) ? { path: p, value: v, enum: e } : undefined;
  switch (f.fieldKind) {
    case "enum":
      return check(f.enum, value, path);
    case "message":
      return findUnknownEnumName(f.message, value, path, depth + 1);
    case "list":
      if (!Array.isArray(value)) return undefined;
      for (let i = 0; i < value.length; i++) {
        const found =
          f.listKind === "enum"
            ? check(f.enum, value[i], `${path}[${i}]`)
            : f.listKind === "message"
              ? findUnknownEnumName(f.message, value[i], `${path}[${i}]`, depth + 1)
              : undefined;
        if (found) return found;
      }
      return undefined;
    case "map":
      if (!isPlainObject(value) || f.mapKind === "scalar") return undefined;
      for (const k of Object.keys(value)) {
        const p = `${path}[${JSON.stringify(k)}]`;
        const found = f.mapKind === "enum" ? check(f.enum, value[k], p) : findUnknownEnumName(f.message, value[k], p, depth + 1);
        if (found) return found;
      }
      return undefined;
    default:
      return undefined;
  }
}
