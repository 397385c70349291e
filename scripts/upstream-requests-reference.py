"""Records what upstream tau2-bench sends to the LLM at the start of text runs,
as sha256 digests only (no upstream text leaves this script), for
src/runner/fixtures/upstream-requests.json.

Upstream's own code runs unchanged: build_text_orchestrator + run_simulation,
with litellm's `completion` replaced by a recorder that returns scripted
replies (the user says one thing, then stops; the agent answers in text; the
solo agent calls `done`; the NL judge returns no results). Third-party modules
that are not installed are replaced by inert stand-ins: only pydantic,
docstring_parser and loguru must be real, since they shape the requests.

Usage (Python 3.11+, with pydantic and docstring-parser installed):
  python scripts/upstream-requests-reference.py /path/to/tau2-bench /path/to/parent-of-tau2-data out.json
where the second folder holds `tau2/` (upstream's data/tau2). (stdout is not used: upstream prints to it.)
"""

import hashlib
import importlib.abc
import importlib.machinery
import json
import os
import sys
from types import SimpleNamespace
from unittest import mock

REAL = {"pydantic", "pydantic_core", "docstring_parser", "loguru", "typing_extensions", "annotated_types",
        "typing_inspection", "tau2", "toml"}


class StandIns(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Imports every missing third-party module as an inert MagicMock."""

    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in REAL:
            return None
        for finder in sys.meta_path:
            if finder is self:
                continue
            try:
                if finder.find_spec(name, path, target) is not None:
                    return None
            except Exception:
                pass
        return importlib.machinery.ModuleSpec(name, self, is_package=True)

    def create_module(self, spec):
        module = mock.MagicMock(name=spec.name)
        module.__path__ = []
        module.__spec__ = spec
        module.__name__ = spec.name
        return module

    def exec_module(self, module):
        pass


class AddictDict(dict):
    """addict.Dict's deep merge (upstream's update_pydantic_model_with_dict), for when addict is missing."""

    def __init__(self, data=None):
        super().__init__()
        for key, value in (data or {}).items():
            self[key] = AddictDict(value) if isinstance(value, dict) else value

    def update(self, other):
        for key, value in other.items():
            if isinstance(self.get(key), dict) and isinstance(value, dict):
                self[key].update(value)
            else:
                self[key] = AddictDict(value) if isinstance(value, dict) else value

    def to_dict(self):
        return {key: value.to_dict() if isinstance(value, AddictDict) else value for key, value in self.items()}


try:
    import addict  # noqa: F401
except ImportError:
    sys.modules["addict"] = SimpleNamespace(Dict=AddictDict)
sys.meta_path.append(StandIns())
checkout, data_parent, output = sys.argv[1], sys.argv[2], sys.argv[3]
sys.path.insert(0, os.path.join(checkout, "src"))
os.environ["TAU2_DATA_DIR"] = data_parent

from loguru import logger  # noqa: E402

logger.remove()

import tau2.agent.llm_agent as llm_agent_module  # noqa: E402
import tau2.evaluator.evaluator_nl_assertions as nl_module  # noqa: E402
import tau2.runner.build as build  # noqa: E402
import tau2.user.user_simulator as user_module  # noqa: E402
import tau2.utils.llm_utils as llm_utils  # noqa: E402
from tau2.data_model.simulation import TextRunConfig  # noqa: E402
from tau2.registry import registry  # noqa: E402
from tau2.runner.simulation import run_simulation  # noqa: E402
from tau2.user.user_simulator import DummyUser  # noqa: E402

calls = []
current = {"call_name": None, "user_turns": 0}


def recorded(generate):
    def wrapper(*args, call_name=None, **kwargs):
        current["call_name"] = call_name
        return generate(*args, call_name=call_name, **kwargs)

    return wrapper


for module in (llm_agent_module, user_module, nl_module):
    module.generate = recorded(module.generate)


def fake_completion(**kwargs):
    call = current["call_name"]
    calls.append((call, kwargs))
    tool_calls = None
    content = None
    if call == "nl_assertions_eval":
        content = '{"results": []}'
    elif call == "agent_solo_response":
        function = SimpleNamespace(name="done", arguments="{}")
        tool_calls = [SimpleNamespace(id="call_done", function=function)]
    elif call == "user_simulator_response":
        current["user_turns"] += 1
        content = "Hello, I need help." if current["user_turns"] == 1 else "###STOP###"
    else:
        content = "Sure."
    message = SimpleNamespace(role="assistant", content=content, tool_calls=tool_calls)
    return SimpleNamespace(choices=[SimpleNamespace(message=message, finish_reason="stop")], to_dict=lambda: {})


llm_utils.completion = fake_completion
llm_utils.get_response_cost = lambda response: 0.0
llm_utils.get_response_usage = lambda response: None

original_build_user = build.build_user


def build_user(user_name, environment, task, **kwargs):
    # Upstream's build_user passes arguments DummyUser() does not take (a v1.0.1 bug): build it bare.
    if user_name == "dummy_user":
        return DummyUser()
    return original_build_user(user_name, environment, task, **kwargs)


build.build_user = build_user

try:
    import tau2.domains.banking_knowledge.retrieval as retrieval

    # The shell tool's sandbox needs system binaries; its schema does not, and no tool is called here.
    retrieval._create_sandbox = lambda knowledge_base, spec: mock.MagicMock(name="sandbox")
except ImportError:
    pass


def sha(text):
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def digest(call_name, kwargs):
    messages = kwargs["messages"]
    tools = kwargs["tools"]
    extra = {k: v for k, v in kwargs.items() if k not in ("model", "messages", "tools", "tool_choice")}
    return {
        "call": call_name,
        "model": kwargs["model"],
        "tool_choice": kwargs["tool_choice"],
        "kwargs": extra,
        "roles": [m["role"] for m in messages],
        "system_sha256": sha(messages[0]["content"]) if messages and messages[0]["role"] == "system" else None,
        "contents_sha256": sha(json.dumps([[m["role"], m["content"]] for m in messages])),
        "tool_names": [t["function"]["name"] for t in tools] if tools else None,
        "tools_sha256": sha(json.dumps(tools, indent=2)) if tools else None,
        "tool_sha256": [sha(json.dumps(t, indent=2)) for t in tools] if tools else None,
    }


def tasks_of(domain):
    return registry.get_tasks_loader(domain)("base")


def valid_for(agent, tasks):
    factory_class = {"llm_agent_gt": llm_agent_module.LLMGTAgent, "llm_agent_solo": llm_agent_module.LLMSoloAgent}
    if agent not in factory_class:
        return tasks
    return [task for task in tasks if factory_class[agent].check_valid_task(task)]


PLAN = [
    ("mock", "llm_agent", "user_simulator", 10),
    ("mock", "llm_agent_gt", "user_simulator", 2),
    ("mock", "llm_agent_solo", "dummy_user", 2),
    ("airline", "llm_agent", "user_simulator", 3),
    ("airline", "llm_agent_gt", "user_simulator", 2),
    ("retail", "llm_agent", "user_simulator", 3),
    ("retail", "llm_agent_gt", "user_simulator", 2),
    ("telecom", "llm_agent", "user_simulator", 3),
    ("telecom", "llm_agent_gt", "user_simulator", 2),
    ("telecom", "llm_agent_solo", "dummy_user", 2),
    ("telecom-workflow", "llm_agent", "user_simulator", 2),
    ("telecom-workflow", "llm_agent_solo", "dummy_user", 1),
    ("banking_knowledge", "llm_agent", "user_simulator", 3),
    ("banking_knowledge@no_knowledge", "llm_agent", "user_simulator", 1),
    ("banking_knowledge@bm25_grep", "llm_agent", "user_simulator", 1),
    ("banking_knowledge@terminal_use", "llm_agent", "user_simulator", 1),
    ("banking_knowledge@golden_retrieval", "llm_agent", "user_simulator", 2),
]

cases = []
for domain_and_variant, agent, user, count in PLAN:
    domain, _, variant = domain_and_variant.partition("@")
    for task in valid_for(agent, tasks_of(domain))[:count]:
        calls.clear()
        current["user_turns"] = 0
        options = {"retrieval_config": variant} if variant else {}
        config = TextRunConfig(domain=domain, agent=agent, user=user, **options)
        try:
            run_simulation(build.build_text_orchestrator(config, task, seed=626729))
            failed = None
        except Exception as error:  # noqa: BLE001 - two mock tasks fail their own evaluation upstream
            failed = type(error).__name__
        cases.append(
            {
                "domain": domain,
                "retrieval_config": variant or None,
                "agent": agent,
                "user": user,
                "task_id": task.id,
                "error": failed,
                "requests": [digest(call_name, kwargs) for call_name, kwargs in calls],
            }
        )

result = {
    "what": "sha256 digests of the requests upstream tau2-bench sends at the start of text runs "
    "(scripts/upstream-requests-reference.py); no upstream text",
    "upstream_commit": "fc0055dc4e0a316c3f83133267fbd6faaa770992",
    "seed": 626729,
    "cases": cases,
}
with open(output, "w") as out:
    json.dump(result, out, indent=1)
    out.write("\n")
