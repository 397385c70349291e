/**
 * Upstream's model-facing texts (tool descriptions, prompt templates), read at
 * run time from the data folder, where `tau data pull` / `tau data
 * extract-texts` put them after extracting them from the release's Python
 * sources. None of upstream's sentences are in this repository.
 *
 * For domain code: `loadUpstreamTexts(dataDir)` (null without the file), then
 * `withUpstreamToolTexts(tools, texts, "<upstream domain>")` for the tool
 * schemas, and `texts.tool(domain, name)` / `texts.text(key)` /
 * `texts.format(key, values)` for anything else (keys: {@link TAU2_TEXT}).
 */
export { cleandoc, parseDocstring, toolDescription } from "./docstring.ts";
export {
  type ExtractionRule,
  extractTexts,
  type Selector,
  type SourceReader,
  TextExtractionError,
  type TextSource,
  type TextSourceFile,
} from "./extract.ts";
export {
  TEXTS_FORMAT,
  TEXTS_FORMAT_VERSION,
  TextsEntry,
  TextsFile,
  ToolParamTexts,
  ToolTexts,
} from "./format.ts";
export {
  extractTextsFromCheckout,
  formatTemplate,
  loadUpstreamTexts,
  MissingTextError,
  type ModelTexts,
  parseTextsFile,
  type Template,
  TEXTS_HOW_TO,
  textsPath,
  textsRelativePath,
  UpstreamTexts,
  writeTextsFile,
} from "./store.ts";
export { TAU2_TEXT, TAU2_TEXT_SOURCE } from "./tau2.ts";
export { ToolTextsMismatchError, withUpstreamToolTexts } from "./tool-wording.ts";
