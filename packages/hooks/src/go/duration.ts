// Go's time.Duration text forms: flags and hooks files take `30s`/`1m30s`/`500ms`, and webhook's
// access log prints elapsed times the way Duration.String() does (`41.347µs`, `3.780621ms`).

const NANOS_PER_UNIT: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3, // U+00B5 micro sign
  μs: 1e3, // U+03BC Greek mu, also accepted by Go
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
};

/** time.ParseDuration, in milliseconds; throws a RangeError carrying Go's message. */
export function parseGoDuration(text: string): number {
  let rest = text;
  let sign = 1;
  if (rest.startsWith("-") || rest.startsWith("+")) {
    if (rest[0] === "-") sign = -1;
    rest = rest.slice(1);
  }
  if (rest === "0") return 0;
  if (rest === "") throw new RangeError(`time: invalid duration "${text}"`);
  let nanos = 0;
  while (rest !== "") {
    const number = /^(\d*)(?:\.(\d*))?/.exec(rest)!;
    const [whole, intPart, fracPart = ""] = number;
    if (intPart === "" && fracPart === "") throw new RangeError(`time: invalid duration "${text}"`);
    rest = rest.slice(whole.length);
    const unit = /^[^\d.]*/.exec(rest)![0];
    if (unit === "") throw new RangeError(`time: missing unit in duration "${text}"`);
    const scale = NANOS_PER_UNIT[unit];
    if (scale === undefined) throw new RangeError(`time: unknown unit "${unit}" in duration "${text}"`);
    rest = rest.slice(unit.length);
    nanos += Number(`${intPart || "0"}.${fracPart || "0"}`) * scale;
  }
  if (nanos >= 2 ** 63) throw new RangeError(`time: invalid duration "${text}"`);
  return (sign * nanos) / 1e6;
}

/** Duration.String() for a non-negative number of nanoseconds. */
export function formatGoDuration(nanos: number): string {
  if (nanos === 0) return "0s";
  if (nanos < 1e3) return `${nanos}ns`;
  if (nanos < 1e6) return `${fixedPoint(nanos, 3)}µs`;
  if (nanos < 1e9) return `${fixedPoint(nanos, 6)}ms`;
  const totalSeconds = Math.floor(nanos / 1e9);
  const seconds = `${fixedPoint((totalSeconds % 60) * 1e9 + (nanos % 1e9), 9)}s`;
  const totalMinutes = Math.floor(totalSeconds / 60);
  if (totalMinutes === 0) return seconds;
  const hours = Math.floor(totalMinutes / 60);
  const minutes = `${totalMinutes % 60}m${seconds}`;
  return hours === 0 ? minutes : `${hours}h${minutes}`;
}

/** `value / 10^decimals` with trailing zeros of the fraction dropped, as Go's fmtFrac does. */
function fixedPoint(value: number, decimals: number): string {
  const scale = 10 ** decimals;
  const whole = Math.floor(value / scale);
  const fraction = String(Math.round(value % scale))
    .padStart(decimals, "0")
    .replace(/0+$/, "");
  return fraction === "" ? String(whole) : `${whole}.${fraction}`;
}
