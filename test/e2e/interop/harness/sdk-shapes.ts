/** Helpers for the SDK's (ts-proto) data shapes, shared by the tests that drive the SDK's clients. */
import { Role } from "@a2a-js/sdk";
import type { Message as SdkMessage, Task as SdkTask } from "@a2a-js/sdk";
import { a2aError } from "a2a-http";
import type { A2AServiceHandlers } from "../../../../gen/a2a_http.js";

/** A user message in the SDK's (ts-proto) shape. */
export function sdkMessage(text: string, extra: Partial<SdkMessage> = {}): SdkMessage {
  return {
    messageId: crypto.randomUUID(),
    role: Role.ROLE_USER,
    parts: [{ content: { $case: "text", value: text } }],
    ...extra,
  } as SdkMessage;
}

/** The SDK's (ts-proto) request types want every field; the tests give only what matters. */
export const req = (x: object): never => x as never;

export function artifactTexts(task: SdkTask): string[] {
  return (task.artifacts ?? []).flatMap((a) => a.parts.map((p) => (p.content?.$case === "text" ? String(p.content.value) : "")));
}

export function isMessage(x: SdkTask | SdkMessage): x is SdkMessage {
  return "messageId" in x;
}

export async function drain<T>(iterable: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of iterable) out.push(e);
  return out;
}

/**
 * Our agent plus one rpc behaviour the example lacks: a stream whose text is
 * `/boom` sends the task and then fails with an A2A error, so the SDK sees a
 * stream error after the stream has started.
 */
export function withFailingStream(agent: A2AServiceHandlers): A2AServiceHandlers {
  return {
    ...agent,
    async *sendStreamingMessage(request, ctx) {
      const part = request.message?.parts[0]?.content;
      if (part?.case === "text" && part.value === "/boom") {
        yield { payload: { case: "task", value: { id: "boom-task", contextId: "boom", status: { state: 2 } } } };
        throw a2aError("UNSUPPORTED_OPERATION", "the stream broke on purpose", { taskId: "boom-task" });
      }
      yield* agent.sendStreamingMessage(request, ctx);
    },
  };
}
