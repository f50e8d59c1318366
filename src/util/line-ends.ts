/**
 * The bytes of a text file with every CRLF line end as LF: what a reader that treats CRLF as LF
 * (the YAML parser, JSON, the labels reader) sees of it. A checkout that writes CRLF (Git's
 * `core.autocrlf` on a Windows runner) and one that writes LF hold the same text. A lone CR
 * (not followed by LF) is kept: no checkout writes one for an LF, so it is content. Returns
 * `bytes` itself when it holds no CR (the common case costs one scan, no copy).
 * @example lfLineEnds(Buffer.from('a: 1\r\nb: 2\r\n')).toString() // 'a: 1\nb: 2\n'
 */
export function lfLineEnds(bytes: Buffer): Buffer {
  if (!bytes.includes(0x0d)) return bytes;
  // latin1 maps each byte to one code unit and back, so multi-byte UTF-8 (or invalid UTF-8) survives untouched.
  return Buffer.from(bytes.toString('latin1').replace(/\r\n/g, '\n'), 'latin1');
}
