/**
 * Talks to the example agent with the generated client:
 *
 *     tsx example/client.ts [--url http://127.0.0.1:41241] [--tenant name]
 *
 * It reads the agent card, picks the binding to call from it (HTTP+JSON, else
 * JSON-RPC), sends a message, streams a longer task, lists tasks, and shows
 * how an A2A error arrives.
 */
import { fromJson } from "@bufbuild/protobuf";
import { parseArgs } from "node:util";
import { A2A_DEFAULT_VERSIONS, A2A_VERSION_HEADER, isRpcError } from "a2a-http";
import { pickTransport } from "a2a-http/client";
import { createA2AServiceClient } from "../gen/a2a_http_client.js";
import { AgentCardSchema, Role, TaskState } from "../gen/a2a_pb.js";

const { values } = parseArgs({
  options: { url: { type: "string", default: "http://127.0.0.1:41241" }, tenant: { type: "string" } },
});

const cardResponse = await fetch(new URL("/.well-known/agent-card.json", values.url), {
  headers: { [A2A_VERSION_HEADER]: A2A_DEFAULT_VERSIONS[0]! },
});
const card = fromJson(AgentCardSchema, await cardResponse.json(), { ignoreUnknownFields: true });
// Throws, naming what the card offers, when it has neither binding.
const { transport, baseUrl, tenant: cardTenant } = pickTransport(card, ["HTTP+JSON", "JSONRPC"]);
const tenant = values.tenant ?? cardTenant;
console.log(`agent: ${card.name}, ${transport} at ${baseUrl}${tenant ? ` (tenant ${tenant})` : ""}`);

const client = createA2AServiceClient({ transport, baseUrl, ...(tenant ? { tenant } : {}) });
const text = (t: string) => ({
  messageId: crypto.randomUUID(),
  role: Role.USER,
  parts: [{ content: { case: "text" as const, value: t } }],
});

const sent = await client.sendMessage({ message: text("hello") });
if (sent.payload.case === "task") {
  const task = sent.payload.value;
  console.log(
    `sendMessage: task ${task.id} is ${TaskState[task.status?.state ?? 0]}, artifact: ${task.artifacts[0]?.parts[0]?.content.value}`,
  );
}

for await (const event of client.sendStreamingMessage({ message: text("/work 3") })) {
  console.log(
    `stream: ${event.payload.case}`,
    event.payload.case === "statusUpdate" ? (event.payload.value.status?.message?.parts[0]?.content.value ?? "") : "",
  );
}

const list = await client.listTasks({ pageSize: 10 });
console.log(`listTasks: ${list.tasks.length} of ${list.totalSize}`);

try {
  await client.getTask({ id: "no-such-task" });
} catch (e) {
  if (!isRpcError(e)) throw e;
  console.log(`getTask of a missing task: HTTP ${e.httpStatus} ${e.status}, reason ${e.reason}`);
}
