// Stages the input protos that live outside this package into vendor/proto, so
// that buf (which refuses module paths outside its workspace) can read them:
// the A2A protos from ../shared/proto, and google/api from google-proto-files
// (the BSR is not reachable from our build machines).
import { copyFileSync, mkdirSync, readdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const out = join(root, "vendor", "proto");
const shared = join(root, "..", "shared", "proto");
const googleApi = join(
  dirname(createRequire(import.meta.url).resolve("google-proto-files/package.json")),
  "google",
  "api",
);

mkdirSync(join(out, "google", "api"), { recursive: true });
for (const name of ["annotations.proto", "http.proto", "field_behavior.proto", "client.proto", "launch_stage.proto"]) {
  copyFileSync(join(googleApi, name), join(out, "google", "api", name));
}
let a2a = 0;
try {
  for (const name of readdirSync(shared)) {
    if (name.endsWith(".proto")) {
      copyFileSync(join(shared, name), join(out, name));
      a2a++;
    }
  }
} catch {
  // ../shared is only beside a development checkout; users generate from their own protos.
}
console.log(`staged google/api and ${a2a} A2A proto(s) into vendor/proto`);
