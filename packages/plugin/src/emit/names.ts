/**
 * lowerCamel for a service name, lowering a leading acronym whole:
 * `FooService` gives `fooService`, `A2AService` gives `a2aService`,
 * `HTTPServer` gives `httpServer`.
 */
export function lowerFirstWord(name: string): string {
  const lead = /^[A-Z0-9]+/.exec(name)?.[0] ?? "";
  if (lead === "") return name;
  if (lead.length === name.length) return name.toLowerCase();
  // The last capital of a run starts the next word ("HTTPServer": "S").
  const head = lead.length > 1 && /[a-z]/.test(name[lead.length]!) ? lead.slice(0, -1) : lead;
  return head.toLowerCase() + name.slice(head.length);
}

/** A TypeScript object or array literal for plain data, with unquoted identifier keys. */
export function literal(value: unknown): string {
  if (Array.isArray(value)) return "[" + value.map(literal).join(", ") + "]";
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value).map(([k, v]) => `${/^[A-Za-z_$][\w$]*$/.test(k) ? k : JSON.stringify(k)}: ${literal(v)}`);
    return entries.length === 0 ? "{}" : "{ " + entries.join(", ") + " }";
  }
  return JSON.stringify(value);
}
