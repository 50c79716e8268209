/** The plugin itself, for those who run it in-process (tests, custom drivers). */
export { plugin } from "./plugin.js";
export { parseOptions, PluginOptionError, type PluginOptions } from "./options.js";
export { scaffold, ScaffoldError, type ScaffoldOptions } from "./scaffold/scaffold.js";
