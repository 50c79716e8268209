/** A message or JSON object as the codecs see it: properties by name. */
export type Obj = Record<string, unknown>;

/** Thrown inside a codec to leave the whole value to protobuf-es. */
export const GIVE_UP: unique symbol = Symbol("give up");

/** Leaves the whole value to protobuf-es. */
export function giveUp(): never {
  throw GIVE_UP;
}

/**
 * The message in a field, checked to be of the type the writer is for; or an
 * init shape (an object without `$typeName`), which is written as create()
 * would make it. Read field by field as a message, an init shape gets
 * through only where it holds every field as create() would leave it (a
 * missing or null field is not a field's value, so it gives up): a
 * handler's `{ payload: { case: "task", value: task } }` is written without
 * create(), and any other init shape goes through create() first.
 */
export function messageOf<T extends { readonly $typeName: string }>(value: unknown, typeName: T["$typeName"]): T {
  const t = (value as { $typeName?: unknown } | null)?.$typeName;
  if (t !== typeName && (t !== undefined || typeof value !== "object" || value === null || Array.isArray(value))) giveUp();
  return value as T;
}
