/** Errors the HTTP layer turns into `{error: {code, message}}` responses. */

/** An error with an HTTP status, a machine-readable code and a human message. */
export class HttpError extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.name = "HttpError";
    this.status = status;
    this.code = code;
  }
}
