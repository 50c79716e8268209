import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { basename, dirname, join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import Handlebars from "handlebars";
import { readServiceRoutes } from "../httprule/service.js";
import { a2aMessagesOf } from "../emit/agent.js";
import { withoutInternalComments } from "../emit/jsdoc.js";
import { lowerFirstWord } from "../emit/names.js";
import { serverFrameworks, type ServerFramework } from "../options.js";
import { protoplugin } from "../protoplugin.js";
import { ScaffoldError } from "./error.js";
import { packageSpecs, type PackageSpecs } from "./package-source.js";
import { nodeLineFor, scaffoldVersions } from "./versions.js";

export { ScaffoldError };

export interface ScaffoldOptions {
  /** The directory of the new project; created if missing. */
  readonly dir: string;
  readonly framework: ServerFramework;
  /** The proto with the service (a2a.proto by default). */
  readonly proto: string;
  /** Which service of the proto, when it has several with HTTP rules. */
  readonly service?: string | undefined;
  /**
   * Rewrite the scaffold's own files that exist (the server, the build
   * config, the proto copies) and merge package.json; the files you edit
   * (see {@link userFiles}) are never overwritten.
   */
  readonly force?: boolean | undefined;
  /**
   * A folder with the packed tarballs of a2a-http and protoc-gen-a2a-http that
   * the new project installs; by default they come from where this package
   * was installed from (see {@link packageSpecs}).
   */
  readonly from?: string | undefined;
  /** The default PORT of the server; 41241 unless given. */
  readonly port?: number | undefined;
}

const packageRoot = join(dirname(fileURLToPath(import.meta.url)), "..", "..");
const templateDir = join(packageRoot, "templates", "scaffold");
const require = createRequire(import.meta.url);

/** Where the A2A proto comes from when the caller names none. */
export function defaultProto(): string | undefined {
  const shipped = join(packageRoot, "a2a", "a2a.proto");
  return existsSync(shipped) ? shipped : undefined;
}

/** v0.3's A2A proto, shipped beside a2a.proto (staged at build time). */
const v03ProtoFile = "a2a-v0_3.proto";

/**
 * Where the v0.3 proto comes from, for an agent on the engine serving A2A
 * v1.0's service (`lf.a2a.v1.A2AService`): the project serves v0.3's gRPC
 * service (`a2a.v1.A2AService`) to v0.3 clients beside it, over the same
 * handlers (JSON-RPC and HTTP+JSON serve v0.3 without it). Undefined for
 * another service, or when the package lacks the proto.
 */
function v03ProtoFor(service: ServiceInfo, protoFile: string): string | undefined {
  if (!service.engine || service.typeName !== "lf.a2a.v1.A2AService" || protoFile === v03ProtoFile) return undefined;
  const shipped = join(packageRoot, "a2a", v03ProtoFile);
  return existsSync(shipped) ? shipped : undefined;
}

/**
 * The files of a scaffolded project that are yours to edit: written when
 * missing, never overwritten, `--force` or not. The others are the
 * scaffold's (rewritten by `--force`), except package.json, which `--force`
 * merges: the scaffold's scripts and dependency versions, the rest of yours kept.
 */
export const userFiles: readonly string[] = [
  "README.md",
  "Dockerfile",
  ".dockerignore",
  "src/executor.ts",
  "src/executor.test.ts",
  "src/card.ts",
  "src/client.ts",
  "src/handlers.ts",
];

/**
 * Writes a new agent server project into `options.dir`: package.json,
 * buf.yaml, buf.gen.yaml using this plugin, the proto, the server and a
 * README. For A2A's service the agent runs on the A2A task engine
 * (a2a-http/agent): `src/executor.ts` is an echo executor, `src/card.ts` its
 * card, `src/executor.test.ts` its test (`npm test`). For another service,
 * `src/handlers.ts` has every method answering UNIMPLEMENTED. Refuses to
 * touch an existing project unless `force` is set, and even then leaves the
 * {@link userFiles} as they are.
 */
export function scaffold(options: ScaffoldOptions): ScaffoldResult {
  if (!serverFrameworks.includes(options.framework)) {
    throw new ScaffoldError(`unknown framework "${options.framework}"; choose one of ${serverFrameworks.join(", ")}`);
  }
  const protoPath = resolve(options.proto);
  if (!existsSync(protoPath)) throw new ScaffoldError(`proto file not found: ${protoPath}`);
  const dir = resolve(options.dir);
  const protoFile = basename(protoPath);
  const service = describeService(protoPath, options.service);
  const packages = packageSpecs(packageRoot, options.from);
  // Tarballs are copied into the project, which then holds all it installs
  // from: it can be moved, committed and built into an image (the Dockerfile
  // copies vendor/). Checkout folders are linked by relative paths.
  const vendored = packages.source === "tarballs" ? vendorTarballs(packages) : undefined;
  const specs = vendored?.specs ?? relativeTo(dir, packages);
  const packageName =
    basename(dir)
      .toLowerCase()
      .replace(/[^a-z0-9._-]+/g, "-")
      .replace(/^[._-]+/, "") || "a2a-agent";
  const profile = service.typeName.endsWith(".A2AService") ? "a2a" : "none";
  const engine = profile === "a2a" ? service.engine : undefined;
  const v03Proto = v03ProtoFor(service, protoFile);

  const context = {
    packageName,
    framework: options.framework,
    profile,
    engine,
    protoFile,
    httpModule: protoFile.replace(/\.proto$/, "") + "_http",
    // protoc-gen-es's module of the proto, which exports the service descriptor.
    pbModule: protoFile.replace(/\.proto$/, "") + "_pb",
    serviceName: service.name,
    serviceTypeName: service.typeName,
    fnPrefix: lowerFirstWord(service.name),
    methods: service.methods,
    // v0.3's gRPC service beside the A2A service (protoc-gen-es's module and the connect binding's).
    v03: v03Proto ? { protoFile: v03ProtoFile, pbModule: "a2a-v0_3_pb", connectModule: "a2a-v0_3_http_connect" } : undefined,
    packages: specs,
    vendored: vendored !== undefined,
    port: options.port ?? defaultPort,
    // Only the Dockerfile's EXPOSE and docs: the agent picks it when it starts.
    grpcPort: (options.port ?? defaultPort) + 1,
    versions: scaffoldVersions,
    // The Node.js line of the project (its @types/node, the Dockerfile's image): the one running the scaffold.
    node: nodeLineFor(process.versions.node),
  };

  const files = new Map<string, string>([
    ["package.json", render("package.json.hbs", context)],
    ["buf.yaml", render("buf.yaml.hbs", context)],
    ["buf.gen.yaml", render("buf.gen.yaml.hbs", context)],
    ["tsconfig.json", render("tsconfig.json.hbs", context)],
    [".gitignore", render("gitignore.hbs", context)],
    ["README.md", render("README.md.hbs", context)],
    ["Dockerfile", render("Dockerfile.hbs", context)],
    [".dockerignore", render("dockerignore.hbs", context)],
    ...(engine
      ? ([
          ["src/executor.ts", render("executor.ts.hbs", context)],
          ["src/executor.test.ts", render("executor.test.ts.hbs", context)],
          ["src/card.ts", render("card.ts.hbs", context)],
          ["src/client.ts", render("client.ts.hbs", context)],
        ] as const)
      : ([["src/handlers.ts", render("handlers.ts.hbs", context)]] as const)),
    ["src/server.ts", render("server.ts.hbs", context)],
    ["src/main.ts", render("main.ts.hbs", context)],
    ["scripts/generate-if-needed.mjs", render("generate-if-needed.mjs.hbs", context)],
  ]);
  // src/telemetry.ts is a plain TypeScript file, the one the repository's example agent runs too;
  // src/opentelemetry.d.ts types the SDK packages it imports when they are not installed.
  const copies = new Map<string, string>([
    [`proto/${protoFile}`, protoPath],
    ["src/telemetry.ts", join(templateDir, "telemetry.ts")],
    ["src/opentelemetry.d.ts", join(templateDir, "opentelemetry.d.ts")],
  ]);
  if (v03Proto) copies.set(`proto/${v03ProtoFile}`, v03Proto);
  for (const name of googleApiProtos) {
    copies.set(`proto/google/api/${name}`, join(googleApiDir(), name));
  }
  for (const [name, from] of vendored?.copies ?? []) copies.set(name, from);

  const targets = [...files.keys(), ...copies.keys()];
  const existing = targets.filter((t) => existsSync(join(dir, t)));
  if (existing.length > 0 && !options.force) {
    const kept = targets.filter((t) => userFiles.includes(t));
    throw new ScaffoldError(
      `${options.dir} already has ${existing.join(", ")}; pass --force to rewrite the scaffold's files ` +
        `(${kept.join(", ")} are yours: --force leaves them as they are, and merges package.json)`,
    );
  }
  const written: string[] = [];
  const left: string[] = [];
  let merged = false;
  for (const [name, text] of files) {
    const path = join(dir, name);
    let out = text;
    if (existsSync(path)) {
      if (userFiles.includes(name)) {
        left.push(name);
        continue;
      }
      if (name === "package.json") {
        const m = mergePackageJson(readFileSync(path, "utf8"), text);
        if (m === undefined) {
          left.push(name);
          continue;
        }
        out = m;
        merged = true;
      }
    }
    mkdirSync(dirname(path), { recursive: true });
    writeFileSync(path, out);
    written.push(name);
  }
  for (const [name, from] of copies) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    // --force --from <project>/vendor: the tarball is already in place.
    if (resolve(from) !== join(dir, name)) copyFileSync(from, join(dir, name));
    written.push(name);
  }
  return { files: written, left, merged, packages };
}

/** The tarballs' copies in the project's vendor/ and the specs that install them. */
function vendorTarballs(packages: PackageSpecs): { specs: PackageSpecs; copies: Map<string, string> } {
  const copies = new Map<string, string>();
  const vendor = (spec: string) => {
    const path = spec.slice("file:".length);
    copies.set(`vendor/${basename(path)}`, path);
    return `file:./vendor/${basename(path)}`;
  };
  return { specs: { ...packages, runtime: vendor(packages.runtime), plugin: vendor(packages.plugin) }, copies };
}

/**
 * The specs with `file:` paths relative to the project, so that it can be
 * moved (with the tarballs where they were beside it) and committed.
 */
function relativeTo(dir: string, specs: PackageSpecs): PackageSpecs {
  if (specs.source === "registry") return specs;
  const rel = (spec: string) => {
    const path = relative(dir, spec.slice("file:".length)).split(sep).join("/");
    return `file:${path.startsWith("../") ? path : `./${path}`}`;
  };
  return { ...specs, runtime: rel(specs.runtime), plugin: rel(specs.plugin) };
}

/**
 * An existing package.json with the scaffold's scripts and dependency
 * versions set, its other entries (your dependencies, scripts, fields) kept,
 * and its `allowScripts` entries added where yours say nothing of a package;
 * undefined when it is not a JSON object.
 */
function mergePackageJson(existing: string, ours: string): string | undefined {
  let theirs: unknown;
  try {
    theirs = JSON.parse(existing);
  } catch {
    return undefined;
  }
  if (theirs === null || typeof theirs !== "object" || Array.isArray(theirs)) return undefined;
  const result = { ...(theirs as Record<string, unknown>) };
  const scaffolded = JSON.parse(ours) as Record<string, unknown>;
  for (const [key, value] of Object.entries(scaffolded)) {
    const mine = result[key];
    if (value !== null && typeof value === "object" && mine !== null && typeof mine === "object" && !Array.isArray(mine)) {
      // Your install-script decisions (npm install-scripts approve/deny) win over the scaffold's.
      result[key] = key === "allowScripts" ? { ...(value as object), ...(mine as object) } : { ...(mine as object), ...(value as object) };
    } else if (!(key in result)) {
      result[key] = value;
    }
  }
  return JSON.stringify(result, null, 2) + "\n";
}

export interface ScaffoldResult {
  /** The files written, relative to the project directory. */
  readonly files: string[];
  /** The files you edit that existed and were left as they were. */
  readonly left: string[];
  /** Whether package.json existed and the scaffold's entries were merged into it. */
  readonly merged: boolean;
  /** Where the project's package.json takes a2a-http and protoc-gen-a2a-http from. */
  readonly packages: PackageSpecs;
}

/** The port a scaffolded agent listens on without PORT (the A2A samples' port). */
export const defaultPort = 41241;

interface ServiceInfo {
  readonly name: string;
  readonly typeName: string;
  /**
   * For a service shaped like A2A's (what the plugin's `<file>_http_agent.ts`
   * binds the task engine to): the module and name of its AgentCard message.
   */
  readonly engine: { readonly pbModule: string; readonly cardName: string } | undefined;
  readonly methods: readonly { localName: string; name: string; streaming: boolean; jsDoc: string }[];
}

/** Compiles the proto with buf and picks the service to scaffold. */
function describeService(protoPath: string, wanted: string | undefined): ServiceInfo {
  const image = compile(protoPath);
  const registry = createFileRegistry(fromBinary(FileDescriptorSetSchema, image));
  const services = [];
  for (const file of registry.files) {
    if (file.name + ".proto" !== basename(protoPath)) continue;
    for (const s of file.services) {
      const routes = readServiceRoutes(s);
      if (routes.bindings.length > 0) services.push(routes);
    }
  }
  if (services.length === 0) throw new ScaffoldError(`${basename(protoPath)} has no service with google.api.http rules`);
  const chosen = wanted ? services.find((s) => s.service.name === wanted || s.service.typeName === wanted) : services[0];
  if (!chosen) {
    throw new ScaffoldError(`service "${wanted}" not found; ${basename(protoPath)} has ${services.map((s) => s.service.name).join(", ")}`);
  }
  const a2a = a2aMessagesOf(chosen.service);
  return {
    name: chosen.service.name,
    typeName: chosen.service.typeName,
    engine: a2a?.card ? { pbModule: a2a.card.file.name + "_pb", cardName: a2a.card.name } : undefined,
    methods: chosen.rpcs.map((m) => ({
      localName: m.localName,
      name: m.name,
      streaming: m.methodKind === "server_streaming",
      jsDoc: firstSentence(withoutInternalComments(protoplugin.getComments(m).leading ?? "")),
    })),
  };
}

/**
 * Compiles one proto with buf, beside a copy of google/api, in a temporary
 * directory (the proto's own directory rarely has google/api in it).
 */
function compile(protoPath: string): Buffer {
  const bufBin = join(dirname(require.resolve("@bufbuild/buf/package.json")), "bin", "buf");
  const tmp = mkdtempSync(join(tmpdir(), "a2a-http-scaffold-"));
  try {
    mkdirSync(join(tmp, "google", "api"), { recursive: true });
    for (const name of googleApiProtos) copyFileSync(join(googleApiDir(), name), join(tmp, "google", "api", name));
    copyFileSync(protoPath, join(tmp, basename(protoPath)));
    return execFileSync(
      process.execPath,
      [bufBin, "build", tmp, "--path", join(tmp, basename(protoPath)), "--as-file-descriptor-set", "-o", "-#format=binpb"],
      { stdio: ["ignore", "pipe", "pipe"], maxBuffer: 64 << 20 },
    );
  } catch (e) {
    const stderr = (e as { stderr?: Buffer }).stderr?.toString().trim();
    throw new ScaffoldError(`buf could not compile ${protoPath}${stderr ? `:\n${stderr}` : ""}`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** The google/api protos that this package ships in proto/ (staged at build time). */
const googleApiDir = () => join(packageRoot, "proto", "google", "api");
const googleApiProtos = ["annotations.proto", "http.proto", "field_behavior.proto", "client.proto", "launch_stage.proto", "resource.proto"];

function firstSentence(comment: string): string {
  const text = comment.replace(/\s+/g, " ").trim();
  const end = text.search(/\.(\s|$)/);
  return (end < 0 ? text : text.slice(0, end + 1)).replaceAll("*/", "*\\/");
}

const compiled = new Map<string, HandlebarsTemplateDelegate>();
const hbs = Handlebars.create();
hbs.registerHelper("eq", (a: unknown, b: unknown) => a === b);

/** Renders one template; a broken template is reported by name, not as a crash. */
function render(name: string, context: object): string {
  let template = compiled.get(name);
  try {
    if (!template) {
      template = hbs.compile(readFileSync(join(templateDir, name), "utf8"), { noEscape: true, strict: true });
      compiled.set(name, template);
    }
    return template(context);
  } catch (e) {
    throw new ScaffoldError(`template ${name} failed: ${e instanceof Error ? e.message : String(e)}`);
  }
}
