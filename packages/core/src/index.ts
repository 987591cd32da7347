export type { ServiceApp } from "./service.ts";
