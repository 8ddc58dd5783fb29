import { webcrypto } from "node:crypto";
import { AUTH_ALGORITHMS } from "../config/auth-algorithms.js";
import { ConfigError } from "../config/variables.js";

/**
 * Checks that this Node.js verifies each of `algorithms`: ML-DSA is in the Web Crypto of recent
 * releases only, and jose would otherwise refuse every token signed with it.
 */
export async function checkAlgorithmsSupported(algorithms: readonly string[]): Promise<void> {
  for (const alg of algorithms.filter((name) => name.startsWith("ML-DSA-"))) {
    try {
      await webcrypto.subtle.generateKey({ name: alg }, false, ["sign", "verify"]);
    } catch {
      throw new ConfigError(
        AUTH_ALGORITHMS.name,
        `lists ${alg}, which this Node.js (${process.version}) cannot verify: its Web Crypto lacks ML-DSA`,
      );
    }
  }
}
