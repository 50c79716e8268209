export { decodeRequest, encodeResponse, parseJsonBody, checkRequired } from "./codec.js";
export type { DecodeRequestInput, DecodeOptions, EncodeOptions, JsonCodec } from "./codec.js";
export { fastFromJson, fastToJson } from "./fast-json.js";
