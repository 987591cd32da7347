import pino, { type DestinationStream, type Logger } from "pino";
import { redactSecrets } from "./redact.ts";

export type { Logger };

export interface LoggerOptions {
  level?: string;
  /** Human-readable lines; defaults to whether stdout is a terminal. */
  pretty?: boolean;
  name?: string;
  /** Where JSON lines go instead of stdout (tests read them). */
  destination?: DestinationStream;
}

/**
 * The logger every service uses. Whatever object a line carries passes through redactSecrets
 * first, so a password, token or signature nested at any depth is never written; HTTP servers add
 * a request serializer that hides secret query parameters (see http/request-log.ts).
 */
export function createLogger(options: LoggerOptions = {}): Logger {
  const pretty = options.destination === undefined && (options.pretty ?? process.stdout.isTTY === true);
  const settings: pino.LoggerOptions = {
    name: options.name,
    level: options.level ?? "info",
    formatters: { log: (object) => redactSecrets(object) as Record<string, unknown> },
    ...(pretty
      ? {
          transport: {
            target: "pino-pretty",
            options: { colorize: true, translateTime: "SYS:standard", ignore: "pid,hostname" },
          },
        }
      : {}),
  };
  return options.destination ? pino(settings, options.destination) : pino(settings);
}
