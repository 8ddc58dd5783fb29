/**
 * Words of the placeholders that example configurations put where a secret belongs
 * (deploy/kubernetes/secret.example.yaml: `CHANGE-to-the-output-of-openssl-rand-base64-32`). None
 * can occur in a hex secret, and fewer than one random base64 secret of 32 bytes in ten million holds one.
 */
const PLACEHOLDER_WORDS = ["change", "replace", "example", "placeholder"] as const;

/** The placeholder word `secret` contains (in any case), or undefined when it contains none. */
export function placeholderWord(secret: string): string | undefined {
  const lower = secret.toLowerCase();
  return PLACEHOLDER_WORDS.find((word) => lower.includes(word));
}
