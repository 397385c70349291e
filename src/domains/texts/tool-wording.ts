/**
 * Tool definitions worded with upstream's texts. The schema (types, defaults,
 * required, field order) stays what the domain declares; only the
 * descriptions — the tool's, each parameter's, and those of the `$defs` models
 * — are replaced by the extracted ones, and a description upstream does not
 * have is dropped. A tool or parameter the extraction does not know is an
 * error: it means the domain code and the release disagree.
 */
import { TauError } from "../../core/errors.ts";
import type { JsonSchema, ParamSpec, ToolDef } from "../../env/toolkit.ts";
import type { UpstreamTexts } from "./store.ts";

/** The domain's tools and the extracted texts disagree (a tool, parameter or model field is unknown). */
export class ToolTextsMismatchError extends TauError {}

function withDescription<T extends object>(value: T, description: string | null | undefined): T {
  const { description: _old, ...rest } = value as T & { description?: unknown };
  return (description === null || description === undefined ? rest : { ...rest, description }) as T;
}

function wordDef(
  texts: UpstreamTexts,
  domain: string,
  tool: string,
  name: string,
  def: JsonSchema,
): JsonSchema {
  // Enums carry no docstring upstream (pydantic gives them no description).
  if (Array.isArray(def.enum)) return withDescription(def, null);
  const model = texts.model(domain, name);
  if (!model)
    throw new ToolTextsMismatchError(
      `${texts.path} has no texts for the model '${name}' of ${domain} tool '${tool}'`,
    );
  const properties = (def.properties ?? {}) as Record<string, JsonSchema>;
  const worded: Record<string, JsonSchema> = {};
  for (const [field, schema] of Object.entries(properties)) {
    if (!model.fields.has(field))
      throw new ToolTextsMismatchError(
        `${texts.path}: the model '${name}' has no field '${field}' (${domain} tool '${tool}')`,
      );
    worded[field] = withDescription(schema, model.fields.get(field));
  }
  return withDescription({ ...def, properties: worded }, model.description);
}

/** The tools with upstream's descriptions; the tools unchanged when there are no texts. */
export function withUpstreamToolTexts<State>(
  tools: readonly ToolDef<State>[],
  texts: UpstreamTexts | null,
  domain: string,
): ToolDef<State>[] {
  if (texts === null) return [...tools];
  return tools.map((tool) => {
    const upstream = texts.tool(domain, tool.name);
    if (!upstream)
      throw new ToolTextsMismatchError(`${texts.path} has no texts for the ${domain} tool '${tool.name}'`);
    const ours = tool.params.map((param) => param.name).join(", ");
    const theirs = upstream.params.map((param) => param.name).join(", ");
    if (ours !== theirs)
      throw new ToolTextsMismatchError(
        `the ${domain} tool '${tool.name}' takes (${ours}) here but (${theirs}) in ${texts.release}`,
      );
    const params: ParamSpec[] = tool.params.map((param, index) =>
      withDescription(param, upstream.params[index]!.description),
    );
    const defs = tool.defs
      ? Object.fromEntries(
          Object.entries(tool.defs).map(([name, def]) => [
            name,
            wordDef(texts, domain, tool.name, name, def),
          ]),
        )
      : undefined;
    return { ...tool, description: upstream.description, params, ...(defs ? { defs } : {}) };
  });
}
