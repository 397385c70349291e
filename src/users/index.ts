/** Public surface of the users layer: the seam, the registry and the built-in users. */
export { defineUser, type UserDefinitionInput } from "./define.ts";
export { DummyUser } from "./dummy-user.ts";
export { UserError } from "./errors.ts";
export {
  getUserDefinition,
  registerUser,
  type UserContext,
  type UserDefinition,
  userNames,
} from "./registry.ts";
export { pyIndent, renderUserScenario } from "./scenario.ts";
export { ScriptedUser } from "./scripted-user.ts";
export { isUserStop, USER_STOP_TOKENS, type User, type UserInput } from "./types.ts";
export { flipRoles, readGuidelines, UserSimulator, userSystemPrompt } from "./user-simulator.ts";
