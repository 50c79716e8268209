// protoc and buf run the plugin with no arguments and a CodeGeneratorRequest
// on stdin; `scaffold` and `--help` are for people.
const [command] = process.argv.slice(2);
if (command === "scaffold") {
  const { runScaffoldCli } = await import("../scaffold/cli.js");
  process.exitCode = runScaffoldCli(process.argv.slice(3));
} else if (command === "--help" || command === "-h" || command === "help") {
  const { usage } = await import("../help.js");
  process.stdout.write(usage() + "\n");
} else if ((command !== undefined && command !== "--version" && command !== "-v") || (command === undefined && process.stdin.isTTY)) {
  // A person at a terminal: protoc would pipe a request in, so waiting for one
  // would only hang. Unknown arguments are a mistake too.
  const { usage } = await import("../help.js");
  const what = command === undefined ? "no CodeGeneratorRequest on stdin (it is a terminal)" : `unknown command "${command}"`;
  process.stderr.write(`protoc-gen-a2a-http: ${what}\n\n${usage()}\n`);
  process.exitCode = 2;
} else {
  const [{ protoplugin }, { plugin }] = await Promise.all([import("../protoplugin.js"), import("../plugin.js")]);
  protoplugin.runNodeJs(plugin);
}
