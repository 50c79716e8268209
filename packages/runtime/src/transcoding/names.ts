import type { DescField, DescMessage } from "@bufbuild/protobuf";

const byName = new WeakMap<DescMessage, Map<string, DescField>>();

/**
 * The field of `desc` called `name`, by its proto name or its JSON name
 * (lowerCamel, or the `json_name` option). A Map, so keys such as
 * "__proto__" or "constructor" never reach an object's prototype.
 */
export function fieldByName(desc: DescMessage, name: string): DescField | undefined {
  let m = byName.get(desc);
  if (m === undefined) {
    m = new Map();
    for (const f of desc.fields) m.set(f.name, f);
    // JSON names second: a proto name wins over another field's JSON name.
    for (const f of desc.fields) if (!m.has(f.jsonName)) m.set(f.jsonName, f);
    byName.set(desc, m);
  }
  return m.get(name);
}

/** Shortens a value for an error message. */
export function quote(value: string): string {
  return JSON.stringify(value.length > 64 ? value.slice(0, 61) + "..." : value);
}
