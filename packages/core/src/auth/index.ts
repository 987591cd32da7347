export { createLoginThrottleTable } from "./login-throttle.ts";
export { checkPasswordLogin, type PasswordAccounts, type PasswordLogin } from "./password-login.ts";
export {
  hashPassword,
  OWASP_SCRYPT_COST,
  passwordHashCost,
  passwordNeedsRehash,
  type ScryptCost,
  setPasswordHashCost,
  verifyPassword,
} from "./passwords.ts";
export {
  addEncryptionKey,
  createEncryptionKeyTable,
  type SecretCipher,
  secretCipher,
} from "./secret-cipher.ts";
export { generateTokenSecret, hashToken } from "./tokens.ts";
