/**
 * The conformance agent: the executor that the A2A TCK's system-under-test
 * contract asks for (../shared/tck/README.md, "The SUT contract"). The TCK
 * steers it by the prefix of the messageIds it sends; every other message
 * gets the example agent's echo. `restricted` is the second card of the
 * README's "Capabilities and the second card": no streaming, push or
 * extended card, and an extension every request must name.
 */
import { create, fromJson } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { AgentCardSchema, type AgentCard } from "../gen/a2a_pb.js";
import type { A2AServiceAgentTypes, A2AServiceExecutor } from "../gen/a2a_http_agent.js";
import { agentInterfaces, type ExampleInterfaces } from "./agent.js";

type Part = A2AServiceAgentTypes["part"];
type Updater = Parameters<A2AServiceExecutor>[1];
type Script = (task: Updater, signal: AbortSignal) => Promise<void>;

const text = (value: string): Part => ({ content: { case: "text", value } });
const file: Part = {
  content: { case: "raw", value: new TextEncoder().encode("file content\n") },
  filename: "output.txt",
  mediaType: "text/plain",
};
const fileUrl: Part = {
  content: { case: "url", value: "https://example.com/output.txt" },
  filename: "output.txt",
  mediaType: "text/plain",
};
const data: Part = { content: { case: "data", value: fromJson(ValueSchema, { key: "value", count: 42 }) } };

/** What the agent does for a messageId prefix; longest prefix first. */
const scripts: [prefix: string, run: Script][] = [
  [
    "tck-stream-artifact-chunked",
    async (t) => {
      await t.working();
      const artifactId = crypto.randomUUID();
      await t.artifact({ artifactId, parts: [text("chunk-1 ")] });
      await t.artifact({ artifactId, parts: [text("chunk-2")] }, { append: true, lastChunk: true });
      await t.complete();
    },
  ],
  ["tck-stream-artifact-text", (t) => streamed(t, { parts: [text("Streamed text content")] })],
  ["tck-stream-artifact-file", (t) => streamed(t, { parts: [file] })],
  ["tck-stream-ordering-001", (t) => streamed(t, { parts: [text("Ordered output")] })],
  ["tck-stream-001", (t) => streamed(t, { parts: [text("Stream hello from TCK")] })],
  ["tck-stream-003", (t) => streamed(t, { parts: [text("Stream task lifecycle")] })],
  ["tck-stream-002", (t) => t.complete()],
  ["tck-artifact-file-url", (t) => t.complete({ parts: [fileUrl] })],
  ["tck-artifact-file", (t) => t.complete({ parts: [file] })],
  ["tck-artifact-text", (t) => t.complete({ parts: [text("Generated text content")] })],
  ["tck-artifact-data", (t) => t.complete({ parts: [data] })],
  ["tck-message-response", (t) => t.reply("Direct message response")],
  ["tck-input-required", (t) => t.askForInput("The TCK asked for input: send a follow-up.")],
  ["tck-complete-task", (t) => t.complete("Hello from TCK")],
  ["tck-reject-task", (t) => t.reject("rejected")],
  [
    "test-resubscribe-message-id",
    async (t, signal) => {
      await t.working();
      // The v0.3 TCK resubscribes after its own streaming timeout (2 s) and again after twice that.
      await new Promise((r) => setTimeout(r, 5_000));
      if (!signal.aborted) await t.complete();
    },
  ],
];

async function streamed(t: Updater, artifact: { parts: Part[] }): Promise<void> {
  await t.working();
  await t.artifact(artifact, { lastChunk: true });
  await t.complete();
}

/**
 * The TCK's agent: by messageId prefix, else an echo. A v0.3 request (the
 * v0.3 TCK's, ../shared/tck-v03/README.md, "SUT contract") gets its echo on a
 * task left open, INPUT_REQUIRED: that suite sends follow-ups on the task it
 * got and then cancels it, where the v1.0 suite wants it COMPLETED.
 */
export const conformanceExecutor: A2AServiceExecutor = async ({ message, text: said, signal, context }, task) => {
  const script = scripts.find(([prefix]) => message.messageId.startsWith(prefix));
  if (script) return script[1](task, signal);
  if (context.a2aDialect === "0.3") return task.askForInput(`echo: ${said}`);
  return task.complete(`echo: ${said}`);
};

/** The extension the restricted card requires (CORE-CAP-004). */
export const REQUIRED_EXTENSION = "urn:a2a:tck:required-extension";

/** The conformance agent's card; `restricted` turns the capabilities off and requires {@link REQUIRED_EXTENSION}. */
export function conformanceCard(url: string, tenant = "", more: ExampleInterfaces = {}, restricted = false): AgentCard {
  return create(AgentCardSchema, {
    name: restricted ? "TCK agent (restricted)" : "TCK agent",
    description: "The A2A TCK's system under test, on the task engine of protoc-gen-a2a-http.",
    version: "1.0.0",
    supportedInterfaces: agentInterfaces(url, tenant, more),
    capabilities: restricted
      ? {
          streaming: false,
          pushNotifications: false,
          extendedAgentCard: false,
          extensions: [{ uri: REQUIRED_EXTENSION, required: true, description: "Required by the TCK's gated tests." }],
        }
      : { streaming: true, pushNotifications: true, extendedAgentCard: true },
    defaultInputModes: ["text/plain", "application/json"],
    defaultOutputModes: ["text/plain", "application/json"],
    skills: [{ id: "tck", name: "TCK", description: "Acts on the TCK's messageId prefixes.", tags: ["tck"] }],
  });
}
