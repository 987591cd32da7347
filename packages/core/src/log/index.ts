export { createLogger, type Logger, type LoggerOptions } from "./logger.ts";
export { isSecretName, REDACTED, redactQuery, redactSecrets } from "./redact.ts";
