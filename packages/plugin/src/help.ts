import { optionsUsage } from "./options.js";
import { scaffoldUsage } from "./scaffold/cli.js";
import { version } from "./version.js";

/** What `protoc-gen-a2a-http --help` prints: how to run it, its options and defaults, and the scaffold. */
export function usage(): string {
  return `protoc-gen-a2a-http ${version}: a protoc/buf plugin that writes typed routes, Express,
Fastify and Hono servers, a fetch client (and the JSON-RPC and gRPC bindings, an
OpenAPI document) from the google.api.http rules of your protos.

protoc and buf run it with a CodeGeneratorRequest on stdin; you do not run it
by hand. In buf.gen.yaml:

  plugins:
    - local: protoc-gen-es
      out: src/gen
      opt: [target=ts, import_extension=js]
    - local: protoc-gen-a2a-http
      out: src/gen
      opt: [target=ts, profile=a2a, server=express]

or with protoc: --a2a-http_out=src/gen --a2a-http_opt=target=ts,profile=a2a

options (opt:, comma-separated under protoc):
${optionsUsage()}
  and protoplugin's target=ts|js|dts (default js+dts), import_extension (default js),
  js_import_style, keep_empty_files, ts_nocheck, elide_plugin_version, rewrite_imports

commands:
  protoc-gen-a2a-http scaffold <dir> ...   a new agent project (see below)
  protoc-gen-a2a-http --help, -h           this text
  protoc-gen-a2a-http --version            the version

${scaffoldUsage()}`;
}
