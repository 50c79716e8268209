/**
 * A request as an A2A v0.3 client sends it over JSON-RPC (no A2A-Version,
 * which agents read as 0.3): the tests that check that an agent, wherever it
 * runs, serves v0.3 clients share it.
 */

/** A v0.3 user message of one text part. */
export function v03TextMessage(messageId: string, text: string) {
  return { kind: "message", messageId, role: "user", parts: [{ kind: "text", text }] };
}

/** POSTs a v0.3 JSON-RPC request to `url` and answers the parsed response. */
export async function v03Rpc<T = unknown>(url: string, method: string, params: unknown): Promise<{ result: T; error?: unknown }> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ jsonrpc: "2.0", id: 1, method, params }),
  });
  return (await res.json()) as { result: T; error?: unknown };
}
