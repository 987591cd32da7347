import { Invalid } from "@anvil/core";
import { decodeKeyBlob, fingerprintOf, type KeyFamily } from "./key-blob.ts";
import { readKeyText } from "./key-text.ts";
import { MalformedKey } from "./wire.ts";

export interface ParsedPublicKey {
  /** The key's algorithm name, e.g. `ssh-ed25519`. */
  type: string;
  /** `<type> <base64>`, the form to store and to compare for "key already used". */
  content: string;
  comment: string;
  /** `SHA256:…` as `ssh-keygen -lf` prints it. */
  fingerprint: string;
  bits: number;
}

/** Minimum bits per key family; a family that is absent is not allowed at all. */
export type MinimumKeySizes = Readonly<Partial<Record<KeyFamily, number>>>;

/** Gitea's `[ssh.minimum_key_sizes]` defaults: 2047 lets 2048-bit RSA keys through, DSA is off. */
export const GITEA_MINIMUM_KEY_SIZES: MinimumKeySizes = {
  ed25519: 256,
  "ed25519-sk": 256,
  ecdsa: 256,
  "ecdsa-sk": 256,
  rsa: 2047,
};

/**
 * Parses a public key as a user pastes it (POST /user/keys, /admin/users/{u}/keys). Anything that
 * is not one well-formed, allowed public key throws Invalid with Gitea's "Invalid key content: …"
 * message.
 */
export function parsePublicKey(text: string, minimumKeySizes = GITEA_MINIMUM_KEY_SIZES): ParsedPublicKey {
  try {
    const { declaredType, blob, comment } = readKeyText(text);
    const key = decodeKeyBlob(blob);
    if (declaredType !== undefined && declaredType !== key.type) {
      throw new MalformedKey(`key type and content does not match: ${declaredType} - ${key.type}`);
    }
    const minimum = minimumKeySizes[key.family];
    if (minimum === undefined) throw new MalformedKey(`key type is not allowed: ${key.family}`);
    if (key.bits < minimum)
      throw new MalformedKey(`key length is not enough: got ${key.bits}, needs ${minimum}`);
    return {
      type: key.type,
      content: `${key.type} ${blob.toString("base64")}`,
      comment,
      fingerprint: fingerprintOf(blob),
      bits: key.bits,
    };
  } catch (error) {
    if (error instanceof MalformedKey) throw new Invalid(`Invalid key content: ${error.message}`);
    throw error;
  }
}
