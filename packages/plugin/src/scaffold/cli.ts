import { parseArgs } from "node:util";
import { didYouMean, serverFrameworks, type ServerFramework } from "../options.js";
import { version } from "../version.js";
import type { PackageSpecs } from "./package-source.js";
import { defaultPort, defaultProto, scaffold, ScaffoldError, userFiles } from "./scaffold.js";

function describe(p: PackageSpecs): string {
  if (p.source === "registry") return `the registry (${p.runtime})`;
  if (p.source === "tarballs") return `the tarballs ${p.runtime.slice(5)} and ${p.plugin.slice(5)}, copied into vendor/`;
  return `the checkout's folders ${p.runtime.slice(5)} and ${p.plugin.slice(5)}`;
}

/** The scaffold's usage, for `scaffold --help` and the plugin's `--help`. */
export const scaffoldUsage = () => `usage: protoc-gen-a2a-http scaffold <dir> [--framework express|fastify|hono] [--proto a2a.proto]
                                 [--service Name] [--port ${defaultPort}] [--from <folder>] [--force]

Writes a new A2A agent server project into <dir>: package.json, buf.yaml and
buf.gen.yaml using this plugin, the proto (a2a.proto unless --proto) with the
google/api protos it imports, src/server.ts serving the agent over HTTP+JSON,
JSON-RPC and gRPC, src/main.ts starting it, and a README. For A2A's service
the agent runs on the A2A task engine (a2a-http/agent): src/executor.ts is an
echo executor for you to rewrite, src/card.ts its card, src/executor.test.ts
its test (npm test), and it serves A2A v0.3 clients too, on the three
bindings (with a2a-v0_3.proto, which this package ships, for v0.3's gRPC
service). For another service, src/handlers.ts has every method answering
UNIMPLEMENTED.

An existing project is left alone unless --force is given; even then the
files you edit (${userFiles.join(", ")}) are never
overwritten, package.json gets the scaffold's scripts and dependencies merged
into it, and the scaffold's other files are rewritten.

  --framework  the server framework (default express)
  --proto      the proto with the service (default: the a2a.proto this package ships)
  --service    which service, when the proto has several with HTTP rules
  --port       the agent's HTTP port (HTTP+JSON and JSON-RPC) when PORT is not set (default ${defaultPort});
               read when the agent starts, like GRPC_PORT (default the port after PORT;
               off for no gRPC) and HOST (default 127.0.0.1)
  --from       a folder with the packed a2a-http-${version}.tgz and protoc-gen-a2a-http-${version}.tgz
               for the new project to install
  --force      write into a project that exists (see above)
  --help, -h   this text

The new project depends on a2a-http (the runtime) and protoc-gen-a2a-http
(dev). Without --from it takes them from where this package was installed
from: the same tarballs when installed from tarballs (npm install or npx of
the .tgz files, for versions not published), the workspace folders when run
from a checkout of the repository, else the registry range ^${version}.`;

const flags = {
  framework: { type: "string", default: "express" },
  proto: { type: "string" },
  service: { type: "string" },
  port: { type: "string" },
  from: { type: "string" },
  force: { type: "boolean", default: false },
  help: { type: "boolean", short: "h", default: false },
} as const;

/** Runs `protoc-gen-a2a-http scaffold ...`; returns the process exit code. */
export function runScaffoldCli(args: string[]): number {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      options: flags,
    });
  } catch (e) {
    // parseArgs's own message for a typo is long and has no suggestion.
    const unknown = /^Unknown option '--?([^']+)'/.exec((e as Error).message)?.[1];
    const message = unknown === undefined ? (e as Error).message : `unknown flag "${unknown}"${didYouMean(unknown, Object.keys(flags))}`;
    process.stderr.write(`protoc-gen-a2a-http scaffold: ${message}\n${scaffoldUsage()}\n`);
    return 2;
  }
  const { values, positionals } = parsed;
  if (values.help) {
    process.stdout.write(scaffoldUsage() + "\n");
    return 0;
  }
  if (positionals.length !== 1) {
    process.stderr.write(`protoc-gen-a2a-http scaffold: name one directory\n${scaffoldUsage()}\n`);
    return 2;
  }
  const framework = values.framework as ServerFramework;
  if (!serverFrameworks.includes(framework)) {
    process.stderr.write(`protoc-gen-a2a-http scaffold: unknown framework "${framework}"; choose one of ${serverFrameworks.join(", ")}\n`);
    return 2;
  }
  const port = values.port === undefined ? undefined : Number(values.port);
  if (port !== undefined && !(Number.isInteger(port) && port > 0 && port < 65535)) {
    process.stderr.write(
      `protoc-gen-a2a-http scaffold: --port must be a port number below 65535 (gRPC takes the next), not "${values.port}"\n`,
    );
    return 2;
  }
  const proto = values.proto ?? defaultProto();
  if (!proto) {
    process.stderr.write("protoc-gen-a2a-http scaffold: this install has no a2a.proto; pass --proto path/to/a2a.proto\n");
    return 2;
  }
  try {
    const {
      files: written,
      left,
      merged,
      packages,
    } = scaffold({
      dir: positionals[0]!,
      framework,
      proto,
      service: values.service,
      force: values.force,
      from: values.from,
      port,
    });
    const list = (names: string[]) => names.map((f) => `  ${f}${f === "package.json" && merged ? " (merged into yours)" : ""}\n`).join("");
    const count = (n: number) => `${n} file${n === 1 ? "" : "s"}`;
    process.stdout.write(`wrote ${count(written.length)} into ${positionals[0]}:\n${list(written)}`);
    if (left.length > 0) process.stdout.write(`left ${count(left.length)} of yours as they were:\n${list(left)}`);
    process.stdout.write(`a2a-http and protoc-gen-a2a-http come from ${describe(packages)}\n`);
    process.stdout.write(`next: cd ${positionals[0]} && npm install && npm start\n`);
    return 0;
  } catch (e) {
    if (e instanceof ScaffoldError || (e instanceof Error && e.name === "HttpRuleError")) {
      process.stderr.write(`protoc-gen-a2a-http scaffold: ${e.message}\n`);
      return 1;
    }
    throw e;
  }
}
