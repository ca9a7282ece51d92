import { TesseraError } from "../../domain/errors.js";

/** Too many failed sign-ins (or password hashes at once) for this account or from this address: come back after `retryAfterSeconds`. */
export class SignInThrottledError extends TesseraError {
  constructor(
    readonly retryAfterSeconds: number,
    message = "Too many failed sign-ins: retry later.",
  ) {
    super(message);
  }
}
