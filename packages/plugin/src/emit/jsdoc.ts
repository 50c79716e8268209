import type { AnyDesc, DescFile } from "@bufbuild/protobuf";
import type { GeneratedFile, Printable } from "@bufbuild/protoplugin";
import { docText } from "./file-cache.js";

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

/**
 * protoplugin's JSDoc block for `desc`, without AIP internal comments. The
 * text of services and rpcs comes from {@link docText} (the same text, without
 * protoplugin's scan of every source location of the file per call).
 */
export function docComment(f: GeneratedFile, desc: Exclude<AnyDesc, DescFile>, indentation?: string): Printable {
  if (desc.kind === "service" || desc.kind === "rpc") return f.jsDoc(withoutInternalComments(docText(desc)), indentation);
  // A JSDoc printable is a plain { kind: "es_jsdoc", text } object.
  const block = f.jsDoc(desc, indentation) as Printable & { text: string };
  block.text = withoutInternalComments(block.text);
  return block;
}
