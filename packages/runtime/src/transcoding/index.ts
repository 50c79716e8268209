export { decodeRequest, encodeResponse, parseJsonBody, checkRequired } from "./transcode.js";
export type { DecodeRequestInput, DecodeOptions, EncodeOptions } from "./transcode.js";
export type { JsonCodec } from "./message-json.js";
