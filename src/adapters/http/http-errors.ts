/** Errors that only exist at the HTTP edge (routing and media types). */
import { TesseraError } from "../../domain/errors.js";

export class UnknownUrlError extends TesseraError {
  constructor() {
    super("The resource you are looking for could not be found.");
  }
}

export class UnknownVersionError extends TesseraError {
  constructor() {
    super("The requested API version is not available on this server.");
  }
}

export class NotAcceptableError extends TesseraError {
  constructor() {
    super("Accept header should be one of ['application/json']");
  }
}

export class UnsupportedMediaTypeError extends TesseraError {
  constructor(accepted: readonly string[]) {
    super(`Content-Type header should be one of [${accepted.map((t) => `'${t}'`).join(", ")}]`);
  }
}

export class PayloadTooLargeError extends TesseraError {
  constructor() {
    super("Request body is too large.");
  }
}

/** End of service (`eos` setting) has passed: the API is gone. */
export class ServiceGoneError extends TesseraError {
  constructor(message: string) {
    super(message);
  }
}

/** A request Kinto refuses before any validation (bad URL encoding): 400 titled "Bad Request". */
export class BadRequestError extends TesseraError {
  constructor(message: string) {
    super(message);
  }
}

/** A per-client bound is reached (connections or event streams of one address or user): 429. */
export class TooManyRequestsError extends TesseraError {
  constructor(message: string) {
    super(message);
  }
}

/** Every connection is busy with a request (`max_connections`): 503, come back later. */
export class AtCapacityError extends TesseraError {
  constructor() {
    super("Service temporary unavailable due to overloading or maintenance (all connections are busy).");
  }
}
