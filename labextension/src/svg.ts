/**
 * Whether an SVG `data:` icon may be drawn: the sidebar's second look at what the kernel allowed
 * (mcp_jupyter/_icons.py decides first, with the same rules). An SVG with script, event handlers,
 * `<foreignObject>`, `javascript:` URLs or entity declarations is refused, wherever they hide: the
 * SVG is read in every encoding the browser could read it in (its byte-order mark, UTF-16 and UTF-32
 * when it holds NUL bytes, the data URI's `charset`, its XML declaration's `encoding`), with character
 * references resolved. Looking at the bytes alone misses `<script>` in a UTF-16 SVG.
 */

const ACTIVE =
  /<\s*script|<\s*foreignobject|\son[a-z]+\s*=|javascript\s*:|<\s*!\s*entity/i;
const DATA_URI = /^data:([^,;]*)((?:;[^,;]*)*),([\s\S]*)$/;
const ENCODING_NAME =
  /(?:encoding|charset)\s*=\s*["']?([A-Za-z0-9._:-]{1,40})/gi;
const CHARACTER_REFERENCE = /&#(x[0-9a-f]+|[0-9]+);?/gi;

/** The bytes of a `data:` URI's payload (base64 or percent-encoded); throws on bad base64. */
function payloadBytes(payload: string, base64: boolean): Uint8Array {
  if (base64) {
    const binary = atob(payload.replace(/\s+/g, ''));
    return Uint8Array.from(binary, c => c.charCodeAt(0));
  }
  const bytes: number[] = [];
  const encoder = new TextEncoder();
  for (let i = 0; i < payload.length; i++) {
    const hex = payload.slice(i + 1, i + 3);
    if (payload[i] === '%' && /^[0-9a-f]{2}$/i.test(hex)) {
      bytes.push(parseInt(hex, 16));
      i += 2;
    } else {
      bytes.push(...encoder.encode(payload[i]));
    }
  }
  return Uint8Array.from(bytes);
}

/** UTF-32 text (TextDecoder has no UTF-32; the check must still read it). */
function utf32(bytes: Uint8Array, littleEndian: boolean): string {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let text = '';
  for (let i = 0; i + 4 <= bytes.length; i += 4) {
    const code = view.getUint32(i, littleEndian);
    text += code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
  }
  return text;
}

/** `text` with numeric character references (`&#106;`, `&#x6a;`) resolved. */
function resolveReferences(text: string): string {
  return text.replace(CHARACTER_REFERENCE, (whole, code: string) => {
    const value =
      code[0].toLowerCase() === 'x'
        ? parseInt(code.slice(1), 16)
        : parseInt(code, 10);
    return Number.isFinite(value) && value <= 0x10ffff
      ? String.fromCodePoint(value)
      : whole;
  });
}

/** Decode `bytes` in the encoding named `label`; throws RangeError for one the browser does not know. */
function decode(bytes: Uint8Array, label: string): string {
  const name = label.toLowerCase().replace(/_/g, '-');
  if (name === 'utf-32le' || name === 'utf-32-le' || name === 'utf-32') {
    return utf32(bytes, true);
  }
  if (name === 'utf-32be' || name === 'utf-32-be') {
    return utf32(bytes, false);
  }
  return new TextDecoder(label).decode(bytes);
}

/** The SVG's text in every encoding a browser might read it in (see the module's comment). */
function readings(bytes: Uint8Array, params: string): string[] {
  const labels: string[] = ['latin1'];
  if (bytes.includes(0)) {
    labels.push('utf-16le', 'utf-16be', 'utf-32le', 'utf-32be');
  }
  for (const match of params.matchAll(ENCODING_NAME)) {
    labels.push(match[1]);
  }
  const texts: string[] = [];
  const seen = new Set<string>();
  while (labels.length > 0) {
    const label = labels.shift()!.toLowerCase();
    if (seen.has(label)) {
      continue;
    }
    seen.add(label);
    const text = decode(bytes, label);
    texts.push(text);
    const declared = [...text.slice(0, 400).matchAll(ENCODING_NAME)][0];
    if (declared) {
      labels.push(declared[1]);
    }
  }
  return texts;
}

/** Why an icon is refused: it holds script, its encoding is unknown, its base64 is broken. */
export type SvgRefusal = 'script' | 'encoding' | 'base64';

/**
 * Why the icon `src` may not be drawn, or null when it may: only SVG `data:` URIs are looked into;
 * other images cannot hold script.
 */
export function svgRefusal(src: string): SvgRefusal | null {
  const match = DATA_URI.exec(src);
  if (!match || match[1].trim().toLowerCase() !== 'image/svg+xml') {
    return null;
  }
  const params = match[2].toLowerCase();
  let bytes: Uint8Array;
  try {
    bytes = payloadBytes(match[3], params.includes(';base64'));
  } catch {
    return 'base64';
  }
  let texts: string[];
  try {
    texts = readings(bytes, params);
  } catch {
    return 'encoding';
  }
  return texts.some(
    text => ACTIVE.test(text) || ACTIVE.test(resolveReferences(text))
  )
    ? 'script'
    : null;
}
