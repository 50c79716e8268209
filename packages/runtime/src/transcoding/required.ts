// google.api.field_behavior = REQUIRED, checked on a decoded request.
import { getOption, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence } from "@bufbuild/protobuf/wkt";
import { reflect, type ReflectMessage } from "@bufbuild/protobuf/reflect";
import { badRequest, Code, RpcError } from "../errors.js";
import { field_behavior, FieldBehavior } from "../gen/google/api/field_behavior_pb.js";

interface RequiredPlan {
  /** Fields marked REQUIRED. */
  readonly required: readonly DescField[];
  /** Message-typed fields (singular, list or map) whose type has REQUIRED fields somewhere below. */
  readonly descend: readonly DescField[];
}

const plans = new WeakMap<DescMessage, RequiredPlan | null>();

function isRequired(field: DescField): boolean {
  const behaviors = getOption(field, field_behavior);
  return behaviors.includes(FieldBehavior.REQUIRED);
}

function messageType(field: DescField): DescMessage | undefined {
  switch (field.fieldKind) {
    case "message":
      return field.message;
    case "list":
      return field.listKind === "message" ? field.message : undefined;
    case "map":
      return field.mapKind === "message" ? field.message : undefined;
    default:
      return undefined;
  }
}

/**
 * Builds the plans of every message reachable from `root` at once: which
 * messages need a visit is a fixed point over the (possibly cyclic) graph of
 * message types. A message without REQUIRED fields anywhere below gets null,
 * so checking it costs one WeakMap lookup.
 */
function buildPlans(root: DescMessage): void {
  const all: DescMessage[] = [];
  const seen = new Set<DescMessage>();
  const todo = [root];
  while (todo.length > 0) {
    const d = todo.pop()!;
    if (seen.has(d) || plans.has(d)) continue;
    seen.add(d);
    all.push(d);
    for (const f of d.fields) {
      const m = messageType(f);
      if (m) todo.push(m);
    }
  }
  const direct = new Map<DescMessage, DescField[]>();
  const needs = new Set<DescMessage>();
  for (const d of all) {
    const req = d.fields.filter(isRequired);
    direct.set(d, req);
    if (req.length > 0) needs.add(d);
  }
  const needsVisit = (m: DescMessage): boolean => (seen.has(m) ? needs.has(m) : plans.get(m) != null);
  for (let changed = true; changed; ) {
    changed = false;
    for (const d of all) {
      if (needs.has(d)) continue;
      if (
        d.fields.some((f) => {
          const m = messageType(f);
          return m !== undefined && needsVisit(m);
        })
      ) {
        needs.add(d);
        changed = true;
      }
    }
  }
  for (const d of all) {
    if (!needs.has(d)) {
      plans.set(d, null);
      continue;
    }
    const descend = d.fields.filter((f) => {
      const m = messageType(f);
      return m !== undefined && needsVisit(m);
    });
    plans.set(d, { required: direct.get(d)!, descend });
  }
}

function plan(desc: DescMessage): RequiredPlan | null {
  let p = plans.get(desc);
  if (p === undefined) {
    buildPlans(desc);
    p = plans.get(desc) ?? null;
  }
  return p;
}

const MAX_VIOLATIONS = 50;
const IMPLICIT = FeatureSet_FieldPresence.IMPLICIT;

/**
 * The part of an update mask below one message: field name -> the mask
 * below that field, or `null` when the whole field is in the mask.
 */
type MaskNode = Map<string, MaskNode | null>;

function maskTree(paths: readonly string[]): MaskNode | undefined {
  const root: MaskNode = new Map();
  for (const path of paths) {
    if (path === "*") return undefined;
    let node = root;
    const parts = path.split(".");
    for (let i = 0; i < parts.length; i++) {
      const name = parts[i]!;
      if (i === parts.length - 1) {
        node.set(name, null);
        break;
      }
      let next = node.get(name);
      if (next === null) break; // a parent is in the mask whole
      if (next === undefined) node.set(name, (next = new Map()));
      node = next;
    }
  }
  return root;
}

/**
 * Walks `msg` for missing REQUIRED fields. With `mask`, only the fields in
 * it are checked (and below a field in it whole, everything).
 */
function walk(msg: ReflectMessage, prefix: string, out: { field: string; description: string }[], mask?: MaskNode): void {
  const p = plan(msg.desc);
  if (p === null) return;
  for (const f of p.required) {
    if (mask && !mask.has(f.name)) continue;
    if (f.oneof) {
      // A REQUIRED member of a oneof only counts when no other member is set.
      const c = msg.oneofCase(f.oneof);
      if (c !== undefined && c !== f) continue;
    }
    if (!msg.isSet(f)) {
      const path = prefix === "" ? f.jsonName : `${prefix}.${f.jsonName}`;
      const what = f.fieldKind === "list" || f.fieldKind === "map" ? "must not be empty" : "is required";
      out.push({ field: path, description: `${path} ${what}` });
      if (out.length >= MAX_VIOLATIONS) return;
    }
  }
  for (const f of p.descend) {
    if (!msg.isSet(f)) continue;
    const below = mask?.get(f.name);
    if (mask && below === undefined) continue;
    const sub = below ?? undefined;
    const path = prefix === "" ? f.jsonName : `${prefix}.${f.jsonName}`;
    if (f.fieldKind === "message") {
      walk(msg.get(f), path, out, sub);
    } else if (f.fieldKind === "list") {
      let i = 0;
      for (const e of msg.get(f).values()) {
        walk(e as ReflectMessage, `${path}[${i++}]`, out, sub);
        if (out.length >= MAX_VIOLATIONS) return;
      }
    } else if (f.fieldKind === "map") {
      for (const [k, v] of msg.get(f).entries()) {
        walk(v as ReflectMessage, `${path}[${JSON.stringify(String(k))}]`, out, sub);
        if (out.length >= MAX_VIOLATIONS) return;
      }
    }
    if (out.length >= MAX_VIOLATIONS) return;
  }
}

/** The top-level `update_mask` (google.protobuf.FieldMask) field of an AIP-134 update request. */
function updateMaskField(desc: DescMessage): DescField | undefined {
  const f = desc.fields.find((x) => x.name === "update_mask");
  return f?.fieldKind === "message" && f.message.typeName === "google.protobuf.FieldMask" ? f : undefined;
}

/**
 * An AIP-134 update (a request with a top-level `update_mask`): the
 * request's own REQUIRED fields are checked, but in the resource (its other
 * message fields) only the fields the mask names; without a mask, the
 * implied mask is the populated fields, so only the messages the request
 * sets are checked, whole.
 */
function walkUpdate(msg: ReflectMessage, maskField: DescField, out: { field: string; description: string }[]): void {
  const p = plan(msg.desc)!;
  const paths = msg.isSet(maskField) ? ((msg.get(maskField) as ReflectMessage).message as unknown as { paths: string[] }).paths : [];
  const top: MaskNode = new Map();
  for (const f of p.required) top.set(f.name, null);
  for (const f of p.descend) {
    if (f === maskField) continue;
    // a REQUIRED resource field stays checked itself (it is in `top`); below it, the mask decides
    top.set(f.name, paths.length > 0 ? (maskTree(paths) ?? null) : impliedMask(msg, f));
  }
  walk(msg, "", out, top);
}

/** The implied mask of a resource field: its populated fields, each whole. */
function impliedMask(msg: ReflectMessage, f: DescField): MaskNode | null {
  if (f.fieldKind !== "message" || !msg.isSet(f)) return null;
  const resource = msg.get(f) as ReflectMessage;
  return new Map(resource.desc.fields.filter((g) => resource.isSet(g)).map((g) => [g.name, null]));
}

/**
 * Checks the fields marked `(google.api.field_behavior) = REQUIRED`, in
 * `message` and in every message set below it (list elements and map values
 * too). A field is missing when it is not set: an unset message, an empty
 * list or map, or a scalar at its default value unless it has explicit
 * presence. Throws INVALID_ARGUMENT with a google.rpc.BadRequest detail that
 * names each missing field by its JSON path ("message.parts",
 * "message.parts[0].text"). In an AIP-134 update, the resource's fields are
 * checked only where the `update_mask` names them (see walkUpdate).
 * `complete`, a generated check of the message type, answers first when it
 * can.
 */
export function checkRequired(schema: DescMessage, message: Message, complete?: (message: Message) => boolean): void {
  // The generated check (see MessageJsonCodec.complete) reads the same fields by name.
  if (complete?.(message)) return;
  if (plan(schema) === null) return;
  // Almost every request is complete: find that out by plain property access,
  // and walk again with reflect() and field paths only when something may be missing.
  if (!mayMiss(schema, message as unknown as Fields)) return;
  const out = requiredViolations(schema, message);
  if (out.length === 0) return;
  const names = out.map((v) => v.field);
  throw new RpcError(Code.INVALID_ARGUMENT, `missing required field${names.length > 1 ? "s" : ""}: ${names.join(", ")}`, [badRequest(out)]);
}

/** The missing REQUIRED fields, found through reflect() (the reference for the fast check). */
export function requiredViolations(schema: DescMessage, message: Message): { field: string; description: string }[] {
  const out: { field: string; description: string }[] = [];
  if (plan(schema) === null) return out;
  const maskField = updateMaskField(schema);
  if (maskField) walkUpdate(reflect(schema, message, false), maskField, out);
  else walk(reflect(schema, message, false), "", out);
  return out;
}

/**
 * False when every REQUIRED field below `msg` is certainly set; true when
 * one may not be (reflect() decides). Unsure cases (explicit presence,
 * int64 held as a string, odd values) answer true. An update_mask only ever
 * narrows what is checked, so "all set" holds for updates too.
 */
function mayMiss(desc: DescMessage, msg: Fields): boolean {
  const p = plan(desc);
  if (p === null) return false;
  if (msg === null || typeof msg !== "object") return true;
  for (const f of p.required) {
    if (f.oneof) {
      // Set, or another member is (then this one does not count): either way, fine.
      const c = (msg[f.oneof.localName] as { case?: unknown } | undefined)?.case;
      if (c === undefined) return true;
      continue;
    }
    const v = msg[f.localName];
    switch (f.fieldKind) {
      case "list":
        if (!Array.isArray(v) || v.length === 0) return true;
        break;
      case "map":
        if (v === null || typeof v !== "object" || Object.keys(v).length === 0) return true;
        break;
      case "message":
        if (v === undefined || v === null) return true;
        break;
      default:
        if (f.presence !== IMPLICIT) return true;
        if (v === "" || v === 0 || v === false || v === 0n || typeof v === "object" || v === undefined) return true;
    }
  }
  for (const f of p.descend) {
    const value = fieldValue(msg, f);
    if (value === undefined) continue;
    const type = messageType(f)!;
    if (f.fieldKind === "message") {
      if (mayMiss(type, value as Fields)) return true;
    } else if (f.fieldKind === "list") {
      if (!Array.isArray(value)) return true;
      for (const e of value) if (mayMiss(type, e as Fields)) return true;
    } else {
      if (value === null || typeof value !== "object") return true;
      for (const k of Object.keys(value)) if (mayMiss(type, (value as Fields)[k] as Fields)) return true;
    }
  }
  return false;
}

/**
 * Writes REQUIRED fields that ProtoJSON left out because they hold their
 * default value (`""`, `0`, `false`, `[]`, the enum's zero name) into `json`,
 * the `toJson` output of `message`, and likewise in every message below.
 * A REQUIRED field must be present on the wire (A2A's ListTasksResponse
 * `nextPageToken: ""` on the last page, say), whatever ProtoJSON omits.
 */
export function fillRequiredDefaults(schema: DescMessage, message: Message, json: unknown): void {
  fill(schema, message as unknown as Fields, json);
}

type Fields = Record<string, unknown>;

/** A field's value read off the message object (a oneof member's only when it is the case). */
function fieldValue(msg: Fields, f: DescField): unknown {
  if (!f.oneof) return msg[f.localName];
  const o = msg[f.oneof.localName] as { case?: string; value?: unknown } | undefined;
  return o?.case === f.localName ? o.value : undefined;
}

// Reads fields by their property names rather than through reflect(): this
// runs on every response, and a reflect wrapper per nested message costs more
// than the rest of the walk.
function fill(desc: DescMessage, msg: Fields, json: unknown): void {
  const p = plan(desc);
  if (p === null || json === null || typeof json !== "object" || Array.isArray(json)) return;
  const obj = json as Fields;
  for (const f of p.required) {
    if (f.oneof || f.jsonName in obj) continue;
    const empty = emptyJson(f);
    if (empty !== undefined) obj[f.jsonName] = empty;
  }
  for (const f of p.descend) {
    const sub = obj[f.jsonName];
    if (sub === undefined) continue;
    const value = fieldValue(msg, f);
    if (value === undefined || value === null) continue;
    const type = messageType(f)!;
    if (f.fieldKind === "message") fill(type, value as Fields, sub);
    else if (f.fieldKind === "list" && Array.isArray(sub) && Array.isArray(value)) {
      for (let i = 0; i < value.length; i++) fill(type, value[i] as Fields, sub[i]);
    } else if (f.fieldKind === "map" && sub !== null && typeof sub === "object") {
      const entries = value as Fields;
      for (const k of Object.keys(entries)) fill(type, entries[k] as Fields, (sub as Fields)[k]);
    }
  }
}

/** The JSON of a field at its default, or undefined where there is none (an unset message). */
function emptyJson(f: DescField): unknown {
  switch (f.fieldKind) {
    case "list":
      return [];
    case "map":
      return {};
    case "enum":
      return f.presence === IMPLICIT ? (f.enum.values.find((v) => v.number === 0)?.name ?? 0) : undefined;
    case "scalar":
      if (f.presence !== IMPLICIT) return undefined;
      switch (f.scalar) {
        case ScalarType.STRING:
        case ScalarType.BYTES:
          return "";
        case ScalarType.BOOL:
          return false;
        case ScalarType.INT64:
        case ScalarType.UINT64:
        case ScalarType.SINT64:
        case ScalarType.FIXED64:
        case ScalarType.SFIXED64:
          return "0";
        default:
          return 0;
      }
    default:
      return undefined;
  }
}
