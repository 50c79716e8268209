// The generator as protoc and buf run it: a CodeGeneratorRequest on stdin, the
// response on stdout. scripts/bundle-plugin.mjs bundles this module with all it
// imports into generate.bundle.js, which the command line loads when it is
// current (see protoc-gen-a2a-http.ts).
import { protoplugin } from "../protoplugin.js";
import { plugin } from "../plugin.js";

protoplugin.runNodeJs(plugin);
