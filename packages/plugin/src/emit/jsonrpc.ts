import type { DescFile } from "@bufbuild/protobuf";
import type { GeneratedFile, Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions, ServerFramework } from "../options.js";
import { adapterOptionsExpression } from "./adapter-options.js";
import { runtimeModules } from "./imports.js";
import { lowerFirstWord } from "./names.js";

/**
 * The JSON-RPC 2.0 adapter of one service for one framework, printed into
 * the framework's server file beside the HTTP+JSON adapter: the same
 * handlers and route table, served by the runtime's `createJsonRpcHandler`
 * at the adapter's mount point.
 */
export function emitJsonRpcAdapter(
  f: GeneratedFile,
  schema: Schema<PluginOptions>,
  file: DescFile,
  { service }: ServiceRoutes,
  framework: ServerFramework,
): void {
  const runtime = runtimeModules(schema.options.runtimeImport);
  const Routes = f.import(service.name + "Routes", `./${file.name}_http.js`);
  const Handlers = f.import(service.name + "Handlers", `./${file.name}_http.js`, true);
  const HandlerContext = f.import("HandlerContext", runtime.root, true);
  const Options = f.import("JsonRpcServerOptions", runtime.jsonrpc, true);
  const createJsonRpcHandler = f.import("createJsonRpcHandler", runtime.jsonrpc);
  const base = lowerFirstWord(service.name) + "JsonRpc";
  const core = [createJsonRpcHandler, "(", Routes, ", handlers, ", adapterOptionsExpression(f, schema, file, "options"), ")"];
  const generic = ["<Ctx extends ", HandlerContext, " = ", HandlerContext, ">"];
  switch (framework) {
    case "express": {
      const Router = f.import("Router", "express");
      const Request = f.import("Request", "express", true);
      const nodeMiddleware = f.import("nodeMiddleware", runtime.node);
      const nodeHandlerOf = f.import("nodeHandlerOf", runtime.node);
      f.print("/**");
      f.print(` * Serves ${service.typeName} over JSON-RPC 2.0 on Express 5, with the same handlers:`);
      f.print(` * \`app.use("/jsonrpc", ${base}Express(handlers))\`; clients POST to the mount point.`);
      f.print(" */");
      f.print(f.export("function", base + "Express"), ...generic, "(");
      f.print("  handlers: Partial<", Handlers, "<Ctx>>,");
      f.print("  options: ", Options, "<Ctx, ", Request, "> = {},");
      f.print("): ", Router, " {");
      f.print("  const router = ", Router, "();");
      f.print("  router.use(", nodeMiddleware, "(", nodeHandlerOf, "(", ...core, ")));");
      f.print("  return router;");
      f.print("}");
      f.print();
      break;
    }
    case "fastify": {
      const FastifyInstance = f.import("FastifyInstance", "fastify", true);
      const FastifyRequest = f.import("FastifyRequest", "fastify", true);
      const registerFastifyHandler = f.import("registerFastifyHandler", runtime.fastify);
      const PluginOptions = service.name + "JsonRpcFastifyOptions";
      f.print("/** What `", base, "Fastify` is registered with: the handlers and the adapter options. */");
      f.print(f.export("interface", PluginOptions), ...generic, " extends ", Options, "<Ctx, ", FastifyRequest, "> {");
      f.print("  readonly handlers: Partial<", Handlers, "<Ctx>>;");
      f.print("}");
      f.print();
      f.print("/**");
      f.print(` * Serves ${service.typeName} over JSON-RPC 2.0 on Fastify 5, as a plugin:`);
      f.print(` * \`app.register(${base}Fastify, { prefix: "/jsonrpc", handlers })\`; clients POST to the prefix.`);
      f.print(" */");
      f.print(f.export("function", base + "Fastify"), ...generic, "(");
      f.print("  fastify: ", FastifyInstance, ",");
      f.print("  options: ", PluginOptions, "<Ctx>,");
      f.print("  done: (err?: Error) => void,");
      f.print("): void {");
      f.print("  const { handlers, ...rest } = options;");
      const restCore = [createJsonRpcHandler, "(", Routes, ", handlers, ", adapterOptionsExpression(f, schema, file, "rest"), ")"];
      f.print("  try {");
      f.print("    ", registerFastifyHandler, "(fastify, ", ...restCore, ', ["POST"]);');
      f.print("  } catch (e) {");
      f.print("    // A bad option: register() and ready() reject with it (thrown here, it would escape Fastify uncaught).");
      f.print("    return done(e as Error);");
      f.print("  }");
      f.print("  done();");
      f.print("}");
      f.print();
      break;
    }
    case "hono": {
      const Hono = f.import("Hono", "hono");
      const Context = f.import("Context", "hono", true);
      const fetchHandlerOf = f.import("fetchHandlerOf", runtime.server);
      f.print("/**");
      f.print(` * Serves ${service.typeName} over JSON-RPC 2.0 on Hono 4, with the same handlers:`);
      f.print(` * \`app.route("/jsonrpc", ${base}Hono(handlers))\`; clients POST to the mount point.`);
      f.print(" */");
      f.print(f.export("function", base + "Hono"), ...generic, "(");
      f.print("  handlers: Partial<", Handlers, "<Ctx>>,");
      f.print("  options: ", Options, "<Ctx, ", Context, "> = {},");
      f.print("): ", Hono, " {");
      f.print("  const handle = ", fetchHandlerOf, "(", ...core, ");");
      f.print("  const app = new ", Hono, "();");
      f.print('  app.all("*", (c) => handle(c.req.raw, { routePattern: c.req.routePath, native: c }));');
      f.print("  return app;");
      f.print("}");
      f.print();
      break;
    }
  }
}
