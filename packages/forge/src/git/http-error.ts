/**
 * A git HTTP request refused as a whole (an unknown media type, a body too large). It carries
 * its status as fastify's own errors do, so the service's error mapper answers with it.
 */
export class GitHttpError extends Error {
  readonly statusCode: number;
  constructor(statusCode: 400 | 413 | 415, message: string) {
    super(message);
    this.name = "GitHttpError";
    this.statusCode = statusCode;
  }
}
