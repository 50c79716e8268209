export { decodeRequest, parseJsonBody, checkRequired, encodeResponse } from "./codec.js";
export type { DecodeRequestInput, DecodeOptions, EncodeOptions } from "./codec.js";
