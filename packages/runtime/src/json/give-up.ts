/** A message or JSON object as the codecs see it: properties by name. */
export type Obj = Record<string, unknown>;

/** Thrown inside a codec to leave the whole value to protobuf-es. */
export const GIVE_UP: unique symbol = Symbol("give up");

/** Leaves the whole value to protobuf-es. */
export function giveUp(): never {
  throw GIVE_UP;
}
