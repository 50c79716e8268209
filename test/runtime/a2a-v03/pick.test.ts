// pickTransport and a v0.3 card: an agent that speaks only v0.3 is picked with
// a2aVersion "0.3" (the client then speaks v0.3); a card of both versions is
// picked as v1.0; asking for v1.0 alone refuses a v0.3-only card.
import { describe, expect, it } from "vitest";
import { pickTransport } from "a2a-http";
import { withV03CardFields } from "../../../packages/runtime/src/a2a-v03/card.js";

const v03Card = {
  protocolVersion: "0.3.0",
  url: "http://old.test/rpc",
  preferredTransport: "JSONRPC",
  additionalInterfaces: [
    { url: "http://old.test/rpc", transport: "JSONRPC" },
    { url: "http://old.test/rest", transport: "HTTP+JSON" },
  ],
};

describe("pickTransport with v0.3 cards", () => {
  it("picks a v0.3 agent's interface, in the client's order of preference, and says a2aVersion 0.3", () => {
    expect(pickTransport(v03Card)).toMatchObject({ transport: "jsonrpc", baseUrl: "http://old.test/rpc", tenant: "", a2aVersion: "0.3" });
    expect(pickTransport(v03Card, ["HTTP+JSON"])).toMatchObject({
      transport: "http+json",
      baseUrl: "http://old.test/rest",
      a2aVersion: "0.3",
    });
  });

  it("picks v1.0 from a card of both versions (ours), without a2aVersion", () => {
    const both = withV03CardFields({
      supportedInterfaces: [
        { url: "http://new.test/", protocolBinding: "HTTP+JSON", protocolVersion: "1.0" },
        { url: "http://new.test/rpc", protocolBinding: "JSONRPC", protocolVersion: "1.0" },
      ],
    }) as Parameters<typeof pickTransport>[0];
    const picked = pickTransport(both, ["JSONRPC"]);
    expect(picked).toMatchObject({ transport: "jsonrpc", baseUrl: "http://new.test/rpc" });
    expect(picked.a2aVersion).toBeUndefined();
  });

  it("refuses a v0.3-only card when asked for v1.0 alone, naming what it offers", () => {
    expect(() => pickTransport(v03Card, undefined, ["1.0"])).toThrow(/JSONRPC 0.3.0 at http:\/\/old.test\/rpc/);
  });
});
