/**
 * The JWS Compact Serialization as RFC 7515 (section 7.1) writes it: three base64url parts joined by
 * dots, each without padding and with the unused low bits of its last character zero (section 2,
 * "base64url encoding ... with all trailing '=' characters omitted"; appendix C). Base64 decoders,
 * jose's included, accept a padded part or one whose last character sets unused bits, so one token
 * has many spellings; each would verify, miss the verified-token cache and count as a token of its
 * own. Only the one canonical spelling is accepted. Written by hand: jose exposes no strict decoder.
 */
export function isCanonicalCompactJws(token: string): boolean {
  const first = token.indexOf(".");
  const second = token.indexOf(".", first + 1);
  if (first < 1 || second < 0 || token.indexOf(".", second + 1) !== -1) return false;
  return (
    isCanonicalBase64url(token, 0, first) &&
    isCanonicalBase64url(token, first + 1, second) &&
    isCanonicalBase64url(token, second + 1, token.length)
  );
}

/**
 * The JWS Signing Input of a compact token (its header and payload parts, as sent): what the
 * signature covers, so no one without the key can spell it differently and have it verify. The
 * signature part is not in it: ECDSA's (r, s) and (r, n - s) both verify, one token with two
 * signatures.
 */
export function signingInput(token: string): string {
  return token.slice(0, token.lastIndexOf("."));
}

/** Whether `text[start, end)` is unpadded base64url whose last character has no unused bit set. */
function isCanonicalBase64url(text: string, start: number, end: number): boolean {
  const length = end - start;
  // A length of 1 modulo 4 holds 6 bits: no whole byte.
  if (length % 4 === 1) return false;
  for (let i = start; i < end; i++) {
    if (sextet(text.charCodeAt(i)) < 0) return false;
  }
  if (length === 0) return true;
  const last = sextet(text.charCodeAt(end - 1));
  // Two characters carry one byte (4 bits unused), three carry two bytes (2 bits unused).
  if (length % 4 === 2) return (last & 0b1111) === 0;
  if (length % 4 === 3) return (last & 0b11) === 0;
  return true;
}

/** The value of a base64url character, or -1 for any other. */
function sextet(code: number): number {
  if (code >= 65 && code <= 90) return code - 65; // A-Z
  if (code >= 97 && code <= 122) return code - 71; // a-z
  if (code >= 48 && code <= 57) return code + 4; // 0-9
  if (code === 45) return 62; // -
  if (code === 95) return 63; // _
  return -1;
}
