export { decodeRequest, encodeResponse, parseJsonBody, checkRequired } from "./codec.js";
export type { DecodeRequestInput, DecodeOptions, EncodeOptions } from "./codec.js";
export type { JsonCodec } from "./message-json.js";
