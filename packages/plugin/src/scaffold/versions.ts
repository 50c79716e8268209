/**
 * The versions a scaffolded project pins: the ones this repository builds and
 * tests with (test/plugin/scaffold checks that they match its package.json).
 */
export const scaffoldVersions = {
  protobuf: "2.17.0",
  protocGenEs: "2.17.0",
  buf: "1.75.0",
  connect: "2.1.2",
  express: "5.3.0",
  typesExpress: "5.0.4",
  fastify: "5.12.8",
  hono: "4.13.23",
  honoNodeServer: "2.1.11",
  typesNode: "20.19.43",
  tsx: "4.23.15",
  typescript: "5.9.3",
} as const;
