import type { DescFile } from "@bufbuild/protobuf";
import type { GeneratedFile, Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions, ServerFramework } from "../options.js";
import { adapterOptionsExpression } from "./adapter-options.js";
import { runtimeModules } from "./imports.js";
import { emitJsonRpcAdapter } from "./jsonrpc.js";
import { lowerFirstWord } from "./names.js";

/**
 * `<file>_http_{express,fastify,hono}.ts`, for the frameworks in
 * `schema.options.servers`. Each adapter only converts between its framework
 * and the runtime's core (`createNodeHandler`, `registerFastifyService`,
 * `createFetchHandler`): one router and one codec for all three, no framework
 * route syntax.
 */
export function emitServerFiles(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  for (const framework of schema.options.servers) {
    const f = schema.generateFile(`${file.name}_http_${framework}.ts`);
    f.preamble(file);
    for (const routes of services) {
      emitAdapter(f, schema, file, routes, framework);
      emitJsonRpcAdapter(f, schema, file, routes, framework);
    }
  }
}

function emitAdapter(
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
  const ServerOptions = f.import("ServerOptions", runtime.server, true);
  const base = lowerFirstWord(service.name);
  const opts = (from: string) => adapterOptionsExpression(f, schema, file, from);
  switch (framework) {
    case "express": {
      const Router = f.import("Router", "express");
      const Request = f.import("Request", "express", true);
      const createNodeHandler = f.import("createNodeHandler", runtime.node);
      const nodeMiddleware = f.import("nodeMiddleware", runtime.node);
      f.print("/**");
      f.print(` * Serves ${service.typeName} on Express 5: \`app.use("/prefix", ${base}Express(handlers))\`.`);
      f.print(" * Every request below the mount point goes through the service's router;");
      f.print(" * a method missing from `handlers` answers UNIMPLEMENTED.");
      f.print(" */");
      f.print(f.export("function", base + "Express"), "<Ctx extends ", HandlerContext, " = ", HandlerContext, ">(");
      f.print("  handlers: Partial<", Handlers, "<Ctx>>,");
      f.print("  options: ", ServerOptions, "<Ctx, ", Request, "> = {},");
      f.print("): ", Router, " {");
      f.print("  const router = ", Router, "();");
      f.print("  router.use(", nodeMiddleware, "(", createNodeHandler, "(", Routes, ", handlers, ", opts("options"), ")));");
      f.print("  return router;");
      f.print("}");
      f.print();
      break;
    }
    case "fastify": {
      const FastifyInstance = f.import("FastifyInstance", "fastify", true);
      const FastifyRequest = f.import("FastifyRequest", "fastify", true);
      const registerFastifyService = f.import("registerFastifyService", runtime.fastify);
      const Options = service.name + "FastifyOptions";
      f.print("/** What `", base, "Fastify` is registered with: the handlers and the adapter options. */");
      f.print(
        f.export("interface", Options),
        "<Ctx extends ",
        HandlerContext,
        " = ",
        HandlerContext,
        "> extends ",
        ServerOptions,
        "<Ctx, ",
        FastifyRequest,
        "> {",
      );
      f.print("  readonly handlers: Partial<", Handlers, "<Ctx>>;");
      f.print("}");
      f.print();
      f.print("/**");
      f.print(` * Serves ${service.typeName} on Fastify 5, as a plugin:`);
      f.print(` * \`app.register(${base}Fastify, { prefix: "/prefix", handlers })\`.`);
      f.print(" * The plugin reads request bodies itself, in its own encapsulated context,");
      f.print(" * so the application's content-type parsers are left alone.");
      f.print(" */");
      f.print(f.export("function", base + "Fastify"), "<Ctx extends ", HandlerContext, " = ", HandlerContext, ">(");
      f.print("  fastify: ", FastifyInstance, ",");
      f.print("  options: ", Options, "<Ctx>,");
      f.print("  done: (err?: Error) => void,");
      f.print("): void {");
      f.print("  const { handlers, ...rest } = options;");
      f.print("  try {");
      f.print("    ", registerFastifyService, "(fastify, ", Routes, ", handlers, ", opts("rest"), ");");
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
      const createFetchHandler = f.import("createFetchHandler", runtime.server);
      f.print("/**");
      f.print(` * Serves ${service.typeName} on Hono 4: \`app.route("/prefix", ${base}Hono(handlers))\`.`);
      f.print(" * Works on web-standard Request and Response, so it runs on Node, Bun, Deno");
      f.print(" * and Workers alike.");
      f.print(" */");
      f.print(f.export("function", base + "Hono"), "<Ctx extends ", HandlerContext, " = ", HandlerContext, ">(");
      f.print("  handlers: Partial<", Handlers, "<Ctx>>,");
      f.print("  options: ", ServerOptions, "<Ctx, ", Context, "> = {},");
      f.print("): ", Hono, " {");
      f.print("  const handle = ", createFetchHandler, "(", Routes, ", handlers, ", opts("options"), ");");
      f.print("  const app = new ", Hono, "();");
      f.print('  app.all("*", (c) => handle(c.req.raw, { routePattern: c.req.routePath, native: c }));');
      f.print("  return app;");
      f.print("}");
      f.print();
      break;
    }
  }
}
