import { create, type DescFile } from "@bufbuild/protobuf";
import { CodeGeneratorResponse_FileSchema } from "@bufbuild/protobuf/wkt";
import type { Plugin } from "@bufbuild/protoplugin";
import { emitAgentFile } from "./emit/agent.js";
import { emitClientFile } from "./emit/client.js";
import { emitConnectFile } from "./emit/connect.js";
import { openApiFiles, type ExtraFile } from "./emit/openapi-file.js";
import { emitJsonCodecFile } from "./emit/json-codec.js";
import { emitLeanClientFile } from "./emit/lean-client.js";
import { emitRoutesFile } from "./emit/routes.js";
import { emitServerFiles } from "./emit/server.js";
import { emitStubFile } from "./emit/stub.js";
import { describeConflict, readServiceRoutes, type ServiceRoutes } from "./httprule/service.js";
import { HttpRuleError } from "./httprule/bindings.js";
import { parseOptions, type PluginOptions } from "./options.js";
import { protoplugin } from "./protoplugin.js";
import { speedUp } from "./schema-speedups.js";
import { withStandardDefaults } from "./standard-options.js";
import { transpile } from "./transpile.js";
import { version } from "./version.js";

/** Where warnings go (conflicts, rpcs left out, templates Envoy rejects); tests replace it. */
export const diagnostics = { warn: (line: string) => void process.stderr.write(line + "\n") };

// The OpenAPI documents are JSON or YAML, which protoplugin's GeneratedFile
// would treat as TypeScript (transpiled for target=js, "use strict" for
// legacy_commonjs); generateTs collects them here and run() adds them.
let extraFiles: ExtraFile[] = [];

const generator = protoplugin.createEcmaScriptPlugin<PluginOptions>({
  name: "protoc-gen-a2a-http",
  version: `v${version}`,
  parseOptions,
  transpile,
  generateTs(schema) {
    speedUp(schema);
    for (const file of schema.files) {
      const services = readServices(file, schema.options);
      if (services.length === 0) continue;
      for (const routes of services) {
        for (const c of routes.conflicts) {
          const line = `${file.name}.proto: ${routes.service.typeName}: ${describeConflict(routes, c)}`;
          if (schema.options.conflicts === "error") throw new HttpRuleError(`overlapping templates: ${line}`);
          if (schema.options.conflicts === "warn") diagnostics.warn(`protoc-gen-a2a-http: warning: ${line}`);
        }
      }
      const codecs = schema.options.jsonCodec ? emitJsonCodecFile(schema, file, services) : new Map();
      emitRoutesFile(schema, file, services, codecs);
      if (schema.options.servers.length > 0) emitServerFiles(schema, file, services);
      if (schema.options.stub) emitStubFile(schema, file, services);
      if (schema.options.agent && schema.options.profile === "a2a") emitAgentFile(schema, file, services);
      if (schema.options.leanClient) emitLeanClientFile(schema, file, services);
      else if (schema.options.client) emitClientFile(schema, file, services);
      if (schema.options.connect) emitConnectFile(schema, file, services);
      if (schema.options.openapi.length > 0) extraFiles.push(...openApiFiles(schema, file, services));
    }
  },
});

/** The protoc-gen-a2a-http plugin. */
export const plugin: Plugin = {
  name: generator.name,
  version: generator.version,
  run(request) {
    extraFiles = [];
    try {
      const response = generator.run({ ...request, parameter: withStandardDefaults(request.parameter) });
      for (const f of extraFiles) response.file.push(create(CodeGeneratorResponse_FileSchema, f));
      return response;
    } finally {
      extraFiles = [];
    }
  },
};

/**
 * The file's services that have bindings; what was left out, or will not run
 * behind Envoy, goes to the warnings. An rpc without a google.api.http rule
 * is left out with a warning that says how to bind it (nothing silent: a
 * proto without rules would otherwise generate nothing and exit 0). Under
 * profile=a2a it is an error in A2A's service (whose binding gives every rpc
 * a rule) and when the file has services but no rule at all; elsewhere (other
 * services generated beside A2A's, as this repository's test protos are) it
 * stays a warning.
 */
function readServices(file: DescFile, options: PluginOptions): ServiceRoutes[] {
  const read = { streaming: options.streaming, sameShape: options.sameShape };
  const services = file.services.map((s) => readServiceRoutes(s, read));
  const noneBound = services.every((s) => s.bindings.length === 0);
  for (const { service, warnings, unbound } of services) {
    const where = `${file.name}.proto: ${service.typeName}`;
    for (const rpc of unbound) {
      const line =
        `${where}.${rpc.name} has no google.api.http rule, so it is left out of the routes, servers and client; ` +
        `bind it with option (google.api.http) = { post: "/v1/${service.name}/${rpc.name}" body: "*" }; ` +
        `(import "google/api/annotations.proto")`;
      if (options.profile === "a2a" && (service.name === "A2AService" || noneBound)) throw new HttpRuleError(`profile=a2a: ${line}`);
      diagnostics.warn(`protoc-gen-a2a-http: warning: ${line}`);
    }
    for (const w of warnings) diagnostics.warn(`protoc-gen-a2a-http: warning: ${where}: ${w}`);
  }
  return services.filter((s) => s.bindings.length > 0);
}
