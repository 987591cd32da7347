// What log lines carry of a request's values: secrets redacted, huge values cut, in time that
// grows with what is shown, not with what was sent.
import assert from "node:assert/strict";
import { test } from "node:test";
import { LOG_VALUE_LIMIT, REDACTED, redactForLog, redactText } from "../../src/log/redact.ts";

test("secret members of JSON and secret pairs of a form are redacted", () => {
  assert.equal(
    redactText('{"password":"p1","nested":{"secret_value":"s\\"q","n":12,"ok":"visible"},"api_key" : null}'),
    `{"password":"${REDACTED}","nested":{"secret_value":"${REDACTED}","n":12,"ok":"visible"},"api_key" : "${REDACTED}"}`,
  );
  assert.equal(redactText('["token", "x"]'), '["token", "x"]');
  assert.equal(redactText('x"token": "v"'), `x"token": "${REDACTED}"`);
  assert.equal(redactText("a=1&token=abc&b=2"), `a=1&token=${REDACTED}&b=2`);
});

test("a hostile value is redacted in time that grows with its length", () => {
  const hostile = `{"secret${'\\"'.repeat(100_000)}`;
  const started = performance.now();
  assert.equal(redactText(hostile), hostile);
  const elapsed = performance.now() - started;
  assert.ok(elapsed < 2000, `took ${Math.round(elapsed)} ms`);
});

test("a huge value is cut; a secret split from its name by the cut is not shown", () => {
  const filler = "x".repeat(LOG_VALUE_LIMIT - 30);
  const secret = '"password": "my token is 12345678901234567890';
  const split = redactForLog(filler + secret);
  // Compared by their ends: a failure message would otherwise print 64 KiB.
  assert.equal(
    split.slice(filler.length),
    `"… [${filler.length + secret.length} characters in all; the rest is not logged]`,
  );
  const form = redactForLog(`${filler}a=1&password=abcdefghijklmnopqrstuvwxyz`);
  assert.equal(form.slice(filler.length, filler.length + 26), `a=1&password=${REDACTED}… [`);
  const long = redactForLog(`{"token":"s","b":"${"y".repeat(70_000)}"}`);
  assert.ok(long.startsWith(`{"token":"${REDACTED}","b":"yyy`));
  assert.ok(long.endsWith("… [70020 characters in all; the rest is not logged]"));
  assert.ok(long.length < LOG_VALUE_LIMIT + 100);
});
