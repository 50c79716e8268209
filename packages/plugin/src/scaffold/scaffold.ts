import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { createFileRegistry, fromBinary } from "@bufbuild/protobuf";
import { FileDescriptorSetSchema } from "@bufbuild/protobuf/wkt";
import Handlebars from "handlebars";
import { readServiceRoutes } from "../httprule/service.js";
import { withoutInternalComments } from "../emit/jsdoc.js";
import { lowerFirstWord } from "../emit/names.js";
import { serverFrameworks, type ServerFramework } from "../options.js";
import { protoplugin } from "../protoplugin.js";
import { ScaffoldError } from "./error.js";
import { packageSpecs, type PackageSpecs } from "./package-source.js";
import { scaffoldVersions } from "./versions.js";

export { ScaffoldError };

export interface ScaffoldOptions {
  /** The directory of the new project; created if missing. */
  readonly dir: string;
  readonly framework: ServerFramework;
  /** The proto with the service (a2a.proto by default). */
  readonly proto: string;
  /** Which service of the proto, when it has several with HTTP rules. */
  readonly service?: string | undefined;
  /** Overwrite files that exist. */
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

/**
 * Writes a new agent server project into `options.dir`: package.json, buf.yaml,
 * buf.gen.yaml using this plugin, the proto, a handlers file with every method
 * answering UNIMPLEMENTED, the server entry point and a README. Refuses to
 * overwrite anything unless `force` is set.
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
  const packageName = basename(dir).toLowerCase().replace(/[^a-z0-9._-]+/g, "-").replace(/^[._-]+/, "") || "a2a-agent";

  const context = {
    packageName,
    framework: options.framework,
    profile: service.typeName.endsWith(".A2AService") ? "a2a" : "none",
    protoFile,
    httpModule: protoFile.replace(/\.proto$/, "") + "_http",
    serviceName: service.name,
    serviceTypeName: service.typeName,
    fnPrefix: lowerFirstWord(service.name),
    methods: service.methods,
    packages,
    port: options.port ?? defaultPort,
    grpcPort: (options.port ?? defaultPort) < 65535 ? (options.port ?? defaultPort) + 1 : 65534,
    versions: scaffoldVersions,
  };

  const files = new Map<string, string>([
    ["package.json", render("package.json.hbs", context)],
    ["buf.yaml", render("buf.yaml.hbs", context)],
    ["buf.gen.yaml", render("buf.gen.yaml.hbs", context)],
    ["tsconfig.json", render("tsconfig.json.hbs", context)],
    [".gitignore", render("gitignore.hbs", context)],
    ["README.md", render("README.md.hbs", context)],
    ["src/handlers.ts", render("handlers.ts.hbs", context)],
    ["src/server.ts", render("server.ts.hbs", context)],
    ["scripts/generate-if-needed.mjs", render("generate-if-needed.mjs.hbs", context)],
  ]);
  const copies = new Map<string, string>([[`proto/${protoFile}`, protoPath]]);
  for (const name of googleApiProtos) {
    copies.set(`proto/google/api/${name}`, join(googleApiDir(), name));
  }

  const targets = [...files.keys(), ...copies.keys()];
  const existing = targets.filter((t) => existsSync(join(dir, t)));
  if (existing.length > 0 && !options.force) {
    throw new ScaffoldError(
      `${options.dir} already has ${existing.join(", ")}; pass --force to overwrite`,
    );
  }
  for (const [name, text] of files) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
  for (const [name, from] of copies) {
    mkdirSync(dirname(join(dir, name)), { recursive: true });
    copyFileSync(from, join(dir, name));
  }
  return { files: targets, packages };
}

export interface ScaffoldResult {
  /** The files written, relative to the project directory. */
  readonly files: string[];
  /** Where the project's package.json takes a2a-http and protoc-gen-a2a-http from. */
  readonly packages: PackageSpecs;
}

/** The port a scaffolded agent listens on without PORT (the A2A samples' port). */
export const defaultPort = 41241;

interface ServiceInfo {
  readonly name: string;
  readonly typeName: string;
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
    throw new ScaffoldError(
      `service "${wanted}" not found; ${basename(protoPath)} has ${services.map((s) => s.service.name).join(", ")}`,
    );
  }
  return {
    name: chosen.service.name,
    typeName: chosen.service.typeName,
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
