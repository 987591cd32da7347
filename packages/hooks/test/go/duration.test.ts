// Go's time.Duration text forms: -command-timeout and hooks files' command-timeout read them,
// webhook's access log writes them.
import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { formatGoDuration, parseGoDuration } from "../../src/go/duration.ts";

describe("Go durations", () => {
  test("time.ParseDuration forms", () => {
    assert.equal(parseGoDuration("1h2m3.5s"), 3723500);
    assert.equal(parseGoDuration("1.5h"), 5400000);
    assert.equal(parseGoDuration("300ms"), 300);
    assert.equal(parseGoDuration("2µs"), 0.002);
    assert.equal(parseGoDuration("-1s"), -1000);
    assert.throws(() => parseGoDuration("1"), /missing unit in duration "1"/);
    assert.throws(() => parseGoDuration("1d"), /unknown unit "d" in duration "1d"/);
    assert.throws(() => parseGoDuration(""), /invalid duration/);
  });

  test("Duration.String forms used in the access log", () => {
    assert.equal(formatGoDuration(0), "0s");
    assert.equal(formatGoDuration(999), "999ns");
    assert.equal(formatGoDuration(41347), "41.347µs");
    assert.equal(formatGoDuration(3780621), "3.780621ms");
    assert.equal(formatGoDuration(1500000000), "1.5s");
    assert.equal(formatGoDuration(90e9), "1m30s");
    assert.equal(formatGoDuration(3723500000000), "1h2m3.5s");
  });
});
