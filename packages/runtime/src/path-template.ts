/**
 * The HttpRule path template grammar, as google/api/http.proto defines it:
 *
 *     Template = "/" Segments [ Verb ] ;
 *     Segments = Segment { "/" Segment } ;
 *     Segment  = "*" | "**" | LITERAL | Variable ;
 *     Variable = "{" FieldPath [ "=" Segments ] "}" ;
 *     FieldPath = IDENT { "." IDENT } ;
 *     Verb     = ":" LITERAL ;
 *
 * We accept a template only where grpc-gateway and the Envoy transcoder both
 * accept it (see reference/httprule.md §1): literals are RFC 3986 pchars
 * without ":", identifiers are `[A-Za-z_][A-Za-z0-9_]*`, at most one `**`,
 * no nested variables and no empty segments. One exception, as in
 * grpc-gateway: any segments but a second `**` may follow the `**` (Envoy
 * takes only literals there; googleapis' Firestore needs more). The template
 * "/" alone is the root.
 */

/** One segment of a template: a literal, `*` (one segment) or `**` (zero or more). */
export type TemplateSegment = { readonly kind: "literal"; readonly value: string } | { readonly kind: "*" } | { readonly kind: "**" };

/** A `{field.path=...}` variable and the template segments it covers. */
export interface TemplateVariable {
  /** The field path, split on "." (`{book.name}` gives `["book", "name"]`). */
  readonly fieldPath: readonly string[];
  /** Index of the first segment the variable covers. */
  readonly start: number;
  /** Index one past the last segment the variable covers. */
  readonly end: number;
  /**
   * True when the variable can span more than one path segment (it covers
   * several segments, or a `**`). Such values keep their "/" and are decoded
   * except for `%2F`.
   */
  readonly multiSegment: boolean;
}

/** A parsed path template. */
export interface PathTemplate {
  /** The template as written in the proto. */
  readonly template: string;
  /** The segments, with variables flattened into the segments they cover. */
  readonly segments: readonly TemplateSegment[];
  /** The custom verb without its ":", or "" for none. */
  readonly verb: string;
  readonly variables: readonly TemplateVariable[];
}

/** Thrown by {@link parsePathTemplate} for a template outside the grammar. */
export class PathTemplateError extends Error {
  override name = "PathTemplateError";
  constructor(
    readonly template: string,
    readonly reason: string,
  ) {
    super(`invalid path template ${JSON.stringify(template)}: ${reason}`);
  }
}

const identifier = /^[A-Za-z_][A-Za-z0-9_]*$/;
// RFC 3986 pchar without ":" (the verb separator): unreserved, pct-encoded, sub-delims, "@".
const literal = /^(?:[A-Za-z0-9\-._~!$&'()*+,;=@]|%[0-9A-Fa-f]{2})+$/;

/** Parses an HttpRule path template; throws {@link PathTemplateError} if it is invalid. */
export function parsePathTemplate(template: string): PathTemplate {
  const fail = (reason: string): never => {
    throw new PathTemplateError(template, reason);
  };
  if (typeof template !== "string" || !template.startsWith("/")) {
    fail('a template must start with "/"');
  }
  if (template === "/") {
    return { template, segments: [], verb: "", variables: [] };
  }

  // Split off the verb: a ":" outside braces, after the last segment.
  let depth = 0;
  let verbAt = -1;
  for (let i = 0; i < template.length; i++) {
    const c = template[i];
    if (c === "{") {
      if (depth > 0) fail("variables must not be nested");
      depth++;
    } else if (c === "}") {
      if (depth === 0) fail('unbalanced "}"');
      depth--;
    } else if (c === ":" && depth === 0) {
      if (verbAt >= 0) fail('a template has at most one ":" verb');
      verbAt = i;
    } else if (c === "/" && depth === 0 && verbAt >= 0) {
      fail("the verb must come after the last segment");
    }
  }
  if (depth !== 0) fail('unterminated "{"');
  let verb = "";
  let body = template.slice(1);
  if (verbAt >= 0) {
    verb = template.slice(verbAt + 1);
    body = template.slice(1, verbAt);
    if (verb === "") fail('the verb after ":" is empty');
    if (!literal.test(verb)) fail(`the verb ${JSON.stringify(verb)} is not a valid literal`);
    if (body === "") fail('a verb needs a segment before it ("/:verb" is not allowed)');
  }

  const segments: TemplateSegment[] = [];
  const variables: TemplateVariable[] = [];
  const bound = new Set<string>();
  let deepSeen = false;

  const pushSegment = (text: string, where: string) => {
    if (text === "") fail(`empty segment ${where}`);
    let seg: TemplateSegment;
    if (text === "*") seg = { kind: "*" };
    else if (text === "**") seg = { kind: "**" };
    else if (literal.test(text)) seg = { kind: "literal", value: text };
    else if (text.includes("{") || text.includes("}")) {
      fail(`${JSON.stringify(text)} mixes a variable with other text in one segment`);
    } else fail(`${JSON.stringify(text)} is not a valid literal (RFC 3986 pchar, no ":")`);
    if (seg!.kind === "**") {
      if (deepSeen) fail('a template has at most one "**"');
      deepSeen = true;
    }
    segments.push(seg!);
  };

  for (const part of splitTopLevel(body)) {
    if (part.startsWith("{")) {
      if (!part.endsWith("}")) fail(`${JSON.stringify(part)} mixes a variable with other text in one segment`);
      const inner = part.slice(1, -1);
      const eq = inner.indexOf("=");
      const path = eq < 0 ? inner : inner.slice(0, eq);
      const pattern = eq < 0 ? "*" : inner.slice(eq + 1);
      const fieldPath = path.split(".");
      if (path === "" || !fieldPath.every((p) => identifier.test(p))) {
        fail(`${JSON.stringify(path)} is not a field path (identifiers joined by ".")`);
      }
      if (bound.has(path)) fail(`field path "${path}" is bound twice`);
      bound.add(path);
      if (pattern === "") fail(`variable "${path}" has an empty pattern`);
      if (pattern.startsWith("/")) fail(`variable "${path}" must not capture the leading "/"`);
      const start = segments.length;
      for (const s of pattern.split("/")) pushSegment(s, `in variable "${path}"`);
      const end = segments.length;
      const multiSegment = end - start > 1 || segments.slice(start, end).some((s) => s.kind === "**");
      variables.push({ fieldPath, start, end, multiSegment });
    } else {
      pushSegment(part, '("//" or a trailing "/")');
    }
  }
  return { template, segments, verb, variables };
}

/** Splits on "/" outside braces. */
function splitTopLevel(s: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let from = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (c === "{") depth++;
    else if (c === "}") depth--;
    else if (c === "/" && depth === 0) {
      parts.push(s.slice(from, i));
      from = i + 1;
    }
  }
  parts.push(s.slice(from));
  return parts;
}

/**
 * The template with variable names dropped: two templates with the same shape
 * match exactly the same paths.
 */
export function templateShape(t: PathTemplate): string {
  const segs = t.segments.map((s) => (s.kind === "literal" ? s.value : s.kind));
  return "/" + segs.join("/") + (t.verb ? ":" + t.verb : "");
}
