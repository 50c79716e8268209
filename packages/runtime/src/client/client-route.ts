// What the client reads of an rpc's binding: the HTTP rule, and of the
// descriptors only names, JSON names and field kinds (to fill paths, bodies
// and queries), the rpc's proto name and service, and its idempotency. A
// generated `RouteBinding` (descriptors and all) is one as it is; a lean
// generated client (plugin option `client=lean`) writes these as plain
// literals, so that its bundle reaches no protobuf-es value.
import type { PathTemplate } from "../path-template.js";

/** A message type as the client plans with it: its name and the fields it may fill a path, body or query from. */
export interface ClientMessage {
  readonly typeName: string;
  readonly fields: readonly ClientField[];
}

/** A field of a {@link ClientMessage}: protobuf-es's DescField narrowed to what planning reads. */
export type ClientField = { readonly name: string; readonly jsonName: string } & (
  | { readonly fieldKind: "scalar"; readonly scalar: number }
  | { readonly fieldKind: "enum"; readonly enum: { readonly values: readonly { readonly name: string }[] } }
  | { readonly fieldKind: "message"; readonly message: ClientMessage }
  | { readonly fieldKind: "list"; readonly listKind: "scalar" | "enum" }
  | { readonly fieldKind: "list"; readonly listKind: "message"; readonly message: ClientMessage }
  | { readonly fieldKind: "map" }
);

/** One HTTP binding of an rpc as the client calls it; a `RouteBinding` is one. */
export interface ClientRoute {
  /** The rpc's local name, lowerCamel ("getTask"). */
  readonly rpc: string;
  /** Of the rpc's descriptor: its proto name, its service's full name, and its idempotency option (0: unknown). */
  readonly descriptor: {
    readonly name: string;
    readonly parent: { readonly typeName: string };
    readonly idempotency: number;
  };
  /** The HTTP method ("GET", ...), or a custom rule's kind ("*" takes any method). */
  readonly method: string;
  /** The path template as written in the proto. */
  readonly template: string;
  /** The parsed template. */
  readonly path: PathTemplate;
  /** The `body` of the rule: "" for none, "*" for the whole request, or a top-level field name. */
  readonly body: string;
  /** The `response_body` of the rule: "" for the whole response, or a top-level field name. */
  readonly responseBody: string;
  /** "unary", or "server" for a server-streaming rpc. */
  readonly streaming: "unary" | "server";
  readonly input: ClientMessage;
  readonly output: ClientMessage;
  /** "primary" for the rule itself, "additional" for one of its `additional_bindings`. */
  readonly binding: "primary" | "additional";
}
