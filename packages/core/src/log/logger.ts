import pino, { type Logger } from "pino";

export type { Logger };

// Field names that never reach a log line, wherever they appear in a logged object.
const SECRET_FIELDS = [
  "password",
  "token",
  "secret",
  "authorization",
  "cookie",
  "api_key",
  "apiKey",
  "sha1",
  "hmac",
  "signature",
];

export const redactPaths = [
  ...SECRET_FIELDS,
  ...SECRET_FIELDS.map((field) => `*.${field}`),
  "req.headers.authorization",
  "req.headers.cookie",
  'req.headers["x-gitea-signature"]',
  'req.headers["x-hub-signature"]',
  'req.headers["x-hub-signature-256"]',
  'req.headers["x-forge-signature"]',
  "res.headers['set-cookie']",
];

export interface LoggerOptions {
  level?: string;
  /** Human-readable lines; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  name?: string;
}

export function createLogger(options: LoggerOptions = {}): Logger {
  const pretty = options.pretty ?? process.stdout.isTTY === true;
  return pino({
    name: options.name,
    level: options.level ?? "info",
    redact: { paths: redactPaths, censor: "[redacted]" },
    ...(pretty
      ? {
          transport: {
            target: "pino-pretty",
            options: { colorize: true, translateTime: "SYS:standard", ignore: "pid,hostname" },
          },
        }
      : {}),
  });
}
