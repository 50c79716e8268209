import { Code, RpcError } from "../errors.js";
import { decodeChunks } from "../utf8.js";

/** The largest unary response body the client reads unless told otherwise: 8 MiB. */
export const DEFAULT_MAX_RESPONSE_SIZE = 8 * 1024 * 1024;

/**
 * Reads a response body as UTF-8 text, at most `limit` bytes: a bigger one
 * (declared or as it arrives) is cancelled and fails with RESOURCE_EXHAUSTED,
 * so a hostile or broken server cannot make the client buffer without bound.
 * A failure while reading (a reset mid-body) rejects with that error, for the
 * caller to map.
 */
export async function readBounded(res: Response, limit: number, what: string): Promise<string> {
  const tooLarge = () => new RpcError(Code.RESOURCE_EXHAUSTED, `${what} is larger than ${limit} bytes`, [], { httpStatus: res.status });
  const declared = Number(res.headers.get("content-length"));
  if (declared > limit) {
    res.body?.cancel().catch(() => {});
    throw tooLarge();
  }
  const body = res.body;
  if (body === null) return "";
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const r = await reader.read();
    if (r.done) break;
    size += r.value.byteLength;
    if (size > limit) {
      reader.cancel().catch(() => {});
      throw tooLarge();
    }
    chunks.push(r.value);
  }
  return decodeChunks(chunks, size);
}

/** JSON.parse's value, or undefined for text that is not JSON. */
export function jsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** The JSON of an answer's text (`what`: "the response", "a stream event"); text that is not JSON is the server's fault: INTERNAL. */
export function answerJson(rpc: string, text: string, status: number, what: string): unknown {
  try {
    return JSON.parse(text);
  } catch (cause) {
    throw new RpcError(Code.INTERNAL, `${rpc}: ${what} is not JSON: ${text.slice(0, 200)}`, [], { httpStatus: status, cause });
  }
}
