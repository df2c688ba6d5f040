"""Rubric metrics without code: the TOML format, the stored rubrics, the judged
metric against the scripted LLM server, offline unscored, the signature, the CLI."""
import json

import pytest

from rageval.cli import main
from rageval.config import RunConfig
from rageval.errors import ConfigError
from rageval.metrics.base import evaluate, get_metric, parse_metric_list
from rageval.types import Resources, Sample
from rageval.project import open_project
from rageval.runs.rubrics import project_rubrics, resolve
from rageval.prompts.rubric import Rubric, parse_rubric
from devtools.judge_responder import respond

TOML = '''
name = "politeness"
description = "Is the answer polite and professional towards a customer?"
criteria = ["greets or thanks where natural", "no blame on the customer"]
needs = ["reference"]

[anchors]
1 = "rude or dismissive"
2 = "curt"
3 = "neutral"
4 = "polite with a lapse"
5 = "polite and warm"
'''


def test_parse_a_rubric_file():
    r = parse_rubric(TOML)
    assert r.metric == "rubric:politeness" and r.needs == ("reference",)
    assert r.anchors[0] == "rude or dismissive" and len(r.criteria) == 2
    assert Rubric.from_dict(json.loads(json.dumps(r.to_dict()))) == r  # stored and read back unchanged


@pytest.mark.parametrize("edit, message", [
    (('name = "politeness"', 'name = "Polite ness"'), "must be 1-40 lower-case letters"),
    (('5 = "polite and warm"\n', ''), "[anchors] must describe each score 1, 2, 3, 4 and 5"),
    (('description = "Is the answer polite and professional towards a customer?"', 'description = ""'),
     "description must be a non-empty string"),
    (('needs = ["reference"]', 'needs = ["gold"]'), "a rubric may need reference, contexts"),
    (('criteria = [', 'criteria = [[1], '), "criteria must be a non-empty string"),
    (('[anchors]', '[anchors'), "not valid TOML"),
])
def test_bad_rubrics_say_what_to_fix(edit, message):
    with pytest.raises(ConfigError, match=message.replace("[", r"\[").replace("]", r"\]")):
        parse_rubric(TOML.replace(*edit), "bad.toml")


def test_signature_pins_the_rubric_text_and_the_judge():
    r = parse_rubric(TOML)
    edited = parse_rubric(TOML.replace("curt", "short and cold"))
    a = get_metric("rubric:politeness", rubrics={"politeness": r}, judge="openai:m")
    b = get_metric("rubric:politeness", rubrics={"politeness": edited}, judge="openai:m")
    assert a.signature() != b.signature() and f"rubric:{r.digest()}" in a.signature()
    assert "prompt:" in a.signature() and "judge:openai:m" in a.signature()
    long = parse_rubric(TOML.replace("curt", "curt " * 300))
    b_long = get_metric("rubric:politeness", rubrics={"politeness": long}, judge="openai:m")
    assert b_long.llm_prompt_chars > a.llm_prompt_chars + 1000  # the estimate counts the rubric's text
    assert get_metric("rubric:politeness", rubrics={"politeness": r}).signature() != a.signature()
    with pytest.raises(ConfigError, match="unknown rubric metric 'rubric:tone'"):
        parse_metric_list("token_f1,rubric:tone", rubrics={"politeness": r})


def test_offline_every_answer_is_unscored_with_a_reason():
    metric = get_metric("rubric:politeness", rubrics={"politeness": parse_rubric(TOML)})
    samples = [Sample(id="1", question="q?", answer="Thanks for asking!", references=("ref",)),
               Sample(id="2", question="q?", answer="no", references=())]
    got = evaluate(samples, [metric], Resources())["rubric:politeness"]
    assert [(s.status, s.reason) for s in got] == [("unscored", "no_llm_judge"), ("unscored", "no_reference")]


def test_judged_through_the_scripted_server(llm_env):
    from rageval.llm.client import make_llm_client

    llm_env.script(responder=respond)
    metric = get_metric("rubric:politeness", rubrics={"politeness": parse_rubric(TOML)}, judge="openai:rubric-judge")
    client = make_llm_client({"judge": "openai:rubric-judge"}, concurrency=2, use_cache=False, max_retries=1,
                             timeout=5.0, backoff_base=0.01, backoff_cap=0.05)
    try:
        got = evaluate([Sample(id="1", question="Where is my parcel?", answer="It left the depot today, thanks!",
                               references=("It is on its way.",), contexts=("secret context",))],
                       [metric], Resources(llm=client))["rubric:politeness"]
    finally:
        client.close()
    assert got[0].status == "ok" and got[0].value == 0.5  # the scripted judge rates 3 -> (3 - 1) / 4
    assert got[0].details["rating"] == 3 and got[0].details["judge"] == "openai:rubric-judge"
    prompt = llm_env.bodies()[-1]["messages"][0]["content"]
    assert "no blame on the customer" in prompt and "5 = polite and warm" in prompt
    assert "<reference>\nIt is on its way.\n</reference>" in prompt
    assert "secret context" not in prompt and "(not used by this rubric)" in prompt  # contexts not needed


def test_run_config_keeps_the_rubric_and_its_hash(tmp_path, monkeypatch):
    r = parse_rubric(TOML)
    plain = RunConfig(corpus="c", qa_set="q")
    config = RunConfig(corpus="c", qa_set="q", metrics=("token_f1", r.metric), rubrics=(r,))
    assert RunConfig.from_dict(config.to_dict()) == config
    assert "rubrics" not in plain.result_fields()  # runs made before rubrics keep their hash
    assert config.config_hash() != RunConfig(corpus="c", qa_set="q", metrics=("token_f1", r.metric),
                                             rubrics=(parse_rubric(TOML.replace("curt", "cold")),)).config_hash()
    assert [m.name for m in parse_metric_list(config.metrics, **config.metric_options())] == ["token_f1", r.metric]


def test_cli_rubric_add_list_and_score(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    rubric = tmp_path / "politeness.toml"
    rubric.write_text(TOML, encoding="utf-8")
    assert main(["rubric", "add", str(rubric), "--project", "rb"]) == 0
    assert "rubric:politeness" in capsys.readouterr().out
    assert main(["rubric", "list", "--project", "rb", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["rubrics"][0]["metric"] == "rubric:politeness"
    assert list(project_rubrics(open_project("rb"))) == ["politeness"]
    (tmp_path / "bad.toml").write_text("name = 3", encoding="utf-8")
    assert main(["rubric", "add", str(tmp_path / "bad.toml"), "--project", "rb"]) == 2
    answers = tmp_path / "answers.jsonl"
    answers.write_text(json.dumps({"id": "a", "question": "q?", "answer": "Thanks!", "reference": "r"}) + "\n")
    # a stored rubric by name, offline: scored rows say why they are unscored
    assert main(["score", str(answers), "--metrics", "token_f1,rubric:politeness", "--project", "rb"]) == 0
    row = json.loads(capsys.readouterr().out)
    assert row["rubric:politeness"] is None and row["rubric:politeness_status"] == "unscored: no_llm_judge"
    assert main(["score", str(answers), "--metrics", "token_f1", "--rubric", str(rubric), "--project", "other",
                 "--no-store"]) == 0
    assert "rubric:politeness_status" in json.loads(capsys.readouterr().out)
    assert main(["score", str(answers), "--metrics", "rubric:nope", "--project", "rb"]) == 2
    assert "no rubric 'nope'" in capsys.readouterr().err
    assert resolve(["rubric:politeness"], {}, open_project("rb"))[0].name == "politeness"


def test_a_judged_run_with_a_rubric_file(tmp_path, monkeypatch, llm_env, capsys):
    """`run --rubric FILE --judge openai:M` against the scripted server: the estimate counts one call per
    answer, the values are stored and show in the leaderboard and the exports like any metric."""
    from rageval.report.exports import export_run
    from rageval.report.leaderboard import leaderboard
    from devtools.projects import QA, write_docs

    monkeypatch.setenv("RAGEVAL_HOME", str(tmp_path / "home"))
    llm_env.script(responder=respond)
    rubric = tmp_path / "politeness.toml"
    rubric.write_text(TOML, encoding="utf-8")
    assert main(["ingest", str(write_docs(tmp_path / "docs")), "--corpus", "c"]) == 0
    (tmp_path / "qa.jsonl").write_text("".join(json.dumps(r) + "\n" for r in QA), encoding="utf-8")
    assert main(["qa", "import", str(tmp_path / "qa.jsonl"), "--name", "qa"]) == 0
    args = ["run", "--corpus", "c", "--qa", "qa", "--metrics", "token_f1", "--rubric", str(rubric),
            "--judge", "openai:rubric-run", "--top-k", "3", "--json"]
    capsys.readouterr()
    assert main(args + ["--dry-run"]) == 0
    assert json.loads(capsys.readouterr().out)["calls"] == len(QA)  # one judge call per answer
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    scores = {s["metric"]: s for s in out["scores"]}
    assert scores["rubric:politeness"]["mean"] == pytest.approx(0.5) and scores["rubric:politeness"]["scored"] == 5
    project = open_project(None)
    board = leaderboard(project)
    assert "rubric:politeness" in board.metrics
    assert '"rubric:politeness": 0.5' in export_run(project, out["run_id"], "jsonl")
