import { MAX_CHART_BYTES } from './limits.js';

/** Base64 text without the whitespace YAML block scalars may fold into it. */
export function compactBase64(text: string): string {
  return text.replace(/\s+/gu, '');
}

/** Decoded byte length of padded standard base64, or undefined when the text is not such base64. */
export function decodedBase64Length(text: string): number | undefined {
  const compact = compactBase64(text);
  if (compact.length % 4 !== 0 || !/^[A-Za-z0-9+/]*={0,2}$/u.test(compact)) return undefined;
  const padding = compact.endsWith('==') ? 2 : compact.endsWith('=') ? 1 : 0;
  return (compact.length / 4) * 3 - padding;
}

export function chartContentFits(text: string): boolean {
  const bytes = decodedBase64Length(text);
  return bytes !== undefined && bytes < MAX_CHART_BYTES;
}
