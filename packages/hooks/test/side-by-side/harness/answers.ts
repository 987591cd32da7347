// webhook's answers that many cases share (spec §6).
import type { Want } from "./harness.ts";

export const fired: Want = { status: 200, body: "fired", runs: 1 };
export const mismatch: Want = { status: 200, body: "Hook rules were not satisfied." };
export const ruleError: Want = { status: 500, body: "Error occurred while evaluating hook rules." };
export const hookNotFound: Want = { status: 404, body: "Hook not found." };
