import assert from "node:assert/strict";
import type { Page } from "playwright-core";
import { api, type InventoryState } from "./inventory.ts";

// What the page tests share beyond the foundation's helpers (web.ts): rows made through the API,
// and a form's button pressed as a person does.

/** Creates a row through the API and answers its id. */
export async function made(
  inventory: InventoryState,
  path: string,
  body: Record<string, unknown>,
): Promise<number> {
  const answer = await api<{ status: string; payload: { id: number }; messages: unknown }>(
    inventory,
    "POST",
    path,
    { body },
  );
  assert.equal(answer.body.status, "success", `${path}: ${JSON.stringify(answer.body.messages)}`);
  return answer.body.payload.id;
}

/** Presses a form's button and waits for the page it leads to. */
export async function submit(page: Page, name: string): Promise<void> {
  await Promise.all([page.waitForNavigation(), page.getByRole("button", { name, exact: true }).click()]);
}
