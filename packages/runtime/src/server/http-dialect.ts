// Another protocol version's HTTP+JSON routes served on the same handlers
// (A2A v0.3's `/v1/...` routes, a2a-v03/rest.ts): each route is one of the
// service's rpcs, its request built from the path, query and body in the
// dialect's JSON, its answer and errors written in the dialect's shapes.
import type { JsonValue } from "@bufbuild/protobuf";

/** One route of a dialect. */
export interface HttpDialectRoute {
  /** The rpc (proto name) that does its work. */
  readonly rpc: string;
  readonly method: string;
  /** A path template (HttpRule syntax) below the mount point. */
  readonly template: string;
  /** Whether the request has a body (read, bounded and parsed as JSON, blank allowed). */
  readonly body: boolean;
  /** The rpc's request ProtoJSON from the path variables, the raw query and the parsed body (untrusted: throws an RpcError for a bad shape). */
  readonly request: (variables: Readonly<Record<string, string>>, rawQuery: string, body: unknown) => JsonValue;
  /** The rpc's answer (ProtoJSON; each message of a stream) in the dialect's shape. */
  readonly result: (json: JsonValue) => JsonValue;
}

/** The routes a request may take when it speaks `version` (the A2A-Version, Major.Minor). */
export interface HttpDialect {
  readonly version: string;
  /** Only paths below this prefix are looked up in the dialect's routes. */
  readonly prefix: string;
  readonly routes: readonly HttpDialectRoute[];
  /** An error answer's body (google.rpc.Status JSON text, as the core writes it) in the dialect's shape. */
  readonly errorBody: (statusJson: string) => string;
}
