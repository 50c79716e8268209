import { toJson, type JsonValue } from "@bufbuild/protobuf";
import type { HandlerContext, RouteBinding } from "a2a-http";

/** One handler call, as the handler saw it. */
export interface Call {
  readonly rpc: string;
  /** The decoded request, as ProtoJSON. */
  readonly request: JsonValue;
  readonly tenant: string | undefined;
  readonly extensions: readonly string[];
}

/**
 * A handlers object for every rpc of `routes` that records each call and
 * answers from `answers` (a message init shape, or a list of them for a
 * server stream).
 */
export function recordingHandlers(
  routes: readonly RouteBinding[],
  answers: Record<string, unknown>,
): { handlers: Record<string, (req: never, ctx: HandlerContext) => unknown>; calls: Call[] } {
  const calls: Call[] = [];
  const handlers: Record<string, (req: never, ctx: HandlerContext) => unknown> = {};
  for (const r of routes) {
    if (handlers[r.rpc]) continue;
    const record = (req: never, ctx: HandlerContext) =>
      calls.push({ rpc: r.rpc, request: toJson(r.input, req), tenant: ctx.tenant, extensions: ctx.extensions });
    if (r.streaming === "server") {
      handlers[r.rpc] = (req, ctx) => {
        record(req, ctx);
        const events = (answers[r.rpc] ?? []) as unknown[];
        return (async function* () {
          for (const e of events) yield e;
        })();
      };
    } else {
      handlers[r.rpc] = (req, ctx) => {
        record(req, ctx);
        return answers[r.rpc] ?? {};
      };
    }
  }
  return { handlers, calls };
}

/** A raw HTTP exchange's outcome. */
export interface Outcome {
  status: number;
  headers: Headers;
  text: string;
  json: unknown;
}

export async function send(
  url: string,
  init: { method?: string; headers?: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> } = {},
): Promise<Outcome> {
  const res = await fetch(url, { method: init.method ?? "GET", headers: init.headers ?? {}, body: init.body ?? null });
  const text = await res.text();
  let json: unknown;
  try {
    json = text === "" ? undefined : JSON.parse(text);
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, text, json };
}

/** The `data:` payloads and `event:` names of an SSE body. */
export function parseSse(text: string): { event: string; data: unknown }[] {
  const out: { event: string; data: unknown }[] = [];
  for (const block of text.split(/\r?\n\r?\n/)) {
    if (block.trim() === "") continue;
    let event = "message";
    const data: string[] = [];
    for (const line of block.split(/\r?\n/)) {
      if (line.startsWith("event:")) event = line.slice(6).trim();
      else if (line.startsWith("data:")) data.push(line.slice(5).replace(/^ /, ""));
    }
    out.push({ event, data: JSON.parse(data.join("\n")) });
  }
  return out;
}
