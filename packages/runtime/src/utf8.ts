/** The UTF-8 text of a body read in chunks (`size` is their total length). */
export function decodeChunks(chunks: readonly Uint8Array[], size: number): string {
  const decoder = new TextDecoder();
  if (chunks.length === 0) return "";
  if (chunks.length === 1) return decoder.decode(chunks[0]);
  const all = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    all.set(c, at);
    at += c.byteLength;
  }
  return decoder.decode(all);
}
