/** Errors raised by user simulators (upstream `UserError`). */
import { TauError } from "../core/errors.ts";

/** The user could not produce a message (bad context, a user that cannot speak). Aborts the episode. */
export class UserError extends TauError {
  /** Registry name of the user that failed. */
  readonly userName: string;
  constructor(userName: string, message: string, options: { cause?: unknown } = {}) {
    super(`${userName}: ${message}`, options);
    this.userName = userName;
  }
}
