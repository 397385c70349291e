/** The tools both original τ-bench domains have: `calculate`, `think`, `transfer_to_human_agents`. */
import { PythonError } from "../python-eval.ts";
import { calculateExpression } from "../python-eval.ts";
import { contains, iterate } from "./py.ts";
import { functionInfo, parameter, type Tau1Tool } from "./tool.ts";

const ALLOWED = "0123456789+-*/(). ";

/** `calculate`: the character check, then `str(round(float(eval(expression)), 2))`; eval errors become `Error: …`. */
export function calculateTool(module: string): Tau1Tool {
  return {
    name: "calculate",
    className: "Calculate",
    qualifiedName: `${module}.calculate.Calculate`,
    params: ["expression"],
    info: functionInfo("calculate", "Evaluate an arithmetic expression.", {
      expression: parameter(
        "string",
        "The expression, for example '2 + 2'. It may hold numbers, the operators + - * /, parentheses and spaces.",
      ),
    }),
    invoke(_data, { expression }) {
      // Outside upstream's try block: a non-iterable argument or a non-string element raises to the env.
      for (const char of iterate(expression)) {
        if (!contains(ALLOWED, char)) return "Error: invalid characters in expression";
      }
      try {
        if (typeof expression !== "string")
          throw new PythonError("TypeError", "eval() arg 1 must be a string, bytes or code object");
        return calculateExpression(expression);
      } catch (error) {
        if (error instanceof PythonError) return `Error: ${error.message}`;
        throw error;
      }
    },
  };
}

/** `think`: returns the empty string and changes nothing. */
export function thinkTool(module: string): Tau1Tool {
  return {
    name: "think",
    className: "Think",
    qualifiedName: `${module}.think.Think`,
    params: ["thought"],
    info: functionInfo(
      "think",
      "Think about something: it fetches nothing and changes nothing, the thought is only logged. Use it for complex reasoning or as a scratchpad.",
      { thought: parameter("string", "The thought.") },
    ),
    invoke: () => "",
  };
}

/** `transfer_to_human_agents`: the terminate tool; no checks, no state change. */
export function transferTool(module: string): Tau1Tool {
  return {
    name: "transfer_to_human_agents",
    className: "TransferToHumanAgents",
    qualifiedName: `${module}.transfer_to_human_agents.TransferToHumanAgents`,
    params: ["summary"],
    info: functionInfo(
      "transfer_to_human_agents",
      "Hand the user over to a human agent, with a summary of the issue. Only when the user explicitly asks for a human, or when the request cannot be handled within the policy and the tools.",
      { summary: parameter("string", "A summary of the user's issue.") },
    ),
    invoke: () => "Transfer successful",
  };
}
