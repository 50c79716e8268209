import type { DescFile, DescMessage, DescService } from "@bufbuild/protobuf";
import type { GeneratedFile } from "@bufbuild/protoplugin";
import { protoplugin } from "../protoplugin.js";
import { fileNames } from "./file-cache.js";

type ImportSymbol = ReturnType<GeneratedFile["importSchema"]>;

/** Imports of descriptors into one generated file, each made once. */
export interface DescImports {
  /** The schema value (`FooSchema`, or the service descriptor). */
  readonly schema: (d: DescMessage | DescService) => ImportSymbol;
  /** The schema, imported as a type only (for `typeof FooSchema`). */
  readonly typeSchema: (d: DescMessage) => ImportSymbol;
  /** The message type (`Foo`). */
  readonly shape: (d: DescMessage) => ImportSymbol;
}

const moduleByFile = new WeakMap<DescFile, string>();

/**
 * protoplugin's importSchema and importShape work out every name of the
 * descriptor's file on each call, which is quadratic in a large file. These
 * take the names from {@link fileNames} (computed once per file) and ask
 * protoplugin only for the module of each proto file, once per run (that
 * path depends on the plugin's options and the files to generate).
 */
export function createDescImports(f: GeneratedFile): DescImports {
  const moduleOf = (file: DescFile) => {
    // A descriptor belongs to one plugin run, so its module is the same for every file the run writes.
    let from = moduleByFile.get(file);
    if (from === undefined) moduleByFile.set(file, (from = f.importSchema(file).from));
    return from;
  };
  const symbol = (d: DescMessage | DescService, names: "schema" | "shape", typeOnly: boolean) => {
    const name = fileNames(d.file)[names].get(d);
    if (name === undefined) throw new Error(`no generated name for ${d.toString()}`);
    return protoplugin.createImportSymbol(name, moduleOf(d.file), typeOnly);
  };
  return {
    schema: once((d: DescMessage | DescService) => symbol(d, "schema", false)),
    typeSchema: once((d: DescMessage) => symbol(d, "schema", true)),
    shape: once((d: DescMessage) => symbol(d, "shape", true)),
  };
}

function once<K, V>(make: (key: K) => V): (key: K) => V {
  const cache = new Map<K, V>();
  return (key) => {
    let v = cache.get(key);
    if (v === undefined) cache.set(key, (v = make(key)));
    return v;
  };
}

/**
 * The runtime's module for each kind of import, in one place. Generated code
 * imports each name from the narrowest subpath, so a file for one host never
 * reaches another host's code: a client or Hono file bundled for a browser or
 * a Worker must not pull in the Node and Fastify adapters (`node:http`).
 */
export interface RuntimeModules {
  /** Errors, codes, A2A errors, `HandlerContext`: no host. */
  readonly root: string;
  readonly client: string;
  /** The server core and its fetch/Hono glue. */
  readonly server: string;
  /** Node's http and Express. */
  readonly node: string;
  readonly fastify: string;
  readonly jsonrpc: string;
  readonly connect: string;
  readonly agent: string;
  /** What only generated code calls. */
  readonly codegen: string;
}

export function runtimeModules(runtimeImport: string): RuntimeModules {
  const sub = (name: string) => `${runtimeImport}/${name}`;
  return {
    root: runtimeImport,
    client: sub("client"),
    server: sub("server"),
    node: sub("node"),
    fastify: sub("fastify"),
    jsonrpc: sub("jsonrpc"),
    connect: sub("connect"),
    agent: sub("agent"),
    codegen: sub("codegenv1"),
  };
}
