export { createLogger, type Logger, type LoggerOptions, redactPaths } from "./logger.ts";
