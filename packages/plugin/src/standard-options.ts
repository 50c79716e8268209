import { didYouMean, PluginOptionError } from "./options.js";

/**
 * protoplugin's own options, with their valid values. protoplugin rejects a
 * bad value with just `invalid option "target=python"`; we check first, so
 * the message lists what is valid.
 */
const standardChoices: Record<string, readonly string[]> = {
  target: ["ts", "js", "dts", "js+dts", "ts+js", "ts+dts", "ts+js+dts"],
  import_extension: ["js", "ts", "none"],
  js_import_style: ["module", "legacy_commonjs"],
  keep_empty_files: ["true", "false"],
  ts_nocheck: ["true", "false"],
  elide_plugin_version: ["true", "false"],
};
const normalised: Record<string, (v: string) => string> = {
  target: (v) =>
    v
      .split("+")
      .sort((a, b) => order.indexOf(a) - order.indexOf(b))
      .join("+"),
  import_extension: (v) => (v.startsWith(".") ? v.slice(1) : v === "" ? "none" : v),
  keep_empty_files: bool,
  ts_nocheck: bool,
  elide_plugin_version: bool,
};
const order = ["ts", "js", "dts"];
function bool(v: string): string {
  return v === "1" ? "true" : v === "0" ? "false" : v;
}

/**
 * Checks protoplugin's standard options in a plugin parameter and fills in
 * this plugin's defaults: `import_extension=js` unless set, because generated
 * code is ESM and TypeScript under NodeNext (and Node itself) needs the
 * extension in relative imports; bundlers accept it too.
 */
export function withStandardDefaults(parameter: string): string {
  let importExtension = false;
  for (const raw of parameter.split(",")) {
    const eq = raw.indexOf("=");
    const key = (eq < 0 ? raw : raw.slice(0, eq)).trim();
    const value = eq < 0 ? "" : raw.slice(eq + 1).trim();
    const valid = standardChoices[key];
    if (!valid) continue;
    if (key === "import_extension") importExtension = true;
    const v = normalised[key]?.(value) ?? value;
    if (!valid.includes(v)) {
      throw new PluginOptionError(`invalid option "${raw.trim()}": ${key} takes one of ${valid.join(", ")}${didYouMean(v, valid)}`);
    }
  }
  if (importExtension) return parameter;
  return parameter === "" ? "import_extension=js" : `${parameter},import_extension=js`;
}
