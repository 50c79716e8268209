/** Small helpers shared by the interop tests. */
import type { MessageInitShape } from "@bufbuild/protobuf";
import { Role, type MessageSchema, type StreamResponse } from "../../../../gen/a2a_pb.js";

/** A user message (protobuf-es init shape) whose only part is `text`. */
export function userMessage(text: string, extra: { contextId?: string; taskId?: string } = {}): MessageInitShape<typeof MessageSchema> {
  return {
    messageId: crypto.randomUUID(),
    role: Role.USER,
    parts: [{ content: { case: "text", value: text } }],
    ...extra,
  };
}

/** Reads a whole stream into an array. */
export async function collect<T>(stream: AsyncIterable<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const e of stream) out.push(e);
  return out;
}

/** The `payload.case` of each protobuf-es StreamResponse. */
export function cases(events: readonly StreamResponse[]): (string | undefined)[] {
  return events.map((e) => e.payload.case);
}

/** Awaits a promise that must reject, and returns what it rejected with. */
export async function rejection(p: Promise<unknown> | (() => Promise<unknown>)): Promise<unknown> {
  try {
    await (typeof p === "function" ? p() : p);
  } catch (e) {
    return e;
  }
  throw new Error("expected a rejection, but the call succeeded");
}

/** Pulls a stream until it fails, and returns the error (or throws if it ended cleanly). */
export async function streamFailure(stream: AsyncIterable<unknown>): Promise<{ error: unknown; before: unknown[] }> {
  const before: unknown[] = [];
  try {
    for await (const e of stream) before.push(e);
  } catch (error) {
    return { error, before };
  }
  throw new Error(`expected the stream to fail, but it ended after ${before.length} events`);
}

/** A fetch that records every request (method, URL, headers, body) before sending it. */
export interface RecordingFetch {
  readonly fetch: typeof globalThis.fetch;
  readonly calls: RecordedCall[];
}

export interface RecordedCall {
  readonly method: string;
  readonly url: string;
  readonly headers: Headers;
  readonly body: string | undefined;
  /** Filled in once the answer arrives. */
  status?: number;
  responseType?: string | null;
}

export function recordingFetch(): RecordingFetch {
  const calls: RecordedCall[] = [];
  const fetchImpl: typeof globalThis.fetch = async (input, init) => {
    const req = input instanceof Request ? input : undefined;
    const url = typeof input === "string" ? input : input instanceof URL ? input.href : input.url;
    const method = (init?.method ?? req?.method ?? "GET").toUpperCase();
    const headers = new Headers(init?.headers ?? req?.headers);
    const raw = init?.body;
    const body = raw === undefined || raw === null ? undefined : typeof raw === "string" ? raw : String(raw);
    const call: RecordedCall = { method, url, headers, body };
    calls.push(call);
    const res = await globalThis.fetch(input, init);
    call.status = res.status;
    call.responseType = res.headers.get("content-type");
    return res;
  };
  return { fetch: fetchImpl, calls };
}
