import type { DescMessage, DescService } from "@bufbuild/protobuf";
import type { GeneratedFile } from "@bufbuild/protoplugin";

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

/**
 * protoplugin recomputes every name of the file on each importSchema or
 * importShape call, so a file of 1,000 rpcs would cost quadratic time:
 * these import each descriptor once and reuse the symbol.
 */
export function createDescImports(f: GeneratedFile): DescImports {
  return {
    schema: once((d: DescMessage | DescService) => f.importSchema(d)),
    typeSchema: once((d: DescMessage) => f.importSchema(d, true)),
    shape: once((d: DescMessage) => f.importShape(d)),
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
