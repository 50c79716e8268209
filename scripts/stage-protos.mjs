// Stages the protos that live outside this repository's sources:
// - google/api into packages/plugin/proto, which the plugin package ships so
//   that a user's buf.yaml or protoc -I can point at it (the BSR is not
//   reachable from our build machines, and google-proto-files is 64 MB);
// - the A2A protos from ../shared/proto into vendor/proto, since buf refuses
//   module paths outside its workspace.
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const googleApi = join(dirname(createRequire(import.meta.url).resolve("google-proto-files/package.json")), "google", "api");
/** What a proto with HTTP rules imports from google/api, and what those import. */
export const shippedGoogleApi = [
  "annotations.proto",
  "http.proto",
  "field_behavior.proto",
  "client.proto",
  "launch_stage.proto",
  "resource.proto",
];

const pluginProto = join(root, "packages", "plugin", "proto", "google", "api");
mkdirSync(pluginProto, { recursive: true });
for (const name of shippedGoogleApi) copyFileSync(join(googleApi, name), join(pluginProto, name));

const vendor = join(root, "vendor", "proto");
mkdirSync(vendor, { recursive: true });
const shared = join(root, "..", "shared", "proto");
let a2a = 0;
try {
  for (const name of readdirSync(shared)) {
    if (name.endsWith(".proto")) {
      copyFileSync(join(shared, name), join(vendor, name));
      a2a++;
    }
  }
} catch {
  // Said plainly here: without the A2A protos, buf generates nothing for them
  // and what follows (the build of the example, the tests) fails far from the cause.
}
if (a2a === 0) {
  console.error(
    `stage-protos: no A2A protos in ${shared}.\n` +
      "This repository expects its shared folder beside it (../shared, with proto/a2a.proto, tck/ and design.md):\n" +
      "npm start, npm test, npm run test:unit, npm run tck and the packed plugin (which ships a2a.proto and a2a-v0_3.proto) need it.",
  );
  process.exit(1);
}
// The plugin ships a2a.proto too: `scaffold` starts from it when given no --proto;
// and a2a-v0_3.proto, whose gRPC service a scaffolded A2A agent serves to v0.3 clients.
const pluginA2a = join(root, "packages", "plugin", "a2a");
try {
  mkdirSync(pluginA2a, { recursive: true });
  for (const name of ["a2a.proto", "LICENSE-a2a", "a2a-v0_3.proto"]) copyFileSync(join(shared, name), join(pluginA2a, name));
} catch {
  // without ../shared, scaffold needs --proto
}
console.log(`staged google/api into packages/plugin/proto and ${a2a} A2A proto(s) into vendor/proto`);
