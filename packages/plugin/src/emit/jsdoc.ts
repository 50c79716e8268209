import type { AnyDesc, DescFile } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";

/**
 * AIP internal comments: `(-- ... --)` blocks (AIP-192) are notes for API
 * reviewers and linters, not for the API's readers; they may span lines.
 */
const INTERNAL = /\(--[\s\S]*?--\)/g;

/** Removes the internal blocks and the blank lines they leave at the start. */
export function withoutInternalComments(text: string): string {
  if (!text.includes("(--")) return text;
  return text
    .replace(INTERNAL, "")
    .split("\n")
    .map((line) => line.trimEnd())
    .join("\n")
    .replace(/^\n+/, "")
    .replace(/\n{3,}/g, "\n\n");
}

/** protoplugin's JSDoc block for `desc`, without AIP internal comments. */
export function docComment(f: GeneratedFile, desc: Exclude<AnyDesc, DescFile>, indentation?: string): Printable {
  // A JSDoc printable is a plain { kind: "es_jsdoc", text } object.
  const block = f.jsDoc(desc, indentation) as Printable & { text: string };
  block.text = withoutInternalComments(block.text);
  return block;
}
