export {
  answerUnknownPaths,
  type Flash,
  type FlashKind,
  pageScope,
  registerWebPages,
  type WebPages,
  type WebPagesOptions,
} from "./pages.ts";
export {
  createWebSessionTable,
  DEFAULT_SESSION_LIMITS,
  type SessionLimits,
  type WebSession,
} from "./sessions.ts";
