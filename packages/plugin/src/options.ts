/** The plugin's own options; protoplugin handles its standard ones. */
export interface PluginOptions {
  /** `profile=a2a` adds A2A's HTTP+JSON rules to the servers and the client. Default `none`. */
  readonly profile: "none" | "a2a";
  /** `server=express|fastify|hono|none`, repeatable: which adapters to emit. Default: all three. */
  readonly servers: readonly ServerFramework[];
  /** `client=true|false|lean`: emit the fetch client. Default true. */
  readonly client: boolean;
  /**
   * `client=lean`: the client reads and writes its messages from generated
   * tables, without protobuf-es's descriptors and reflection (a browser
   * bundle about a third the size); proto3 only; google.protobuf.Any alone by reflection.
   */
  readonly leanClient: boolean;
  /** `stub=true|false`: emit the UNIMPLEMENTED handler stub. Default true. */
  readonly stub: boolean;
  /**
   * `agent=true|false`: with profile=a2a, emit `<file>_http_agent.ts`,
   * `create<Service>Agent` over the runtime's task engine, for A2A's service.
   * Default true.
   */
  readonly agent: boolean;
  /**
   * `connect=true|false`: emit `<file>_http_connect.ts`, the gRPC (and
   * gRPC-Web, Connect) binding through connect-es. Default false: it needs
   * `@connectrpc/connect`, which not every user has.
   */
  readonly connect: boolean;
  /**
   * `conflicts=comment|warn|error`: what to do with templates that overlap
   * (a2a.proto has four such pairs by design). `comment` (the default) lists
   * them in the route file's doc comment; `warn` also prints them to stderr
   * on every run; `error` fails generation.
   */
  readonly conflicts: "warn" | "comment" | "error";
  /**
   * `streaming=warn|error`: a client- or bidi-streaming rpc with an HttpRule.
   * `warn` (the default) leaves it out of routes, servers and client and says
   * so on stderr; `error` fails generation.
   */
  readonly streaming: "warn" | "error";
  /**
   * `same_shape=error|warn`: two bindings with the same method and template
   * shape. `error` (the default) fails generation; `warn`, for protos you
   * consume but do not own, keeps the first in proto order and names the one
   * that can never be reached on stderr.
   */
  readonly sameShape: "error" | "warn";
  /** `runtime_import=<module>`: where generated code imports the runtime from, it and its subpaths (`<module>/client`, ...). Default `a2a-http`. */
  readonly runtimeImport: string;
  /**
   * `openapi=true|json|yaml|false`, repeatable: write `<file>_http.openapi.json`
   * (`true` or `json`) and/or `.yaml`. Default: neither.
   */
  readonly openapi: readonly OpenApiFormat[];
  /**
   * `json_codec=true|false`: write `<file>_http_json.ts`, a ProtoJSON reader and
   * writer per message the routes read or write (no reflection per value),
   * which the route table hands to servers and clients. Default true; `false`
   * leaves all JSON to protobuf-es's reflective fromJson/toJson.
   */
  readonly jsonCodec: boolean;
}

export type OpenApiFormat = "json" | "yaml";

export type ServerFramework = "express" | "fastify" | "hono";

export const serverFrameworks: readonly ServerFramework[] = ["express", "fastify", "hono"];

const choices = {
  profile: ["none", "a2a"],
  server: ["express", "fastify", "hono", "none"],
  client: ["true", "false", "lean"],
  stub: ["true", "false"],
  agent: ["true", "false"],
  connect: ["true", "false"],
  json_codec: ["true", "false"],
  conflicts: ["comment", "warn", "error"],
  openapi: ["true", "false", "json", "yaml"],
  streaming: ["warn", "error"],
  same_shape: ["error", "warn"],
} as const;

const optionNames = [...Object.keys(choices), "runtime_import"];

/** What each option does, in a line, for `--help` (parseOptions([]) gives the defaults). */
export const optionSummaries: Readonly<Record<keyof typeof choices | "runtime_import", string>> = {
  profile: "a2a adds A2A's HTTP+JSON rules (media type, A2A-Version, tenants, ErrorInfo) and create<Service>Agent",
  server: "which server adapters to write (repeat it for several)",
  client:
    "write the fetch client; lean: one without protobuf-es's reflection (proto3; Any by reflection with the registry), for browser bundles",
  stub: "write the UNIMPLEMENTED handler stub",
  agent: "with profile=a2a, write <file>_http_agent.ts (the task engine bound to your types)",
  connect: "write <file>_http_connect.ts, the gRPC binding through connect-es",
  json_codec: "write <file>_http_json.ts, a ProtoJSON reader and writer per message",
  conflicts: "overlapping templates: list them in a doc comment, also on stderr, or fail",
  openapi: "write <file>_http.openapi.json and/or .yaml (repeat it for both)",
  streaming: "client- or bidi-streaming rpcs with an HttpRule: leave them out with a warning, or fail",
  same_shape: "two bindings with the same method and template shape: fail, or keep the first with a warning",
  runtime_import: "the module generated code imports the runtime from",
};

/** The options, their values and defaults, one per line, for `--help`. */
export function optionsUsage(): string {
  const d = parseOptions([]);
  const defaults: Record<keyof typeof optionSummaries, string> = {
    profile: d.profile,
    server: d.servers.join(", "),
    client: d.leanClient ? "lean" : String(d.client),
    stub: String(d.stub),
    agent: String(d.agent),
    connect: String(d.connect),
    json_codec: String(d.jsonCodec),
    conflicts: d.conflicts,
    openapi: d.openapi.length === 0 ? "false" : d.openapi.join(", "),
    streaming: d.streaming,
    same_shape: d.sameShape,
    runtime_import: d.runtimeImport,
  };
  return (Object.keys(optionSummaries) as (keyof typeof optionSummaries)[])
    .map((name) => {
      const values = name === "runtime_import" ? "<module>" : choices[name].join("|");
      return `  ${name}=${values}  (default ${defaults[name]})\n      ${optionSummaries[name]}`;
    })
    .join("\n");
}

/** Thrown for an unknown or malformed option; protoplugin reports it and exits 1. */
export class PluginOptionError extends Error {
  override name = "PluginOptionError";
}

/** Parses the options protoplugin did not recognise; throws on anything unknown or malformed. */
export function parseOptions(raw: readonly { key: string; value: string }[]): PluginOptions {
  let profile: PluginOptions["profile"] = "none";
  let servers: ServerFramework[] | undefined;
  let client = true;
  let leanClient = false;
  let stub = true;
  let agent = true;
  let connect = false;
  let jsonCodec = true;
  let conflicts: PluginOptions["conflicts"] = "comment";
  let streaming: PluginOptions["streaming"] = "warn";
  let sameShape: PluginOptions["sameShape"] = "error";
  let runtimeImport = "a2a-http";
  const openapi: OpenApiFormat[] = [];
  for (const { key, value } of raw) {
    if (key === "runtime_import") {
      if (value === "") throw new PluginOptionError(`option "runtime_import" needs a module name, e.g. runtime_import=a2a-http`);
      runtimeImport = value;
      continue;
    }
    if (!Object.hasOwn(choices, key)) {
      throw new PluginOptionError(
        `unknown option "${key}"${didYouMean(key, optionNames)}; valid options are ${optionNames.join(", ")} and protoplugin's target, import_extension, js_import_style, keep_empty_files, ts_nocheck, elide_plugin_version, rewrite_imports`,
      );
    }
    const valid: readonly string[] = choices[key as keyof typeof choices];
    if (!valid.includes(value)) {
      throw new PluginOptionError(
        `option "${key}=${value}" is not valid${didYouMean(value, valid)}; ${key} takes one of ${valid.join(", ")}`,
      );
    }
    switch (key) {
      case "profile":
        profile = value as PluginOptions["profile"];
        break;
      case "server":
        servers ??= [];
        if (value !== "none" && !servers.includes(value as ServerFramework)) servers.push(value as ServerFramework);
        break;
      case "client":
        client = value !== "false";
        leanClient = value === "lean";
        break;
      case "stub":
        stub = value === "true";
        break;
      case "agent":
        agent = value === "true";
        break;
      case "connect":
        connect = value === "true";
        break;
      case "json_codec":
        jsonCodec = value === "true";
        break;
      case "conflicts":
        conflicts = value as PluginOptions["conflicts"];
        break;
      case "openapi": {
        if (value === "false") {
          openapi.length = 0;
          break;
        }
        const format: OpenApiFormat = value === "yaml" ? "yaml" : "json";
        if (!openapi.includes(format)) openapi.push(format);
        break;
      }
      case "streaming":
        streaming = value as PluginOptions["streaming"];
        break;
      case "same_shape":
        sameShape = value as PluginOptions["sameShape"];
        break;
    }
  }
  return {
    profile,
    servers: servers ?? [...serverFrameworks],
    client,
    leanClient,
    stub,
    agent,
    connect,
    conflicts,
    streaming,
    sameShape,
    runtimeImport,
    openapi,
    jsonCodec,
  };
}

/**
 * ` (did you mean "x"?)` when one candidate is nearest to `word` (case aside)
 * and within two edits (one for a two-letter candidate), else "".
 */
export function didYouMean(word: string, candidates: readonly string[]): string {
  const near = candidates
    .map((c) => ({ c, d: editDistance(word.toLowerCase(), c.toLowerCase()) }))
    .filter(({ c, d }) => d <= Math.min(2, c.length - 1));
  const best = Math.min(...near.map(({ d }) => d));
  const nearest = near.filter(({ d }) => d === best);
  return nearest.length === 1 ? ` (did you mean "${nearest[0]!.c}"?)` : "";
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const row = [i];
    for (let j = 1; j <= b.length; j++) {
      row[j] = Math.min(previous[j]! + 1, row[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = row;
  }
  return previous[b.length]!;
}
