// The `allowedHosts` Host check on the gRPC port. connect-es's node adapter
// answers any Host, so a page whose name the attacker re-points at
// 127.0.0.1 (DNS rebinding) would reach a local agent's gRPC port as it
// would the HTTP one, were the port reachable from a browser: a plain
// node:http2 server (h2c) is not today, since browsers speak HTTP/2 only
// over TLS, but a secure server with `allowHTTP1`, or a proxy in front,
// makes it so. The check runs before connect-es reads anything.
import { allowedHostsCheck, type AllowedHosts } from "../server/hosts.js";
import type { RpcError } from "../errors.js";

/** The members of a node:http or node:http2 (compat) request the guard reads. */
interface NodeRequestLike {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly socket?: unknown;
}

/** The members of a node:http or node:http2 (compat) response the guard writes. */
interface NodeResponseLike {
  writeHead(status: number, headers: Record<string, string>): unknown;
  end(body?: string): unknown;
}

/**
 * Wraps a node:http2 (or node:http) request listener, such as connect-es's
 * `connectNodeAdapter(...)`, with the `allowedHosts` Host check of the
 * HTTP+JSON and JSON-RPC adapters (default `"auto"`: a server listening on
 * loopback answers only localhost, 127.0.0.1, [::1] and its own address,
 * with its port). A request whose `:authority` (or Host) is not served gets
 * INVALID_ARGUMENT in its own protocol: gRPC and gRPC-Web in the response
 * headers (HTTP 200, `grpc-status: 3`), Connect and anything else HTTP 421
 * with a Connect error body. Throws at once on a malformed option.
 *
 *     http2.createServer(o.http2, withAllowedHosts(connectNodeAdapter({ routes, ...o.adapter })));
 */
export function withAllowedHosts<Listener extends (req: never, res: never) => unknown>(
  listener: Listener,
  options: { readonly allowedHosts?: AllowedHosts | undefined } = {},
): Listener {
  const wrongHost = allowedHostsCheck(options.allowedHosts, { profile: "none" });
  const next = listener as unknown as (req: NodeRequestLike, res: NodeResponseLike) => unknown;
  // Typed as the listener given (connect-es's takes a union of node's request types), read through the structural types above.
  const guarded = (req: NodeRequestLike, res: NodeResponseLike): unknown => {
    const h = req.headers[":authority"] ?? req.headers["host"];
    const refused = wrongHost(Array.isArray(h) ? h[0] : h, req.socket);
    if (refused === undefined) return next(req, res);
    refuse(req, res, refused);
    return undefined;
  };
  return guarded as unknown as Listener;
}

function refuse(req: NodeRequestLike, res: NodeResponseLike, err: RpcError): void {
  const type = String(req.headers["content-type"] ?? "");
  if (type.startsWith("application/grpc")) {
    // A trailers-only answer: gRPC and gRPC-Web clients read the status from the headers.
    res.writeHead(200, {
      "content-type": type.split(";")[0]!.trim(),
      "grpc-status": "3",
      // grpc-message is percent-encoded (the gRPC HTTP/2 spec).
      "grpc-message": encodeURIComponent(err.message),
    });
    res.end();
    return;
  }
  // Connect's error body (https://connectrpc.com/docs/protocol#error-end-stream).
  const body = JSON.stringify({ code: "invalid_argument", message: err.message });
  res.writeHead(err.httpStatus, { "content-type": "application/json", "content-length": String(new TextEncoder().encode(body).length) });
  res.end(body);
}
