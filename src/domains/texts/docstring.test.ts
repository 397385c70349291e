/**
 * docstring_parser's behaviour as upstream's `Tool` sees it, on docstrings
 * written for these tests (each case was checked against docstring-parser
 * 0.18 + upstream's `Tool._get_description`).
 */
import { describe, expect, it } from "vitest";
import { cleandoc, DocstringStyleError, parseDocstring, toolDescription } from "./docstring.ts";

const describeTool = (doc: string) => {
  const parsed = parseDocstring(doc);
  return { description: toolDescription("the_tool", parsed), params: Object.fromEntries(parsed.params) };
};

describe("inspect.cleandoc", () => {
  it("strips the first line, removes the common indent of the rest and drops empty edge lines only", () => {
    expect(cleandoc("  First.\n\n      Second\n        third\n    ")).toBe("First.\n\nSecond\n  third");
    // A whitespace-only line keeps what is left after the margin; only zero-length lines are dropped at the ends.
    expect(cleandoc("\n    A\n      \n    B\n")).toBe("A\n  \nB");
    expect(cleandoc("\tTabbed\n\tline")).toBe("Tabbed\nline");
  });
});

describe("the description upstream composes", () => {
  it("splits at the first newline, so a wrapped first paragraph gets a blank line after its first line", () => {
    const doc = `Cancel a pending order. If it is already
        processed it cannot be cancelled.

        Args:
            order_id: The order id.
        `;
    expect(describeTool(doc)).toEqual({
      description: "Cancel a pending order. If it is already\n\nprocessed it cannot be cancelled.",
      params: { order_id: "The order id." },
    });
  });

  it("keeps a blank line that is already there, and inner indentation", () => {
    const doc = `Transfer the user.

        Only if
         -  they ask
        `;
    expect(describeTool(doc).description).toBe("Transfer the user.\n\nOnly if\n -  they ask");
  });

  it("drops Returns, Raises and Examples; only whole-line titles start a section", () => {
    const doc = `Returns the new state of the thing.
        Checks: nothing special.

        Returns:
            The state.

        Raises:
            ValueError: when it fails.
        `;
    expect(describeTool(doc)).toEqual({
      description: "Returns the new state of the thing.\n\nChecks: nothing special.",
      params: {},
    });
  });

  it("joins continuation lines of an argument with one newline and cleans them as a docstring of their own", () => {
    const doc = `Exchange items.

        Args:
            item_ids (List[str]): The ids to exchange,
                each like '1008292230'.
                    Indented more.
            note: Trailing space kept. 
        Unindented text ends the section.
        `;
    expect(describeTool(doc).params).toEqual({
      // cleandoc of the continuation: its first line loses all indent, the rest their common indent.
      item_ids: "The ids to exchange,\neach like '1008292230'.\nIndented more.",
      note: "Trailing space kept. ",
    });
  });

  it("falls back to the whole text when the Google parser fails (an entry without a colon)", () => {
    const doc = `Do it.

        Args:
            value: The value.

        Raises:
            ValueError if it is bad
        `;
    expect(describeTool(doc)).toEqual({
      description: "Do it.\n\nArgs:\n    value: The value.\n\nRaises:\n    ValueError if it is bad",
      params: {},
    });
  });

  it("uses the tool name for an empty docstring", () => {
    expect(describeTool("")).toEqual({ description: "the_tool", params: {} });
  });

  it("refuses docstrings another style parser would read differently", () => {
    expect(() => parseDocstring("Do it.\n\n:param x: the x")).toThrow(DocstringStyleError);
    expect(() => parseDocstring("Do it.\n\n@param x: the x")).toThrow(DocstringStyleError);
    expect(() => parseDocstring("Do it.\n\nParameters\n----------\nx : int")).toThrow(DocstringStyleError);
  });
});
