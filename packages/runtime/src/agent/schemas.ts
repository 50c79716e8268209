/**
 * The message schemas the engine makes and reads, found through the user's
 * own A2A service descriptor (the engine never imports a generated
 * a2a_pb.ts): one place that says which rpc and field each comes from, and
 * refuses at creation a service that is not A2A's.
 */
import type { DescMessage, DescService } from "@bufbuild/protobuf";

/** The schemas the engine creates messages of, found from the service's methods. */
export interface Schemas {
  readonly task: DescMessage;
  readonly status: DescMessage;
  readonly message: DescMessage;
  readonly artifact: DescMessage;
  readonly stream: DescMessage;
  readonly pushConfig: DescMessage | undefined;
  /** StreamResponse's payloads. */
  readonly statusUpdate: DescMessage;
  readonly artifactUpdate: DescMessage;
  readonly part: DescMessage;
}

export function schemasOf(service: DescService): Schemas {
  const method = (name: string) => service.methods.find((m) => m.localName === name);
  const field = (desc: DescMessage, name: string) => {
    const f = desc.fields.find((x) => x.localName === name);
    if (!f?.message) throw new Error(`${desc.typeName} has no message field ${name}: is ${service.typeName} A2A's service?`);
    return f.message;
  };
  const send = method("sendMessage");
  if (!send) throw new Error(`${service.typeName} has no SendMessage rpc: is it A2A's service?`);
  const task = field(send.output, "task");
  const stream = method("sendStreamingMessage")?.output ?? method("subscribeToTask")?.output;
  if (!stream) throw new Error(`${service.typeName} has no streaming rpc to take StreamResponse from`);
  const message = field(send.output, "message");
  return {
    task,
    status: field(task, "status"),
    message,
    artifact: field(task, "artifacts"),
    stream,
    pushConfig: method("createTaskPushNotificationConfig")?.output,
    statusUpdate: field(stream, "statusUpdate"),
    artifactUpdate: field(stream, "artifactUpdate"),
    part: field(message, "parts"),
  };
}
