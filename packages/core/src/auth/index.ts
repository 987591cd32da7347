export { hashPassword, verifyPassword } from "./passwords.ts";
export { generateTokenSecret, hashToken } from "./tokens.ts";
