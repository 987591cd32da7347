// How long a fuzz run is: small by default so CI stays quick; longer or another seed from the
// environment, e.g. ANVIL_FUZZ_SEED=7 ANVIL_FUZZ_PER_ROUTE=200 scripts/test.sh packages/forge/test/fuzz/api.test.ts

export interface FuzzSettings {
  seed: number;
  /** Requests per operation (method and path) of the document. */
  perRoute: number;
  /** Longest a request or a health check may take. */
  boundMs: number;
  /** Send only these request numbers (to replay a failure alone). */
  only: Set<number> | undefined;
}

function parseWhole(name: string, text: string): number {
  const value = Number(text);
  if (!Number.isSafeInteger(value) || value < 0)
    throw new Error(`${name} must be a whole number, got "${text}"`);
  return value;
}

function whole(name: string, fallback: number): number {
  const text = process.env[name];
  return text === undefined || text === "" ? fallback : parseWhole(name, text);
}

/** The settings from the environment; `perRoute` is the service's default number of requests per operation. */
export function fuzzSettings(defaults: { perRoute: number }): FuzzSettings {
  const only = process.env.ANVIL_FUZZ_ONLY;
  return {
    seed: whole("ANVIL_FUZZ_SEED", 20261125),
    perRoute: whole("ANVIL_FUZZ_PER_ROUTE", defaults.perRoute),
    boundMs: whole("ANVIL_FUZZ_BOUND_MS", 2000),
    only: only ? new Set(only.split(",").map((item) => parseWhole("ANVIL_FUZZ_ONLY", item))) : undefined,
  };
}
