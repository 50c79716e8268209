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

/** The UTF-8 length of a string in bytes, as TextEncoder would write it (a lone surrogate as U+FFFD). */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
