import { readFileSync } from "node:fs";

/**
 * The plugin's own dependencies: the protobuf-es and buf that this version
 * is built and tested with, stated once in its package.json.
 */
const own = (JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { dependencies: Record<string, string> })
  .dependencies;

function dependency(name: string): string {
  const spec = own[name];
  if (spec === undefined) throw new Error(`protoc-gen-a2a-http's package.json has no dependency on ${name}`);
  return spec;
}

/**
 * The versions a scaffolded project pins: the ones this repository builds and
 * tests with (test/plugin/scaffold checks that they match its package.json).
 * protobuf-es (runtime and protoc-gen-es, released together) and buf are the
 * plugin's own; TypeScript is 7, the native compiler (the repository tests
 * generated code with it as its devDependency typescript-7); @types/node
 * follows the Node.js the scaffold runs on ({@link nodeLineFor}).
 */
export const scaffoldVersions = {
  protobuf: dependency("@bufbuild/protobuf"),
  protocGenEs: dependency("@bufbuild/protobuf"),
  buf: dependency("@bufbuild/buf"),
  connect: "2.3.0",
  express: "5.3.0",
  typesExpress: "5.0.6",
  fastify: "5.12.8",
  hono: "4.13.23",
  honoNodeServer: "2.1.11",
  tsx: "4.23.15",
  typescript: "7.0.2",
} as const;

/**
 * The Node.js lines a scaffolded project may target, each with the
 * `@types/node` it pins (that line's latest types): the supported releases,
 * the ones `npm run toolchains` runs the scaffold on (test/e2e/toolchains).
 */
export const nodeLines: Readonly<Record<number, string>> = {
  22: "22.20.7",
  24: "24.19.4",
  26: "26.6.11",
};

/**
 * The line a project scaffolded on Node.js `version` targets (its
 * `@types/node` and the Dockerfile's `node:<major>-slim`): its own major when
 * supported, else the newest supported line below it (25 → 24, 27 → 26),
 * else, for a Node older than all of them, the oldest.
 */
export function nodeLineFor(version: string): { readonly major: number; readonly typesNode: string } {
  const running = Number.parseInt(version.replace(/^v/, ""), 10);
  const majors = Object.keys(nodeLines)
    .map(Number)
    .sort((a, b) => a - b);
  const major = majors.filter((m) => m <= running).at(-1) ?? majors[0]!;
  return { major, typesNode: nodeLines[major]! };
}
