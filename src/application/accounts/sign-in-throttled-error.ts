import { TesseraError } from "../../domain/errors.js";

/** Too many failed sign-ins for this account or from this address: come back after `retryAfterSeconds`. */
export class SignInThrottledError extends TesseraError {
  constructor(readonly retryAfterSeconds: number) {
    super("Too many failed sign-ins: retry later.");
  }
}
