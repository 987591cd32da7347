import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { COOKIE_PREFIX } from "../../src/web/index.ts";

// What the page tests share: signing in through the form as a person does, the cookies the
// browser holds, and plain HTTP requests that carry a browser's cookie (for what a browser would
// not send by itself: a form without its token, an old cookie).

export const SESSION_COOKIE = `${COOKIE_PREFIX}_session`;

/** Signs in through the login form and waits for the page it leads to. */
export async function signIn(
  page: Page,
  url: string,
  login: string,
  password: string,
  options: { remember?: boolean } = {},
): Promise<void> {
  await page.goto(`${url}/login`);
  await page.getByLabel("Username or e-mail").fill(login);
  await page.getByLabel("Password", { exact: true }).fill(password);
  if (options.remember) await page.getByLabel("Remember me").check();
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name: "Login" }).click()]);
}

/** The session cookie the page's browser holds. */
export async function sessionCookie(page: Page) {
  const cookie = (await page.context().cookies()).find((c) => c.name === SESSION_COOKIE);
  assert.ok(cookie, "no session cookie");
  return cookie;
}

/** The CSRF token the current page's forms carry. */
export async function csrfToken(page: Page): Promise<string> {
  const token = await page.locator('input[name="_csrf"]').first().getAttribute("value");
  assert.ok(token, "no CSRF token on the page");
  return token;
}

/** A request with a browser's session cookie, redirects not followed. */
export function withCookie(
  url: string,
  path: string,
  session: string,
  options: {
    method?: string;
    form?: Record<string, string>;
    json?: unknown;
    headers?: Record<string, string>;
  } = {},
): Promise<Response> {
  const headers: Record<string, string> = { cookie: `${SESSION_COOKIE}=${session}`, ...options.headers };
  let body: string | undefined;
  if (options.form) {
    headers["content-type"] = "application/x-www-form-urlencoded";
    body = new URLSearchParams(options.form).toString();
  } else if (options.json !== undefined) {
    headers["content-type"] = "application/json";
    body = JSON.stringify(options.json);
  }
  return fetch(`${url}${path}`, { method: options.method ?? "GET", headers, body, redirect: "manual" });
}
