// The generator as protoc and buf run it: a CodeGeneratorRequest on stdin, the
// response on stdout. scripts/bundle-plugin.mjs bundles this module with all it
// imports into generate.bundle.js, which the command line loads when it is
// current (see protoc-gen-a2a-http.ts).
//
// protoplugin's runNodeJs does the same with a plain fromBinary; here the
// request is read by readRequest, which leaves the files' source locations
// encoded until something reads them (source-info.ts). Arguments, output and
// errors are runNodeJs's.
import { toBinary } from "@bufbuild/protobuf";
import { CodeGeneratorResponseSchema } from "@bufbuild/protobuf/wkt";
import { plugin } from "../plugin.js";
import { readRequest } from "../source-info.js";

const args = process.argv.slice(2);
if (args.length === 1 && (args[0] === "-v" || args[0] === "--version")) {
  process.stdout.write(`${plugin.name} ${plugin.version}\n`);
  process.exit(0);
} else if (args.length !== 0) {
  process.stderr.write(
    `${plugin.name} accepts a google.protobuf.compiler.CodeGeneratorRequest on stdin and writes a CodeGeneratorResponse to stdout\n`,
  );
  process.exit(1);
}

try {
  const chunks: Buffer[] = [];
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
  const response = plugin.run(readRequest(Buffer.concat(chunks)));
  const bytes = toBinary(CodeGeneratorResponseSchema, response);
  await new Promise<void>((resolve, reject) => process.stdout.write(bytes, (err) => (err ? reject(err) : resolve())));
  process.exit(0);
} catch (reason) {
  const message = reason instanceof Error ? reason.message : String(reason);
  process.stderr.write(`${plugin.name}: ${message}\n`);
  process.exit(1);
}
