/**
 * Discoverable-tool texts (spec §5.1): upstream keeps a discoverable tool's
 * description and parameter list in its method's docstring and prints them
 * in tool outputs (`unlock_discoverable_agent_tool`, `give_discoverable_user_tool`).
 * The cleaned docstrings come from the extracted texts (`domains/texts/`);
 * this module parses them as `parse_discoverable_tool_docstring` does.
 */

/** A discoverable tool's parsed docstring. */
export interface ToolDoc {
  description: string;
  /** By name, in docstring order. */
  parameters: Map<string, { type: string; description: string; required: boolean }>;
}

const ARGS_SPLIT = /\n\s*Args:\s*\n/;
const RETURNS_SPLIT = /\n\s*Returns:\s*\n/;
const ARG_LINE = /^\s*(\w+)\s*(?:\(([^)]+)\))?\s*:\s*(.+?)$/gm;

/** `parse_discoverable_tool_docstring` of a cleaned docstring. */
export function parseToolDoc(doc: string): ToolDoc {
  const argsAt = ARGS_SPLIT.exec(doc);
  const description = (argsAt ? doc.slice(0, argsAt.index) : doc).trim();
  const parameters: ToolDoc["parameters"] = new Map();
  if (argsAt) {
    const rest = doc.slice(argsAt.index + argsAt[0].length);
    const returnsAt = RETURNS_SPLIT.exec(rest);
    const section = returnsAt ? rest.slice(0, returnsAt.index) : rest;
    for (const m of section.matchAll(ARG_LINE)) {
      const typeInfo = m[2] ?? "string";
      const type = typeInfo.replace(/,?\s*optional/gi, "").trim() || "string";
      parameters.set(m[1]!, {
        type,
        description: m[3]!.trim(),
        required: !typeInfo.toLowerCase().includes("optional"),
      });
    }
  }
  return { description, parameters };
}

/** `format_discoverable_tool_for_agent`. */
export function formatToolDoc(name: string, doc: ToolDoc): string {
  const lines = [...doc.parameters].map(
    ([param, p]) => `  - ${param}: ${p.type} ${p.required ? "(required)" : "(optional)"} - ${p.description}`,
  );
  return `Tool: ${name}\nDescription: ${doc.description}\nParameters:\n${lines.length > 0 ? lines.join("\n") : "  (no parameters)"}`;
}
