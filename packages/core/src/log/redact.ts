// What counts as a secret in a log line, and how it is hidden. Field names are compared without
// case, dashes or underscores, so `access_token`, `X-Gitea-Signature` and `apiKey` all match.

export const REDACTED = "[redacted]";

const SECRET_PARTS = [
  "password",
  "passwd",
  "passphrase",
  "secret",
  "token",
  "apikey",
  "authorization",
  "cookie",
  "signature",
  "hmac",
  "privatekey",
  "credential",
];

// Names that are secrets only as a whole: Gitea shows a new token's secret in `sha1`, and a
// one-time password travels in X-Gitea-OTP.
const SECRET_NAMES = new Set(["sha1", "otp", "xgiteaotp"]);

// Logged objects nest (a request body inside a context object); deeper than this is not walked.
const MAX_DEPTH = 12;

export function isSecretName(name: string): boolean {
  const normalized = name.toLowerCase().replace(/[^a-z0-9]/g, "");
  return SECRET_NAMES.has(normalized) || SECRET_PARTS.some((part) => normalized.includes(part));
}

function isPlainObject(value: object): value is Record<string, unknown> {
  const prototype = Object.getPrototypeOf(value);
  return prototype === Object.prototype || prototype === null;
}

/**
 * A copy of `value` with every secret-named field replaced, at any depth. Only plain objects and
 * arrays are walked: other objects (requests, errors) reach their log serializers untouched.
 */
export function redactSecrets(value: unknown, depth = 0): unknown {
  if (value === null || typeof value !== "object" || depth > MAX_DEPTH) return value;
  if (Array.isArray(value)) return value.map((item) => redactSecrets(item, depth + 1));
  if (!isPlainObject(value)) return value;
  const copy: Record<string, unknown> = {};
  for (const [key, item] of Object.entries(value)) {
    copy[key] = isSecretName(key) && item !== undefined ? REDACTED : redactSecrets(item, depth + 1);
  }
  return copy;
}

function decodedName(raw: string): string {
  try {
    return decodeURIComponent(raw.replace(/\+/g, " "));
  } catch {
    return raw;
  }
}

/** The URL (absolute or a request path) with the values of secret-named query parameters hidden. */
export function redactQuery(url: string): string {
  const start = url.indexOf("?");
  if (start === -1) return url;
  const end = url.indexOf("#", start);
  const query = url.slice(start + 1, end === -1 ? undefined : end);
  const redacted = query
    .split("&")
    .map((pair) => {
      const equals = pair.indexOf("=");
      const name = equals === -1 ? pair : pair.slice(0, equals);
      return equals !== -1 && isSecretName(decodedName(name)) ? `${name}=${REDACTED}` : pair;
    })
    .join("&");
  return `${url.slice(0, start + 1)}${redacted}${end === -1 ? "" : url.slice(end)}`;
}
