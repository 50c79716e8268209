import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";

/** A package this registry publishes: its manifest (package.json) and its packed tarball. */
export interface LocalPackage {
  readonly manifest: { readonly name: string; readonly version: string } & Record<string, unknown>;
  readonly tarball: string;
}

export interface LocalRegistry {
  readonly url: string;
  /** Paths asked for, in order (to show that npm came here for our packages). */
  readonly served: string[];
  close(): Promise<void>;
}

/**
 * An npm registry on 127.0.0.1 that has our packages as if they were
 * published, and sends npm to the public registry for everything else (a
 * redirect, which npm follows), so that the registry form of a command can be
 * run before the packages are on the registry. npm rewrites the public
 * registry's tarball URLs to the configured registry, so tarballs of other
 * packages come here too and are redirected the same way.
 */
export async function startLocalRegistry(
  packages: readonly LocalPackage[],
  upstream = "https://registry.npmjs.org",
): Promise<LocalRegistry> {
  const served: string[] = [];
  const tarballs = new Map(
    packages.map((p) => [`/${p.manifest.name}/-/${p.manifest.name}-${p.manifest.version}.tgz`, readFileSync(p.tarball)]),
  );
  let base = "";
  const packument = (p: LocalPackage) => {
    const bytes = tarballs.get(`/${p.manifest.name}/-/${p.manifest.name}-${p.manifest.version}.tgz`)!;
    return JSON.stringify({
      name: p.manifest.name,
      "dist-tags": { latest: p.manifest.version },
      versions: {
        [p.manifest.version]: {
          ...p.manifest,
          _id: `${p.manifest.name}@${p.manifest.version}`,
          dist: {
            tarball: `${base}/${p.manifest.name}/-/${p.manifest.name}-${p.manifest.version}.tgz`,
            integrity: `sha512-${createHash("sha512").update(bytes).digest("base64")}`,
            shasum: createHash("sha1").update(bytes).digest("hex"),
          },
        },
      },
    });
  };
  const server: Server = createServer((req, res) => {
    const path = decodeURIComponent((req.url ?? "/").split("?")[0]!);
    const own = packages.find((p) => path === `/${p.manifest.name}`);
    const tarball = tarballs.get(path);
    if (own || tarball) served.push(path);
    if (own) {
      res.writeHead(200, { "content-type": "application/json" }).end(packument(own));
    } else if (tarball) {
      res.writeHead(200, { "content-type": "application/octet-stream", "content-length": tarball.length }).end(tarball);
    } else {
      res.writeHead(302, { location: `${upstream}${req.url ?? "/"}` }).end();
    }
  });
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(0, "127.0.0.1", () => resolve()));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: base,
    served,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
