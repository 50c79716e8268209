
// protoc and buf run the plugin with no arguments; `scaffold` is for people.
if (process.argv[2] === "scaffold") {
  const { runScaffoldCli } = await import("../scaffold/cli.js");
  process.exitCode = runScaffoldCli(process.argv.slice(3));
} else {
  const [{ protoplugin }, { plugin }] = await Promise.all([import("../protoplugin.js"), import("../plugin.js")]);
  protoplugin.runNodeJs(plugin);
}
