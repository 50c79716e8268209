import type { DescFile, DescMessage, DescService } from "@bufbuild/protobuf";
import type { Schema } from "@bufbuild/protoplugin";
import type { ServiceRoutes } from "../httprule/service.js";
import type { PluginOptions } from "../options.js";
import { createDescImports, runtimeModules } from "./imports.js";

/** The messages of an A2A service that the engine's API is typed with. */
interface A2AMessages {
  readonly message: DescMessage;
  readonly task: DescMessage;
  readonly part: DescMessage;
  readonly artifact: DescMessage;
  readonly card: DescMessage | undefined;
}

/**
 * The messages `create<Service>Agent` is typed with, found the way the
 * runtime's engine finds them (SendMessage's response has `task` and
 * `message`); undefined for a service that is not A2A's.
 */
export function a2aMessagesOf(service: DescService): A2AMessages | undefined {
  const field = (d: DescMessage | undefined, name: string) => d?.fields.find((f) => f.localName === name)?.message;
  const send = service.methods.find((m) => m.localName === "sendMessage");
  const task = field(send?.output, "task");
  const message = field(send?.output, "message");
  const part = field(message, "parts");
  const artifact = field(task, "artifacts");
  if (!task || !message || !part || !artifact || !field(task, "status")) return undefined;
  const hasStream = service.methods.some((m) => m.localName === "sendStreamingMessage" || m.localName === "subscribeToTask");
  if (!hasStream) return undefined;
  const card = service.methods.find((m) => m.localName === "getExtendedAgentCard")?.output;
  return { message, task, part, artifact, card };
}

/**
 * `<file>_http_agent.ts` (profile=a2a, for A2A's service): the task engine of
 * `a2a-http/agent` bound to the user's own generated types, as
 * `create<Service>Agent(executor, options)` returning the service's handlers.
 * The engine itself is schema-generic, so a newer a2a.proto with additive
 * changes needs only regeneration, not a new runtime.
 */
export function emitAgentFile(schema: Schema<PluginOptions>, file: DescFile, services: readonly ServiceRoutes[]): void {
  const a2a = services.flatMap(({ service }) => {
    const m = a2aMessagesOf(service);
    return m ? [{ service, m }] : [];
  });
  if (a2a.length === 0) return;
  const f = schema.generateFile(file.name + "_http_agent.ts");
  f.preamble(file);
  const agentModule = runtimeModules(schema.options.runtimeImport).agent;
  const createAgentHandlers = f.import("createAgentHandlers", agentModule);
  const AgentExecutor = f.import("AgentExecutor", agentModule, true);
  const AgentOptions = f.import("AgentOptions", agentModule, true);
  const AgentControl = f.import("AgentControl", agentModule, true);
  const HandlerContext = f.import("HandlerContext", schema.options.runtimeImport, true);
  const MessageInitShape = f.import("MessageInitShape", "@bufbuild/protobuf", true);
  const imports = createDescImports(f);
  for (const { service, m } of a2a) {
    const name = service.name;
    const Handlers = f.import(name + "Handlers", `./${file.name}_http.js`, true);
    const Types = name + "AgentTypes";
    f.print("/** The generated types of ", name, " that its agent's executor works with. */");
    f.print(f.export("interface", Types), "<Ctx extends ", HandlerContext, " = ", HandlerContext, "> {");
    f.print("  readonly message: ", imports.shape(m.message), ";");
    f.print("  readonly task: ", imports.shape(m.task), ";");
    f.print("  readonly part: ", MessageInitShape, "<typeof ", imports.typeSchema(m.part), ">;");
    f.print("  readonly artifact: ", MessageInitShape, "<typeof ", imports.typeSchema(m.artifact), ">;");
    f.print("  readonly context: Ctx;");
    f.print("}");
    f.print();
    f.print("/** What an agent of ", name, " does with a message: see `AgentExecutor` in a2a-http/agent. */");
    f.print(
      f.export("type", name + "Executor"),
      "<Ctx extends ",
      HandlerContext,
      " = ",
      HandlerContext,
      "> = ",
      AgentExecutor,
      "<",
      Types,
      "<Ctx>>;",
    );
    f.print();
    const card = m.card ? imports.shape(m.card) : undefined;
    f.print(
      f.export("type", name + "AgentOptions"),
      "<Ctx extends ",
      HandlerContext,
      " = ",
      HandlerContext,
      "> = ",
      AgentOptions,
      "<",
      Types,
      "<Ctx>",
      ...(card ? [", ", card] : []),
      ">;",
    );
    f.print();
    f.print("/**");
    f.print(" * The handlers of ", name, " on the A2A task engine: every rpc, on every");
    f.print(" * adapter and transport, from `executor`. Call `close()` on shutdown.");
    f.print(" */");
    f.print(f.export("function", "create" + name + "Agent"), "<Ctx extends ", HandlerContext, " = ", HandlerContext, ">(");
    f.print("  executor: ", name, "Executor<Ctx>,");
    f.print("  options: ", name, "AgentOptions<Ctx>,");
    f.print("): ", Handlers, "<Ctx> & ", AgentControl, " {");
    f.print(
      "  return ",
      createAgentHandlers,
      "(",
      imports.schema(service),
      ", executor, options) as unknown as ",
      Handlers,
      "<Ctx> & ",
      AgentControl,
      ";",
    );
    f.print("}");
    f.print();
  }
}
