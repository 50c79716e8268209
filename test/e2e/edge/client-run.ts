/**
 * The generated client, run inside an edge runtime against a Node agent: the
 * same calls on HTTP+JSON and on JSON-RPC, their results as plain JSON for
 * the test in Node to compare (client.test.ts holds what it expects).
 */
import { isRpcError } from "a2a-http";
import { createA2AServiceClient } from "../../../gen/a2a_http_client.js";
import { Role, TaskState } from "../../../gen/a2a_pb.js";

const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});

/** What one binding's calls gave. */
async function callsOn(transport: "http+json" | "jsonrpc", baseUrl: string) {
  const client = createA2AServiceClient({ baseUrl, transport });
  const sent = await client.sendMessage({ message: text("hello") });
  const task = sent.payload.case === "task" ? sent.payload.value : undefined;
  const got = await client.getTask({ id: task?.id ?? "" });
  const streamed: string[] = [];
  for await (const event of client.sendStreamingMessage({ message: text("stream me") })) streamed.push(event.payload.case ?? "");
  let error: unknown;
  try {
    await client.getTask({ id: "no-such-task" });
  } catch (e) {
    error = isRpcError(e) ? { status: e.status, reason: e.reason } : String(e);
  }
  return {
    sent: task ? { state: TaskState[task.status?.state ?? 0], artifact: task.artifacts[0]?.parts[0]?.content.value } : sent.payload.case,
    got: TaskState[got.status?.state ?? 0],
    streamed,
    error,
  };
}

/** Reads the agent's card, then calls it on both bindings. */
export async function runClient(agentUrl: string) {
  const card = (await (await fetch(new URL("/.well-known/agent-card.json", agentUrl))).json()) as { name?: string };
  return {
    card: card.name,
    httpJson: await callsOn("http+json", agentUrl),
    jsonRpc: await callsOn("jsonrpc", `${agentUrl}/jsonrpc`),
  };
}
