export { freePort, type StartedApp, startApp } from "./app.ts";
export { forEachDatabase, type TestDatabase } from "./database.ts";
export { type TempDir, tempDir } from "./temp.ts";
