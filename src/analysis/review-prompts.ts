/**
 * The reviewer's prompts: our own wording, in the structure of upstream's
 * (`review_llm_judge.py`, `review_llm_judge_user_only.py`,
 * `auth_classifier.py`): a goal, what the participants are, what counts as an
 * error on each side, the severities, upstream's fixed tag list, a workflow,
 * the inputs as tagged blocks, and the JSON reply format.
 */
import { REVIEW_ERROR_TAGS } from "../core/reviews.ts";

/** What each tag means, in our words (the names are upstream's and fixed). */
const TAG_MEANINGS: Record<(typeof REVIEW_ERROR_TAGS)[number], string> = {
  hallucination:
    "Stated something that nothing supports: not the guidelines, not the instructions, not a tool result. For the user this includes any concrete detail (an email, a zip code, a size, a colour, a product description) that the user instructions neither give nor imply.",
  incorrect_interpretation: "Misread what was available, such as a tool result or the other side's message.",
  guideline_violation: "Said or did something the policy or the guidelines do not allow.",
  revealed_info_early: "Gave information away before it was due, or before the required verification.",
  inconsistent_behavior: "Contradicted an earlier statement or action of the same conversation.",
  tool_call_schema_error:
    "Called a tool that does not exist, left out arguments, or passed arguments of the wrong type.",
  tool_call_argument_error: "Called a tool with a valid shape but wrong argument values.",
  irrelevant_tool_call:
    "Called a tool that has nothing to do with the task or the state of the conversation.",
  premature_termination:
    "Ended the conversation, or settled for an unfinished outcome, while the other side was still working and getting somewhere. Not this tag when the user gave up on an agent that was stuck, silent or failing again and again.",
  missed_required_action: "Left out an action the task required.",
  wrong_sequence: "Did the right actions in the wrong order.",
  other: "Only when no other tag fits; say in the reasoning what kind of error it is.",
};

const USER_TAGS_ONLY: readonly (typeof REVIEW_ERROR_TAGS)[number][] = REVIEW_ERROR_TAGS.filter(
  (tag) => !tag.startsWith("tool_call") && tag !== "irrelevant_tool_call",
);

function tagList(tags: readonly (typeof REVIEW_ERROR_TAGS)[number][]): string {
  return tags.map((tag) => `- **${tag}**: ${TAG_MEANINGS[tag]}`).join("\n");
}

const USER_PRINCIPLES = `1. **Check every fact the user states**: every concrete detail the user gives (names, emails, zip codes, sizes, colours, product descriptions, …) must appear in the <User Instructions> or follow from them. A detail that does not is a hallucination, however plausible it sounds. A user who lacks a piece of information should say so or ask the agent.

2. **Do not charge the agent's failures to the user**: when the agent stops answering, keeps failing or makes serious mistakes, a user who gives up or ends the call is reacting reasonably, not making an error. Use premature_termination for the user only when the agent was still working and making progress.`;

const USER_SEVERITIES = `- **critical_helped**: the user's error made the agent's job easier than the task intends (for instance, the user volunteered information they were not supposed to have).
- **critical_hindered**: the user's error made the task harder or impossible for the agent (for instance, wrong information, or instructions contradicted).
- **minor**: an error that did not change how the simulation ended.`;

/** System prompt of the full review (agent and user). */
export const FULL_REVIEW_SYSTEM_PROMPT = `# Goal
Review this conversation and find every error the user simulator or the agent made in it.

## Overview
We evaluate a customer-service **Agent**.
From a **Scenario**, a **User Simulator** plays a customer who talks to the Agent.
The User Simulator writes messages to the Agent; the Agent answers and may act through **Tools**.

A conversation (the **trajectory**) is a sequence of **turns** of four kinds:
- **User Turn**: a message from the User Simulator to the Agent
- **Agent Turn**: a message from the Agent to the User Simulator
- **Tool Turn**: a tool call the Agent sends to the tool server
- **Tool Response Turn**: the tool server's answer to the Agent

## Guidelines

### General rules
In every conversation:
- The Agent is bound by a **Policy**, the rules it must act by.
- The User Simulator is bound by **Simulation guidelines**, which say how to play its instructions.

### What a scenario specifies
Each conversation comes from one **Scenario**, which gives:
- the **User Instructions**;
- the **Actions** the Agent is expected to take;
- **Natural Language Assertions** the Agent must satisfy.

## How to review the conversation

### Errors in User Turns
For every User Turn, check whether the User Simulator:
- kept to the Simulation guidelines
- kept to the User Instructions
- did its part correctly
- stayed consistent with its earlier turns

### Principles for reviewing the user
${USER_PRINCIPLES}

### Severity of a user error
Give every user error one severity:
${USER_SEVERITIES}

### Errors in Agent Turns
For every Agent Turn, check whether the Agent:
- kept to the Policy
- did its part correctly
- stayed consistent with its earlier turns

### Severity of an agent error
Give every agent error one severity:
- **critical**: the error caused the task to fail, or broke an important security or policy rule (even if the task still succeeded).
- **minor**: the error was not the best behaviour but neither changed the outcome nor broke a critical rule.

### Error tags
Give every error one or more of these tags:
${tagList(REVIEW_ERROR_TAGS)}

### Workflow
Work through these steps:

1. **Check the user's facts**: compare every fact the user states with the <User Instructions>.

2. **Go turn by turn**: for every turn, decide whether it contains an error by the rules above, and note each one.

3. **Judge an early ending in context**: if the user ended the conversation early, flag premature_termination only if the agent was still making progress.

4. **Sum up**: say what happened in the conversation as a whole and which errors, if any, shaped the outcome.

5. **Write the reply**: put your findings in the JSON format below. List only turns that have an error.

# Inputs
- <Policy>: the Agent's policy.
- <Simulation Guidelines>: the User Simulator's guidelines.
- <User Instructions>: what the User Simulator was told to do.
- <Example Action Trajectory>: one sequence of actions that would complete the task. Other valid ways may exist, and this one may contain actions that are not needed.
- <Natural Language Assertions>: statements the Agent must satisfy.
- <Conversation>: the whole conversation between the User Simulator and the Agent.

# Output
Reply in this JSON format:
\`\`\`json
{
    "errors": [
        {
            "source": "user" or "agent" (whoever made the error),
            "error_tags": ["<tag1>", "<tag2>", ...],
            "severity": "minor" or "critical" (agent) / "minor" or "critical_helped" or "critical_hindered" (user),
            "turn_idx": <the turn number of the error>,
            "reasoning": "<why this is an error>",
            "correct_behavior": "<what should have happened instead>"
        }
    ],
    "summary": "<a short summary of the review>"
}
\`\`\`

- "errors": the errors found; an empty list when there are none.
- "summary": a short summary of the review and its main findings.

Reply with the JSON object only, nothing else.`;

/** The full review's user prompt: the inputs in tagged blocks. */
export function fullReviewUserPrompt(parts: {
  policy: string;
  simulationGuidelines: string;
  userInstructions: string;
  exampleActionTrajectory: string;
  naturalLanguageAssertions: string;
  conversation: string;
}): string {
  return [
    `<Policy>\n${parts.policy}\n</Policy>`,
    `<Simulation Guidelines>\n${parts.simulationGuidelines}\n</Simulation Guidelines>`,
    `<User Instructions>\n${parts.userInstructions}\n</User Instructions>`,
    `<Example Action Trajectory>\n${parts.exampleActionTrajectory}\n</Example Action Trajectory>`,
    `<Natural Language Assertions>\n${parts.naturalLanguageAssertions}\n</Natural Language Assertions>`,
    `<Conversation>\n${parts.conversation}\n</Conversation>`,
  ].join("\n\n");
}

/** System prompt of the user-only review; the simulator's guidelines go inside it, as upstream's. */
export function userReviewSystemPrompt(userGuidelines: string): string {
  return `# Goal
Review this conversation and find every error the user simulator made in it.

These are the general guidelines the user simulator was given:
<User Simulator Guidelines>
${userGuidelines}
</User Simulator Guidelines>

# Inputs
- <User Instructions>: what the user simulator was told to do in this conversation.
- <Conversation>: the whole conversation between the user simulator and the agent.

# Instructions
Read the <User Instructions> and the <Conversation>.
Go through the whole conversation and find EVERY user message in which the user simulator made an error.

A user message is an error when it:
- does not keep to the <User Simulator Guidelines> or the <User Instructions>;
- is not a natural or correct next step of the conversation;
- gives information that contradicts the <User Instructions>;
- shows knowledge the instructions say the user does not have.

## Principles for the review

${USER_PRINCIPLES}

## Severity of an error
Give every user error one severity:
${USER_SEVERITIES}

## Error tags
Give every error one or more of these tags:
${tagList(USER_TAGS_ONLY)}

## Workflow
Work through these steps:

1. **Check the user's facts**: compare every fact the user states with the <User Instructions>.

2. **Go message by message**: for every user message, decide whether it contains an error by the rules above, and note each one.

3. **Judge an early ending in context**: if the user ended the conversation early, flag premature_termination only if the agent was still making progress.

4. **Sum up**: say what happened in the conversation as a whole and which errors, if any, shaped the outcome.

5. **Write the reply**: put your findings in the JSON format below. List only messages that have an error.

# Output
Reply in this JSON format:
\`\`\`json
{
    "errors": [
        {
            "turn_idx": <the turn number of the error>,
            "error_tags": ["<tag1>", "<tag2>", ...],
            "severity": "minor" or "critical_helped" or "critical_hindered",
            "reasoning": "<why this is an error>",
            "user_message": "<the user message at fault>",
            "correct_behavior": "<what the user should have said or done instead>"
        }
    ],
    "summary": "<a short summary of the review>"
}
\`\`\`

- "errors": the errors found; an empty list when there are none.
- "summary": a short summary of the review and its main findings.

Reply with the JSON object only, nothing else.`;
}

/** The user-only review's user prompt. */
export function userReviewUserPrompt(parts: { userInstructions: string; conversation: string }): string {
  return `<User Instructions>\n${parts.userInstructions}\n</User Instructions>\n\n<Conversation>\n${parts.conversation}\n</Conversation>`;
}

/** System prompt of the authentication classification. */
export const AUTH_SYSTEM_PROMPT = `# Goal
Decide how authenticating the user turned out in this customer-service conversation.

## Background
Before touching an account, a customer-service agent usually has to establish who the user is.
Common ways to do that:
- looking the user up by email address
- checking name and zip code together
- other ways of verifying identity

## The options

Pick exactly one:

1. **succeeded**: the agent established who the user is
   - it verified the identity by email, by name and zip code, or otherwise
   - it found and confirmed the user's account
   - the conversation went on with the agent able to see the user's information

2. **failed**: the agent tried to establish who the user is and could not
   - no account matched what the user gave
   - the details the user gave did not agree with each other
   - the user could not be identified despite the attempts

3. **not_needed**: the task did not call for authentication
   - the conversation was about general information
   - nothing specific to an account had to be done
   - the task could be finished without knowing who the user is

## Instructions
1. Read the conversation carefully.
2. Find every attempt to authenticate (an email lookup, a name and zip code check, …).
3. Decide how those attempts ended.
4. If an early attempt failed but a later one identified the user, answer "succeeded".
5. If nobody tried to authenticate and nothing required it, answer "not_needed".

## Reply format
Reply with a JSON object only:
\`\`\`json
{
    "status": "succeeded" or "failed" or "not_needed",
    "reasoning": "a short explanation of the choice"
}
\`\`\``;

/** The classification's user prompt. */
export function authUserPrompt(conversation: string): string {
  return `<Conversation>\n${conversation}\n</Conversation>`;
}
