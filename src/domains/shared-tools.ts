/** Tools every domain shares. */
import { pyTypeName } from "../core/py-json.ts";
import { param, PyTypeError, type ToolDef } from "../env/toolkit.ts";
import { CALCULATE_CHARACTERS, calculateExpression, PythonError } from "./python-eval.ts";
import { pyIterate } from "./python-ops.ts";

/** `transfer_to_human_agents`: no checks, no state change (common.md §11). */
export const transferToHumanAgents: ToolDef = {
  name: "transfer_to_human_agents",
  kind: "generic",
  description:
    "Hand the conversation over to a human agent, with a summary of the user's issue. " +
    "Use it only when the user explicitly asks for a human agent, or when the issue cannot be " +
    "resolved with the policy and the available tools.",
  params: [param("summary", { type: "string" }, "A summary of the user's issue.")],
  run: () => "Transfer successful",
};

/** `calculate` (retail and airline): Python arithmetic rounded to 2 decimals (retail.md §calculate). */
export const calculate: ToolDef = {
  name: "calculate",
  kind: "generic",
  description: "Evaluate an arithmetic expression and return the result.",
  params: [
    param(
      "expression",
      { type: "string" },
      "The expression to evaluate, such as '2 + 2'. Only numbers, the operators +, -, *, /, " +
        "parentheses and spaces may appear.",
    ),
  ],
  run: (_context, args) => {
    const expression = args.expression;
    if (typeof expression !== "string") {
      // Upstream checks `char in allowed` for each element (a dict's keys) before calling eval on the argument.
      for (const item of pyIterate(expression)) {
        if (typeof item !== "string")
          throw new PyTypeError(`'in <string>' requires string as left operand, not ${pyTypeName(item)}`);
        if (!CALCULATE_CHARACTERS.includes(item))
          throw new PythonError("ValueError", "Invalid characters in expression");
      }
      throw new PyTypeError("eval() arg 1 must be a string, bytes or code object");
    }
    // python-eval.ts matches CPython on syntax-error precedence, int/int division and integer powers.
    return calculateExpression(expression);
  },
};
