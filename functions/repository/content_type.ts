// What GitLab Workhorse answers for `send_git_blob` with content-type detection on
// (workhorse/internal/headers/content_headers.go): Go's `http.DetectContentType` on the first 512 bytes,
// SVG recognised separately, every text type served as `text/plain; charset=utf-8`, and a disposition
// that stays `inline` only for types a browser may show safely.

const TEXT_PLAIN = "text/plain; charset=utf-8";
const OCTET_STREAM = "application/octet-stream";

const startsWith = (data: Uint8Array, magic: number[], at = 0) => magic.every((byte, i) => data[at + i] === byte);
const ascii = (text: string) => [...text].map((ch) => ch.charCodeAt(0));

/** The signatures of Go's sniff table that matter for repository files, in its order. */
const SIGNATURES: { magic: number[]; at?: number; type: string }[] = [
  { magic: ascii("%PDF-"), type: "application/pdf" },
  { magic: ascii("%!PS-Adobe-"), type: "application/postscript" },
  { magic: ascii("GIF87a"), type: "image/gif" },
  { magic: ascii("GIF89a"), type: "image/gif" },
  { magic: [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], type: "image/png" },
  { magic: [0xff, 0xd8, 0xff], type: "image/jpeg" },
  { magic: ascii("BM"), type: "image/bmp" },
  { magic: [0x00, 0x00, 0x01, 0x00], type: "image/x-icon" },
  { magic: ascii("OggS\x00"), type: "application/ogg" },
  { magic: ascii("PK\x03\x04"), type: "application/zip" },
  { magic: [0x1f, 0x8b, 0x08], type: "application/x-gzip" },
  { magic: ascii("Rar!\x1a\x07"), type: "application/x-rar-compressed" },
  { magic: [0x00, 0x61, 0x73, 0x6d], type: "application/wasm" },
];

/** Go's `isTT` bytes: binary data that makes content not text. */
const isBinaryByte = (b: number) => b <= 0x08 || b === 0x0b || (b >= 0x0e && b <= 0x1a) || (b >= 0x1c && b <= 0x1f);

const SVG = /^\s*(<\?xml[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*(<!DOCTYPE\s+svg[^>]*>\s*)?(<!--[\s\S]*?-->\s*)*<svg[\s>]/i;

/** The Content-Type Workhorse sets for a blob. */
export function detectContentType(data: Uint8Array): string {
  const head = data.subarray(0, 512);
  if (SVG.test(new TextDecoder().decode(head))) return "image/svg+xml";
  for (const sig of SIGNATURES) if (startsWith(head, sig.magic, sig.at)) return sig.type;
  if (head.length >= 12 && startsWith(head, ascii("RIFF")) && startsWith(head, ascii("WEBPVP"), 8)) return "image/webp";
  // UTF BOMs and anything without binary bytes is text; Workhorse serves every text type as plain text.
  if (startsWith(head, [0xef, 0xbb, 0xbf]) || startsWith(head, [0xfe, 0xff]) || startsWith(head, [0xff, 0xfe])) return TEXT_PLAIN;
  return head.some(isBinaryByte) ? OCTET_STREAM : TEXT_PLAIN;
}

/** Types a browser may render inline (Workhorse's allow list); everything else is an attachment. */
const INLINE = /^(image\/(?!svg\+xml)|video\/|audio\/|text\/plain|application\/pdf)/;

const TRADITIONAL_ESCAPED = /[^ A-Za-z0-9!#$+.^_`|~-]/g;
const RFC5987_ESCAPED = /[^A-Za-z0-9!#$&+.^_`|~-]/g;

function percentEscape(text: string, pattern: RegExp): string {
  return text.replace(pattern, (ch) =>
    [...new TextEncoder().encode(ch)].map((b) => `%${b.toString(16).toUpperCase().padStart(2, "0")}`).join(""),
  );
}

/**
 * `ActionDispatch::Http::ContentDisposition.format(disposition:, filename:)`, with the disposition
 * Workhorse settles on: the ASCII `filename` (non-ASCII transliterated to `?`) and the UTF-8 `filename*`.
 */
export function contentDisposition(contentType: string, filename: string): string {
  const disposition = INLINE.test(contentType) ? "inline" : "attachment";
  const transliterated = [...filename].map((ch) => (ch.charCodeAt(0) < 0x80 ? ch : "?")).join("");
  return `${disposition}; filename="${percentEscape(transliterated, TRADITIONAL_ESCAPED)}"; filename*=UTF-8''${percentEscape(filename, RFC5987_ESCAPED)}`;
}
