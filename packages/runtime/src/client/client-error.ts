import { type Code, RpcError } from "../errors.js";

/** An error made on the client's side, with no HTTP answer behind it (`httpStatus` 0). */
export function clientError(code: Code, message: string, cause?: unknown): RpcError {
  return new RpcError(code, message, [], cause === undefined ? { httpStatus: 0 } : { httpStatus: 0, cause });
}
