// Generates google/rpc/error_details_pb.ts (ErrorInfo, BadRequest, ...) into
// packages/runtime/src/gen, for the gRPC binding's status details. buf's
// clean option would empty the runtime's gen folder, so it generates into a
// temporary folder and copies the one file over. Part of `npm run bootstrap`.
import { execFileSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const protos = join(dirname(createRequire(import.meta.url).resolve("google-proto-files/package.json")), "google", "rpc");
const tmp = mkdtempSync(join(tmpdir(), "a2a-http-rpc-"));
try {
  mkdirSync(join(tmp, "in", "google", "rpc"), { recursive: true });
  copyFileSync(join(protos, "error_details.proto"), join(tmp, "in", "google", "rpc", "error_details.proto"));
  writeFileSync(join(tmp, "in", "buf.yaml"), "version: v2\n");
  execFileSync(
    join(root, "node_modules", ".bin", "buf"),
    ["generate", "in", "--template", join(root, "buf.gen.bootstrap.yaml"), "-o", "out"],
    {
      cwd: tmp,
      stdio: "inherit",
      env: { ...process.env, PATH: `${join(root, "node_modules", ".bin")}:${process.env.PATH ?? ""}` },
    },
  );
  const target = join(root, "packages", "runtime", "src", "gen", "google", "rpc");
  mkdirSync(target, { recursive: true });
  copyFileSync(join(tmp, "out", "src", "gen", "google", "rpc", "error_details_pb.ts"), join(target, "error_details_pb.ts"));
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
