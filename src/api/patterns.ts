/**
 * Regular expressions shared by the CEL rules (RE2, in the apiserver) and the code checks (JavaScript). Each is
 * written in the syntax both engines read the same way: classes, groups and alternation only.
 */

/** http:// in any letter case: URL schemes are case-insensitive. */
export const HTTP_URL = '^[hH][tT][tT][pP]://';
/** http:// or https://, any case. */
export const HTTP_OR_HTTPS_URL = '^[hH][tT][tT][pP][sS]?://';
/** What a chart may be without a repo: an OCI reference or a URL (http:// is refused by its own rule). */
export const OCI_OR_HTTP_URL = '^([oO][cC][iI]|[hH][tT][tT][pP][sS]?)://';
/** A URL of any scheme whose authority has userinfo (user@ or user:password@ before the first /, ? or #). */
export const URL_WITH_USERINFO = '^[A-Za-z][A-Za-z0-9+.-]*://[^/?#]*@';
/** A Go duration as time.ParseDuration reads it, unsigned (a negative timeout means nothing here). */
export const GO_DURATION = '^(([0-9]+([.][0-9]*)?|[.][0-9]+)(ns|us|µs|μs|ms|s|m|h))+$';
/** A namespace name (RFC 1123 label). */
export const DNS_LABEL = '^[a-z0-9]([-a-z0-9]*[a-z0-9])?$';
/** Standard base64 with padding, whitespace allowed between characters (YAML folds long strings). */
export const BASE64 = '^[A-Za-z0-9+/\\s]*=?\\s*=?\\s*$';

export function matches(pattern: string, value: string): boolean {
  return new RegExp(pattern, 'u').test(value);
}
