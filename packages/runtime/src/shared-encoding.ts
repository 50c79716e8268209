// Messages that many streams answer alike (a task's event, handed to each of
// its subscribers): their wire text is made once per wire format, not once
// per stream. Only a value its maker declared shared (and so never changed
// afterwards) is cached: a handler may yield one object again with other
// contents, which must be encoded again. Weak: an entry lives as long as the
// message.

/**
 * Per shared message: its texts, as triples (binding, format, text) in a flat
 * array; a message is seldom written in more than one or two formats.
 */
const texts = new WeakMap<object, unknown[]>();

/** Declares that `value` is answered to several streams as it is and will not change again. */
export function shareEncoding(value: object): void {
  if (!texts.has(value)) texts.set(value, []);
}

/**
 * `encode(value)`, made once per `binding` and `format` for a shared
 * message: the two objects must stand for everything `encode` depends on
 * (a binding's options, a route's or method's output and shape).
 */
export function encodeOnce<T>(value: T, binding: object, format: object, encode: (value: T) => string): string {
  const made = typeof value === "object" && value !== null ? texts.get(value) : undefined;
  if (made === undefined) return encode(value);
  for (let i = 0; i < made.length; i += 3) if (made[i] === binding && made[i + 1] === format) return made[i + 2] as string;
  const text = encode(value);
  made.push(binding, format, text);
  return text;
}
