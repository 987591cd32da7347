import assert from "node:assert/strict";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { after, before } from "node:test";
import axe from "axe-core";
import { type Browser, type BrowserContext, chromium, type Page } from "playwright-core";
import { type TempDir, tempDir } from "./temp.ts";

// Pages are tested as a person uses them: Debian's chromium (package `chromium`, which CI installs)
// driven by playwright-core, with axe-core checking each page's accessibility. A test suite calls
// useBrowser() once; each test opens its own page (own cookies) with newPage().

/** Where Debian installs chromium; CHROMIUM_PATH points elsewhere. */
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

// Nothing but the page under test: no GPU, no sandbox (tests run as root in containers), no QUIC,
// no first-run dialogs, no calls home for updates, sync or anything else in the background.
const CHROMIUM_ARGS = [
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

export interface TestBrowser {
  readonly browser: Browser;
  /** A page in a fresh context (its own cookies), `width`×`height` CSS pixels (default 1280×800). */
  newPage(options?: { width?: number; height?: number }): Promise<Page>;
  /**
   * Saves a full-page screenshot as NAME.png in the suite's temporary folder (removed with it),
   * or in ANVIL_SCREENSHOTS_DIR when set, to be looked at; returns its path.
   */
  screenshot(page: Page, name: string): Promise<string>;
  close(): Promise<void>;
}

/** Starts a headless chromium (playwright-core gives it a fresh --user-data-dir). */
export async function launchBrowser(): Promise<TestBrowser> {
  const folder: TempDir = await tempDir("anvil-browser-");
  const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: CHROMIUM_ARGS });
  const contexts: BrowserContext[] = [];
  const shots = process.env.ANVIL_SCREENSHOTS_DIR ?? join(folder.path, "screenshots");
  return {
    browser,
    async newPage(options = {}) {
      const context = await browser.newContext({
        viewport: { width: options.width ?? 1280, height: options.height ?? 800 },
      });
      contexts.push(context);
      return context.newPage();
    },
    async screenshot(page, name) {
      await mkdir(shots, { recursive: true });
      const path = join(shots, `${name.replace(/[^A-Za-z0-9._-]+/g, "-")}.png`);
      await page.screenshot({ path, fullPage: true });
      return path;
    },
    async close() {
      await Promise.allSettled(contexts.map((context) => context.close()));
      await browser.close();
      await folder.remove();
    },
  };
}

/**
 * A browser for the tests of the calling suite: launched before them, closed after them. Read
 * `.current` inside a test.
 */
export function useBrowser(): { readonly current: TestBrowser } {
  const holder = { current: undefined as unknown as TestBrowser };
  before(async () => {
    holder.current = await launchBrowser();
  });
  after(() => holder.current?.close());
  return holder;
}

interface AxeViolation {
  id: string;
  impact?: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/**
 * Runs axe-core on the page as it is now and fails on any serious or critical violation, naming
 * each rule and the elements it found. Evaluated through the DevTools protocol, so the page's own
 * Content-Security-Policy stays in force for everything else.
 */
export async function assertAccessible(page: Page, what = page.url()): Promise<void> {
  await page.evaluate(axe.source);
  // Strings, not functions: they run in the page, and this package's types know no DOM.
  const violations = (await page.evaluate(
    `axe.run(document, { resultTypes: ["violations"] }).then((found) => found.violations.map((v) => ({
      id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((node) => ({ target: node.target })),
    })))`,
  )) as AxeViolation[];
  const serious = violations.filter((v) => v.impact === "serious" || v.impact === "critical");
  assert.deepEqual(
    serious.map(
      (v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`,
    ),
    [],
    `accessibility violations on ${what}`,
  );
}

/** How many CSS pixels the page is wider than its viewport (0: no horizontal scroll). */
export function horizontalOverflow(page: Page): Promise<number> {
  return page.evaluate<number>("document.documentElement.scrollWidth - document.documentElement.clientWidth");
}
