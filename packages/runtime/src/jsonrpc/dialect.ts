// Another protocol version's JSON-RPC methods served on the same handlers:
// each of its methods is one of the service's rpcs with its params and
// result translated (A2A v0.3's are in a2a-v03/jsonrpc.ts).
import type { JsonValue } from "@bufbuild/protobuf";

/** One method of a dialect: the rpc (proto name) that does its work, and its translations. */
export interface JsonRpcDialectMethod {
  readonly rpc: string;
  /** The request's `params` (untrusted) as the rpc's request ProtoJSON; throws an RpcError for a bad shape. */
  readonly params: (params: unknown) => JsonValue;
  /** The rpc's answer (ProtoJSON, each message of a stream) as the dialect's `result`. */
  readonly result: (result: JsonValue) => JsonValue;
}

/** The methods a request may call when it speaks `version` (the A2A-Version, Major.Minor). */
export interface JsonRpcDialect {
  readonly version: string;
  readonly methods: ReadonlyMap<string, JsonRpcDialectMethod>;
}
