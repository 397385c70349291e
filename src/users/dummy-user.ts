/**
 * Upstream `DummyUser` (`dummy_user`, spec §4.4): the placeholder user of solo
 * runs. The solo agent never hands it the floor, so generating is an error.
 */
import type { Message, UserMessage } from "../core/messages.ts";
import { UserError } from "./errors.ts";
import type { User, UserInput } from "./types.ts";

/** Empty state: the dummy user keeps nothing. */
export type DummyUserState = Record<string, never>;

/** The user of solo runs; only valid with a solo agent. */
export class DummyUser implements User<DummyUserState> {
  readonly name = "dummy_user";

  initState(_history: readonly Message[]): DummyUserState {
    return {};
  }

  async generate(
    _input: UserInput,
    _state: DummyUserState,
  ): Promise<{ message: UserMessage; state: DummyUserState }> {
    throw new UserError(
      this.name,
      "the dummy user cannot generate messages (it is only a placeholder for solo agents)",
    );
  }

  setSeed(_seed: number): void {
    // Nothing is random about a user that never speaks.
  }
}
