// The agent card the benches give @a2a-js/sdk's DefaultRequestHandler: one
// HTTP+JSON interface at `url`, streaming on, nothing else (the SDK's card
// type wants every field spelled out).

/** The SDK contender's card, its interface at `url`. */
export function sdkCard(url) {
  return {
    name: "bench",
    description: "bench",
    version: "1.0.0",
    supportedInterfaces: [{ url, protocolBinding: "HTTP+JSON", protocolVersion: "1.0", tenant: "" }],
    capabilities: { streaming: true, pushNotifications: false, extendedAgentCard: false, extensions: [] },
    securitySchemes: {},
    securityRequirements: [],
    defaultInputModes: ["text/plain"],
    defaultOutputModes: ["text/plain"],
    skills: [],
    signatures: [],
  };
}
