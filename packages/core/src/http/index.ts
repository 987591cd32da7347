export {
  offsetWindow,
  type PageLimits,
  type PageWindow,
  pageWindow,
  paginationHeaders,
} from "./pagination.ts";
export {
  createHttpServer,
  type ErrorBody,
  type ErrorMapper,
  type HttpServer,
  type HttpServerOptions,
} from "./server.ts";
export { createHttpService, type HttpService, type HttpServiceOptions } from "./service.ts";
export { closeOnSignals } from "./shutdown.ts";
