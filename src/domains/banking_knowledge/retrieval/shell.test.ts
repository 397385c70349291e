import { describe, expect, it } from "vitest";
import { toolMessage } from "../../../cli/commands/tool.ts";
import { bankingKnowledgeDomain } from "../index.ts";
import { escapePattern, knowledgeBaseFiles, safeFileName, sanitizeOutput, shellText } from "./shell.ts";

describe("the shell tool's sandbox rules (upstream's SandboxManager)", () => {
  it("names files after document ids and writes INDEX.md sorted by id", () => {
    expect(safeFileName("doc_bank_accounts_bank_accounts_(general)_001")).toBe(
      "doc_bank_accounts_bank_accounts__general__001",
    );
    expect(safeFileName("a/b\\c..d é")).toBe("a_b_c_d_é");
    const files = knowledgeBaseFiles([
      { id: "b", title: "Second", content: "two" },
      { id: "a", title: "First", content: "one" },
    ]);
    expect([...files.keys()]).toEqual(["b.md", "a.md", "INDEX.md"]);
    expect(files.get("a.md")).toBe("# First\n\none");
    expect(files.get("INDEX.md")).toBe(
      "# Knowledge Base Index\n\n**Total documents:** 2\n\n## Documents\n\n- **a.md** - First\n- **b.md** - Second\n",
    );
  });

  it("refuses commands that could leave the folder, quoted text aside", () => {
    expect(escapePattern("cat ../secret")).toBe("..");
    expect(escapePattern("grep x /etc/passwd")).toBe("absolute path: /etc/passwd");
    expect(escapePattern("ls; cat /usr/x|wc")).toBe("absolute path: /usr/x");
    expect(escapePattern("/bin/ls")).toBe("absolute path: /bin/ls");
    expect(escapePattern("cat ~/x")).toBe("~");
    expect(escapePattern("echo $HOME")).toBe("$HOME");
    expect(escapePattern("grep -r 'a/b ../c' .")).toBeNull();
    expect(escapePattern('grep "~" INDEX.md')).toBeNull();
  });

  it("strips owners, dates and home folders from the output, and words results as upstream", () => {
    expect(sanitizeOutput("-rw-r--r-- 1 alice staff 120 Mar  3 10:22 a.md\n", "alice")).toBe(
      "-rw-r--r-- 1 kb_user  kb_group  120 Jan  1 00:00 a.md\n",
    );
    expect(sanitizeOutput("/home/alice/x and /home/alice\n", "alice")).toBe(
      "/home/kb_user/x and /home/kb_user\n",
    );
    expect(shellText("grep x .", { code: 1, stdout: "", stderr: "" })).toBe("No matches found.");
    expect(shellText("false", { code: 1, stdout: "", stderr: "" })).toBe("Command failed with exit code 1");
    expect(shellText("ls", { code: 2, stdout: "", stderr: "nope" })).toBe("Error (exit code 2): nope");
    expect(shellText("true", { code: 0, stdout: "", stderr: "" })).toBe("(no output)");
  });
});

const dataDir = process.env.TAU_DATA_DIR;

// Needs bubblewrap, socat and ripgrep (CI installs them); only the data folder may be absent.
describe.skipIf(!dataDir)("the shell tool in the real sandbox (skipped: TAU_DATA_DIR not set)", () => {
  it("runs commands over the exported knowledge base and refuses writes in read-only mode", async () => {
    const domain = bankingKnowledgeDomain.load(dataDir!).configure!({ retrievalConfig: "terminal_use" });
    domain.checkRequirements!();
    const shell = (command: string) =>
      toolMessage({ domain, name: "shell", argumentsJson: JSON.stringify({ command }) });
    const listing = await shell("ls | wc -l; head -3 INDEX.md; grep -q 'Rho-Bank' INDEX.md && echo ok");
    expect(listing.error, listing.content ?? "").toBe(false);
    expect(listing.content).toBe("699\n# Knowledge Base Index\n\n**Total documents:** 698\nok\n");
    const write = await shell("echo hacked > new.md 2>&1 || echo refused; ls new.md || echo absent");
    expect(write.content).toBe("refused\nabsent\n");
    expect((await shell("cat /etc/passwd")).content).toBe(
      "Error (exit code 1): Error: Command blocked - contains 'absolute path: /etc/passwd' which could escape the sandbox",
    );
  });

  it("keeps writes inside one environment's own folder with terminal_use_write", async () => {
    const domain = bankingKnowledgeDomain.load(dataDir!).configure!({
      retrievalConfig: "terminal_use_write",
    });
    const env = domain.makeEnvironment();
    const call = (command: string) =>
      env.respond({ id: "s", name: "shell", arguments: { command }, requestor: "assistant" });
    expect((await call("echo note > notes.md && cat notes.md")).content).toBe("note\n");
    const other = await toolMessage({ domain, name: "shell", argumentsJson: '{"command": "cat notes.md"}' });
    expect(other.content).toMatch(/^Error \(exit code 1\): .*No such file/s);
  });
});
