export {
  defaultUploadLimits,
  MalformedBody,
  type SavedUpload,
  type SavedUploads,
  saveUploads,
  type UploadLimits,
} from "./bodies.ts";
export { hasNul, NulCharacter } from "./body-check.ts";
export {
  offsetWindow,
  type PageLimits,
  type PageWindow,
  pageWindow,
  paginationHeaders,
} from "./pagination.ts";
export type {
  ErrorBody,
  ErrorContext,
  ErrorMapper,
  HttpProblem,
  TransportReason,
  ValidationIssue,
} from "./problem.ts";
export {
  createHttpServer,
  type HttpServer,
  type HttpServerOptions,
  type OpenApiOptions,
  publicUrl,
  type TrustProxy,
} from "./server.ts";
export { closeOnSignals } from "./shutdown.ts";
export { INTEGER_COLUMN } from "./validator.ts";
