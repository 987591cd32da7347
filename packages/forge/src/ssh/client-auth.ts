import type { Logger } from "@anvil/core";
import type { AuthContext } from "ssh2";
import { isValidAuthSignature } from "./auth-signature.ts";
import { type DecodedKey, decodeKeyBlob, fingerprintOf } from "./key-blob.ts";

/** The key a client logs in with: ssh2's algorithm name and blob, plus its SHA256 fingerprint. */
export interface SshClientKey {
  algo: string;
  data: Buffer;
  fingerprint: string;
}

/**
 * Finds who owns a key. `signed` tells a login (the key's signature verified) from a client's
 * query whether the key would do, which must change nothing.
 */
export type Authenticate<P> = (
  username: string,
  key: SshClientKey,
  signed: boolean,
) => Promise<P | undefined>;

// Like sshd's MaxAuthTries: a client offering key after key is not worth a lookup each.
const MAX_ATTEMPTS = 10;

/**
 * Answers one connection's authentication requests: public keys only, a key query is accepted
 * when the forge knows the key, a signed request when the signature also verifies. Calls
 * `onLogin` with the principal of the request that completes the login.
 */
export function publicKeyAuthenticator<P>(
  authenticate: Authenticate<P>,
  logger: Logger,
  onLogin: (principal: P, key: SshClientKey) => void,
  onTooManyAttempts: () => void,
): (context: AuthContext) => Promise<void> {
  let attempts = 0;
  return async (context) => {
    if (context.method !== "publickey") return context.reject(["publickey"]);
    attempts++;
    if (attempts > MAX_ATTEMPTS) {
      context.reject();
      return onTooManyAttempts();
    }
    const decoded = decodeOffered(context.key.data);
    if (decoded === undefined || decoded.type !== context.key.algo) return context.reject(["publickey"]);
    const { signature, blob } = context;
    const signed = signature !== undefined && blob !== undefined;
    if (signed && !isValidAuthSignature(decoded, blob, signature, context.hashAlgo)) {
      return context.reject(["publickey"]);
    }
    const key = {
      algo: context.key.algo,
      data: context.key.data,
      fingerprint: fingerprintOf(context.key.data),
    };
    let principal: P | undefined;
    try {
      principal = await authenticate(context.username, key, signed);
    } catch (error) {
      logger.error({ err: error, fingerprint: key.fingerprint }, "SSH key lookup failed");
    }
    if (principal === undefined) return context.reject(["publickey"]);
    if (signed) onLogin(principal, key);
    context.accept();
  };
}

function decodeOffered(blob: Buffer): DecodedKey | undefined {
  try {
    return decodeKeyBlob(blob);
  } catch {
    return undefined;
  }
}
