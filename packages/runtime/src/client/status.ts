import { CODE_NAMES, Code, RpcError, codeFromHttpStatus, httpStatusFromCode, isErrorDetail, type ErrorDetail } from "../errors.js";
import { DEFAULT_MAX_RESPONSE_SIZE, jsonOrUndefined, readBounded } from "./body.js";
import { isJsonObject } from "../json-object.js";

/** How many characters of a non-JSON error body go into the error message. */
const SNIPPET = 200;

const codeByName: ReadonlyMap<string, Code> = new Map(CODE_NAMES.map((name, code): [string, Code] => [name, code]));

function toDetails(value: unknown): ErrorDetail[] {
  return Array.isArray(value) ? value.filter(isErrorDetail) : [];
}

/**
 * Reads a google.rpc.Status from parsed JSON, in either form servers send:
 * AIP-193 `{"error": {"code": <http>, "status": "NOT_FOUND", "message", "details"}}`
 * or the bare Status `{"code": 5, "message", "details"}` (grpc-gateway).
 * Returns undefined when the JSON is neither.
 */
export function rpcErrorFromStatusJson(json: unknown, httpStatus: number | undefined): RpcError | undefined {
  if (!isJsonObject(json)) return undefined;
  const top = json as Record<string, unknown>;
  const inner = top["error"];
  if (isJsonObject(inner)) {
    const e = inner as Record<string, unknown>;
    const httpFromBody = typeof e["code"] === "number" && e["code"] >= 400 && e["code"] <= 599 ? e["code"] : undefined;
    const status = httpStatus ?? httpFromBody;
    const named = typeof e["status"] === "string" ? codeByName.get(e["status"]) : undefined;
    const code = named ?? (status !== undefined ? codeFromHttpStatus(status) : Code.UNKNOWN);
    const message = typeof e["message"] === "string" ? e["message"] : "";
    return new RpcError(code, message, toDetails(e["details"]), { httpStatus: status ?? httpStatusFromCode(code) });
  }
  if (typeof top["code"] === "number" && ("message" in top || "details" in top)) {
    const raw = top["code"];
    const code: Code =
      Number.isInteger(raw) && raw >= 0 && raw <= 16 ? raw : httpStatus !== undefined ? codeFromHttpStatus(httpStatus) : Code.UNKNOWN;
    const message = typeof top["message"] === "string" ? top["message"] : "";
    return new RpcError(code, message, toDetails(top["details"]), { httpStatus: httpStatus ?? httpStatusFromCode(code) });
  }
  return undefined;
}

/**
 * The error for a non-2xx answer: the google.rpc.Status body decoded, or, for
 * a body that is not one (an HTML 502 from a proxy), an error with the HTTP
 * status's code and a snippet of the body.
 */
export async function rpcErrorFromResponse(res: Response, limit = DEFAULT_MAX_RESPONSE_SIZE): Promise<RpcError> {
  let text = "";
  try {
    text = await readBounded(res, limit, `the HTTP ${res.status} error body`);
  } catch (cause) {
    return new RpcError(codeFromHttpStatus(res.status), `HTTP ${res.status}: the error body could not be read`, [], {
      httpStatus: res.status,
      cause,
    });
  }
  const decoded = rpcErrorFromStatusJson(jsonOrUndefined(text), res.status);
  if (decoded) return decoded;
  const snippet = text.replace(/\s+/g, " ").trim().slice(0, SNIPPET);
  const head = `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ""}`;
  // A bare 502 comes from a proxy in front of the server: the server is unavailable.
  const code = res.status === 502 ? Code.UNAVAILABLE : codeFromHttpStatus(res.status);
  return new RpcError(code, snippet === "" ? head : `${head}: ${snippet}`, [], {
    httpStatus: res.status,
  });
}
