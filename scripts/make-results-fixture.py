#!/usr/bin/env python3
"""Writes small upstream-shaped results fixtures for src/core/results.test.ts:

- src/core/fixtures/results-upstream.json: the monolithic layout, written the way
  upstream's checkpoint writer does (`json.dump(model_dump(), indent=2)`);
- src/core/fixtures/results-dir/: the dir layout (metadata with
  `simulation_index`, one file per simulation).

The content is invented (our own words); the shape follows spec §10: every
model field present, in pydantic declaration order, float fields as floats.
    python3 scripts/make-results-fixture.py
"""

import json
from pathlib import Path

FIXTURES = Path(__file__).resolve().parent.parent / "src" / "core" / "fixtures"

POLICY = "# Desk helper\n\nHelp people with their lamp orders. Check who they are first.\n"
GUIDELINES = "Act like a customer. Say ###STOP### once your goal is reached.\n"


def participant(role, content, tool_calls=None, turn_idx=0, timestamp="", cost=None, usage=None,
                raw_data=None, generation_time_seconds=None):
    return {
        "role": role,
        "content": content,
        "tool_calls": tool_calls,
        "is_audio": False,
        "turn_idx": turn_idx,
        "timestamp": timestamp,
        "cost": cost,
        "usage": usage,
        "raw_data": raw_data,
        "generation_time_seconds": generation_time_seconds,
        "audio_format": None,
        "audio_path": None,
        "audio_script_gold": None,
        "speech_effects": None,
        "source_effects": None,
        "channel_effects": None,
        "turn_taking_action": None,
        "utterance_ids": None,
        "chunk_id": None,
        "is_final_chunk": True,
        "source": None,
        "contains_speech": True,
    }


def tool_message(call_id, content, turn_idx, timestamp, requestor="assistant", error=False):
    return {
        "id": call_id,
        "role": "tool",
        "content": content,
        "requestor": requestor,
        "error": error,
        "turn_idx": turn_idx,
        "timestamp": timestamp,
    }


def tool_call(call_id, name, arguments, requestor="assistant"):
    return {"id": call_id, "name": name, "arguments": arguments, "requestor": requestor}


def action(action_id, name, arguments, requestor="assistant", compare_args=None):
    return {
        "action_id": action_id,
        "requestor": requestor,
        "name": name,
        "arguments": arguments,
        "info": None,
        "compare_args": compare_args,
    }


TASKS = [
    {
        "id": "refund_lamp_1",
        "description": {"purpose": "A refund with a fractional quantity.", "relevant_policies": None, "notes": None},
        "user_scenario": {
            "persona": None,
            "instructions": {
                "domain": "lamps",
                "reason_for_call": "Your lamp arrived broken and you want 2.0 units refunded.",
                "known_info": "Your account is user_1.",
                "unknown_info": None,
                "task_instructions": "Be brief. Accept a refund.",
            },
        },
        "ticket": None,
        "initial_state": None,
        "evaluation_criteria": {
            "actions": [action("refund_1", "refund_lamp", {"user_id": "user_1", "quantity": 2.0})],
            "env_assertions": None,
            "communicate_info": ["refund"],
            "nl_assertions": None,
            "reward_basis": ["DB", "COMMUNICATE"],
        },
        "issues": None,
        "required_documents": None,
        "user_tools": None,
    },
    {
        "id": "resume_chat",
        "description": None,
        "user_scenario": {"persona": "Patient, says caf\u00e9 a lot.", "instructions": "Ask about the status of order 7."},
        "ticket": "Order 7 status request.",
        "initial_state": {
            "initialization_data": {"agent_data": {"orders": {"7": {"status": "shipped"}}}, "user_data": None},
            "initialization_actions": [{"env_type": "user", "func_name": "set_mood", "arguments": {"mood": "calm"}}],
            "message_history": [
                participant("user", "Hello, where is order 7?", turn_idx=None, timestamp="2025-06-01T09:00:00.000000"),
                participant("assistant", None, [tool_call("h1", "get_order", {"order_id": "7"})], turn_idx=None,
                            timestamp="2025-06-01T09:00:01.000000"),
                tool_message("h1", '{"status": "shipped"}', None, "2025-06-01T09:00:02.000000"),
            ],
        },
        "evaluation_criteria": {
            "actions": [],
            "env_assertions": [
                {"env_type": "user", "func_name": "mood_is", "arguments": {"mood": "calm"}, "assert_value": True,
                 "message": None}
            ],
            "communicate_info": None,
            "nl_assertions": ["The agent says the order has shipped."],
            "reward_basis": ["ENV_ASSERTION", "NL_ASSERTION"],
        },
        "issues": [
            {"id": "i1", "title": "Wording", "description": None, "status": "resolved", "resolution": "Reworded.",
             "created_at": "2025-05-01", "resolved_at": None, "author_email": None, "pr_link": None,
             "simulation_file": None}
        ],
        "required_documents": None,
        "user_tools": None,
    },
]


def simulation(sim_id, task_id, trial, seed, termination_reason, messages, reward_info, agent_cost, user_cost,
               start, end, duration, info=None):
    return {
        "id": sim_id,
        "task_id": task_id,
        "timestamp": end,
        "start_time": start,
        "end_time": end,
        "duration": duration,
        "termination_reason": termination_reason,
        "agent_cost": agent_cost,
        "user_cost": user_cost,
        "agent_usage": None,
        "reward_info": reward_info,
        "messages": messages,
        "ticks": None,
        "trial": trial,
        "seed": seed,
        "mode": "half_duplex",
        "speech_environment": None,
        "review": None,
        "user_only_review": None,
        "info": info,
        "auth_classification": None,
        "hallucination_retries_used": 0,
        "hallucination_check": None,
        "provider_session_id": None,
        "policy": POLICY,
        "effect_timeline": None,
    }


T = "2025-06-01T10:00:0{}.000000"
SUCCESS = simulation(
    "0b5c1e0e-1111-4c1a-9d55-000000000001", "refund_lamp_1", 0, 626729, "user_stop",
    [
        participant("assistant", "Hi! How can I help you today?", turn_idx=0, timestamp=T.format(0), cost=0.0),
        participant("user", "My lamp broke \u2014 I need 2 refunded. I'm user_1.", turn_idx=1, timestamp=T.format(1),
                    cost=0.0012, usage={"completion_tokens": 18, "prompt_tokens": 310},
                    raw_data={"id": "resp-1", "choices": [{"index": 0, "finish_reason": "stop"}]}),
        participant("assistant", None, [tool_call("call_1", "refund_lamp", {"user_id": "user_1", "quantity": 2.0})],
                    turn_idx=2, timestamp=T.format(2), cost=0.30000000000000004,
                    usage={"completion_tokens": 25, "prompt_tokens": 900}, raw_data={"id": "resp-2"},
                    generation_time_seconds=0.84),
        tool_message("call_1", '{"refunded": 2.0, "currency": "USD"}', 3, T.format(3)),
        participant("assistant", "Done: your refund of 2 lamps is on its way.", turn_idx=4, timestamp=T.format(4),
                    cost=0.002, usage={"completion_tokens": 12, "prompt_tokens": 950}, raw_data=None,
                    generation_time_seconds=1.0),
        participant("user", "Thanks! ###STOP###", turn_idx=5, timestamp=T.format(5), cost=0.001,
                    usage={"completion_tokens": 5, "prompt_tokens": 400}),
    ],
    {
        "reward": 1.0,
        "db_check": {"db_match": True, "db_reward": 1.0},
        "env_assertions": None,
        "action_checks": [
            {"action": action("refund_1", "refund_lamp", {"user_id": "user_1", "quantity": 2.0}),
             "action_match": True, "action_reward": 1.0, "tool_type": "write"}
        ],
        "nl_assertions": None,
        "communicate_checks": [{"info": "refund", "met": True, "justification": "Found in an agent message."}],
        "reward_basis": ["DB", "COMMUNICATE"],
        "reward_breakdown": {"DB": 1.0, "COMMUNICATE": 1.0},
        "info": {"env": None, "nl": None, "communicate": None, "action": None},
    },
    0.30200000000000005, 0.0022, T.format(0), T.format(6), 6.25,
)

MAX_STEPS = simulation(
    "0b5c1e0e-2222-4c1a-9d55-000000000002", "resume_chat", 0, 626729, "max_steps",
    [
        participant("user", "Hello, where is order 7?", turn_idx=0, timestamp="2025-06-01T10:59:57.000000"),
        participant("assistant", None, [tool_call("h1", "get_order", {"order_id": "7"})], turn_idx=1,
                    timestamp="2025-06-01T10:59:58.000000"),
        tool_message("h1", '{"status": "shipped"}', 2, "2025-06-01T10:59:59.000000"),
        participant("assistant", "It shipped yesterday.", turn_idx=3, timestamp="2025-06-01T11:00:01.000000",
                    cost=0.001, usage={"completion_tokens": 6, "prompt_tokens": 500}),
    ],
    {
        "reward": 0.0,
        "db_check": None,
        "env_assertions": None,
        "action_checks": None,
        "nl_assertions": None,
        "communicate_checks": None,
        "reward_basis": None,
        "reward_breakdown": None,
        "info": {"note": "Simulation terminated prematurely. Termination reason: max_steps"},
    },
    None, None, "2025-06-01T11:00:00.000000", "2025-06-01T11:00:09.500000", 9.5,
)

INFRA = simulation(
    "0b5c1e0e-3333-4c1a-9d55-000000000003", "refund_lamp_1", 1, 373753, "infrastructure_error", [], None,
    None, None, "2025-06-01T12:00:00.000000", "2025-06-01T12:00:04.000000", 4.0,
    info={"error": "provider returned 503", "error_type": "APIError", "error_traceback": "Traceback: (elided)",
          "failed_after_attempts": 4},
)

INFO = {
    "git_commit": "a2c0247",
    "num_trials": 2,
    "max_steps": 200,
    "max_errors": 10,
    "user_info": {
        "implementation": "user_simulator",
        "llm": "gpt-4.1-2025-04-14",
        "llm_args": {"temperature": 0.0},
        "global_simulation_guidelines": GUIDELINES,
        "voice_settings": None,
        "persona_config": None,
    },
    "agent_info": {
        "implementation": "llm_agent",
        "llm": "gpt-4.1-2025-04-14",
        "llm_args": {"temperature": 0.0},
        "voice_settings": None,
    },
    "environment_info": {"domain_name": "lamps", "policy": POLICY, "tool_defs": None},
    "seed": 300,
    "text_streaming_config": {"chunk_by": "words", "chunk_size": 1},
    "speech_complexity": None,
    "audio_native_config": None,
    "retrieval_config": None,
    "retrieval_config_kwargs": None,
}

SIMULATIONS = [SUCCESS, MAX_STEPS, INFRA]


def main() -> None:
    results = {
        "timestamp": "2025-06-01T09:59:00.000000",
        "info": INFO,
        "tasks": TASKS,
        "simulations": SIMULATIONS,
        "simulation_index": None,
    }
    with open(FIXTURES / "results-upstream.json", "w") as f:
        json.dump(results, f, indent=2)

    # Dir layout: metadata via json.dump (ASCII), simulations as pydantic writes them (raw UTF-8).
    directory = FIXTURES / "results-dir"
    (directory / "simulations").mkdir(parents=True, exist_ok=True)
    meta = {key: value for key, value in results.items() if key != "simulations"}
    meta["simulation_index"] = [
        {
            "id": sim["id"],
            "task_id": sim["task_id"],
            "trial": sim["trial"],
            "reward": sim["reward_info"]["reward"] if sim["reward_info"] else None,
            "termination_reason": sim["termination_reason"],
            "agent_cost": sim["agent_cost"],
            "duration": sim["duration"],
        }
        for sim in SIMULATIONS
    ]
    with open(directory / "results.json", "w") as f:
        json.dump(meta, f, indent=2)
    for sim in SIMULATIONS:
        with open(directory / "simulations" / f"{sim['id']}.json", "w", encoding="utf-8") as f:
            f.write(json.dumps(sim, indent=2, ensure_ascii=False))
    print(f"wrote fixtures under {FIXTURES}")


if __name__ == "__main__":
    main()
