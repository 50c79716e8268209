import { existsSync, readFileSync } from "node:fs";
import { join, resolve, sep } from "node:path";
import { version } from "../version.js";
import { ScaffoldError } from "./error.js";

/** The dependency specs of the two packages in a scaffolded project's package.json. */
export interface PackageSpecs {
  /** a2a-http, a dependency: generated code imports it. */
  readonly runtime: string;
  /** protoc-gen-a2a-http, a dev dependency: only `npm run generate` needs it. */
  readonly plugin: string;
  /** Where the specs point, for the message that scaffold prints. */
  readonly source: "registry" | "tarballs" | "folders";
}

export const runtimePackage = "a2a-http";
export const pluginPackage = "protoc-gen-a2a-http";
const tarball = (name: string) => `${name}-${version}.tgz`;

/**
 * Picks where the new project installs a2a-http and protoc-gen-a2a-http from,
 * so that its `npm install` works whether or not this version is published:
 *
 * - `from`: a folder with the packed tarballs of this version;
 * - else, when this package was installed from tarballs (`npm install
 *   ./protoc-gen-a2a-http-x.tgz ./a2a-http-x.tgz`, or npx of them), those
 *   same tarballs, as the installing project's lockfile records them;
 * - else, when it runs from a checkout of the repository, the workspace folders;
 * - else (installed from a registry) the caret range of this version.
 */
export function packageSpecs(packageRoot: string, from: string | undefined): PackageSpecs {
  if (from !== undefined) return fromTarballFolder(resolve(from));
  const installed = installedFrom(packageRoot);
  if (installed) return installed;
  const runtimeFolder = join(packageRoot, "..", "runtime");
  if (!packageRoot.split(sep).includes("node_modules") && existsSync(join(runtimeFolder, "package.json"))) {
    return { runtime: `file:${resolve(runtimeFolder)}`, plugin: `file:${packageRoot}`, source: "folders" };
  }
  return { runtime: `^${version}`, plugin: `^${version}`, source: "registry" };
}

function fromTarballFolder(dir: string): PackageSpecs {
  const runtime = join(dir, tarball(runtimePackage));
  const plugin = join(dir, tarball(pluginPackage));
  const missing = [runtime, plugin].filter((p) => !existsSync(p));
  if (missing.length > 0) {
    throw new ScaffoldError(
      `--from ${dir} has no ${missing.map((p) => p.slice(dir.length + 1)).join(" or ")}; ` +
        `make them with \`npm pack -w a2a-http -w protoc-gen-a2a-http --pack-destination ${dir}\` in a checkout`,
    );
  }
  return { runtime: `file:${runtime}`, plugin: `file:${plugin}`, source: "tarballs" };
}

/** The tarballs this package and the runtime were installed from, per the installing project's lockfile. */
function installedFrom(packageRoot: string): PackageSpecs | undefined {
  const parts = packageRoot.split(sep);
  const at = parts.lastIndexOf("node_modules");
  if (at < 0) return undefined;
  const project = parts.slice(0, at).join(sep) || sep;
  const lock = readLock(join(project, "node_modules", ".package-lock.json")) ?? readLock(join(project, "package-lock.json"));
  if (!lock) return undefined;
  const own = parts.slice(at).join("/");
  const resolved = (key: string) => {
    const r = lock[key]?.resolved;
    return typeof r === "string" && r.startsWith("file:") ? `file:${resolve(project, r.slice("file:".length))}` : undefined;
  };
  const plugin = resolved(own);
  const runtime = resolved(`${own}/node_modules/${runtimePackage}`) ?? resolved(`node_modules/${runtimePackage}`);
  if (!plugin || !runtime) return undefined;
  return { runtime, plugin, source: "tarballs" };
}

function readLock(path: string): Record<string, { resolved?: unknown }> | undefined {
  try {
    const json = JSON.parse(readFileSync(path, "utf8")) as { packages?: Record<string, { resolved?: unknown }> };
    return json.packages;
  } catch {
    return undefined;
  }
}
