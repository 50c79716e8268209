/**
 * How the task engine decides, once per engine, that the object literals it
 * makes messages with (engine.ts: eventMakers, shapeMakers) may stand for
 * create(): they give what create() (or a copy) gives on samples, compared
 * deeply, field for field. The schemas themselves are the reference, so no
 * list of a2a.proto's fields is kept here to go stale.
 *
 * The order of a message's own properties is not compared: nothing reads a
 * message by it (protobuf-es's toBinary, toJson, equals and clone, and the
 * stores, go by the schema's fields), and protobuf-es does not keep one
 * order itself. create() of 2.13 put message fields after the others, that
 * of 2.17 keeps the schema's order, and fromBinary and fromJson still add a
 * message field when they read it. Compared in order, the literals would
 * stand only for the protobuf-es they were written against, and the engine
 * would fall back to create() with the next release that moves a field.
 */
import type { DescField, DescMessage } from "@bufbuild/protobuf";
import { reflect } from "@bufbuild/protobuf/reflect";

const isOwnField = Object.prototype.propertyIsEnumerable;

/**
 * Whether two values are the same: equal primitives, or objects (messages,
 * oneof ADTs, lists, bytes) of the same prototype with the same own
 * enumerable fields, in any order, each the same (a list's indexes are its
 * fields, so a list's order counts). A message with defaults on its
 * prototype (proto2, editions) is not the same as an object literal.
 */
export function sameValue(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Object.getPrototypeOf(a) !== Object.getPrototypeOf(b)) return false;
  const ka = Object.keys(a);
  return (
    ka.length === Object.keys(b).length &&
    ka.every((k) => isOwnField.call(b, k) && sameValue((a as Record<string, unknown>)[k], (b as Record<string, unknown>)[k]))
  );
}

/**
 * Whether `literal` gives the same as `reference` for each sample's
 * arguments. A maker that throws on a sample (a schema the samples do not
 * fit) counts as different, so the engine keeps the reference.
 */
export function makesSame<A extends unknown[]>(
  literal: (...args: A) => unknown,
  reference: (...args: A) => unknown,
  samples: readonly A[],
): boolean {
  try {
    return samples.every((args) => sameValue(literal(...args), reference(...args)));
  } catch {
    return false;
  }
}

/**
 * An init that sets every field of a message: a scalar or enum to its zero
 * (or default) value, a message to an empty one, a oneof to its first case,
 * a list or map to an empty one. create() of it has a property for each
 * field the schema has, those a copy by object literal must not drop (a
 * message field or an optional scalar is absent from create()'s zero
 * message, so a sample without it would not show a literal that drops it).
 */
export function everyField(desc: DescMessage): Record<string, unknown> {
  const zero = reflect(desc);
  const value = (f: DescField): unknown =>
    f.fieldKind === "scalar" || f.fieldKind === "enum" ? zero.get(f) : f.fieldKind === "message" ? {} : f.fieldKind === "list" ? [] : {};
  const init: Record<string, unknown> = {};
  for (const m of desc.members) {
    if (m.kind === "field") init[m.localName] = value(m);
    else if (m.fields[0] !== undefined) init[m.localName] = { case: m.fields[0].localName, value: value(m.fields[0]) };
  }
  return init;
}
