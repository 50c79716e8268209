import { runNodeJs } from "@bufbuild/protoplugin";
import { plugin } from "../plugin.js";

// protoc and buf run the plugin with no arguments; `scaffold` is for people.
if (process.argv[2] === "scaffold") {
  const { runScaffoldCli } = await import("../scaffold/cli.js");
  process.exitCode = runScaffoldCli(process.argv.slice(3));
} else {
  runNodeJs(plugin);
}
