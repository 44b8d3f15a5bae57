"""``posecode-ssg eval`` usage errors and the missing-browser message (no browser needed)."""

from __future__ import annotations

import pytest

from posecode_ssg import cli
from posecode_ssg.evaluate import sampler
from posecode_ssg.evaluate.browser import INSTALL_HINT, BrowserUnavailable

GOOD = """posecode exercise "Calf raise"
  rig humanoid
  step "Rise" 1s settle:
    ankles: plantarflex 20
    ground-lock: feet
"""


def run(capsys, *argv):
    code = cli.main(["eval", *argv])
    out = capsys.readouterr()
    return code, out.out, out.err


def test_missing_path_is_a_usage_error(capsys, tmp_path):
    code, out, err = run(capsys, str(tmp_path / "nope.posecode"))
    assert code == 2 and "nope.posecode: no such file or directory" in err and out == ""


@pytest.mark.parametrize("hz", ["0", "-5", "nan", "1e9"])
def test_bad_hz_is_a_usage_error(capsys, tmp_path, hz):
    (tmp_path / "a.posecode").write_text(GOOD)
    code, _, err = run(capsys, str(tmp_path / "a.posecode"), "--hz", hz)
    assert code == 2 and "--hz must be between" in err


def test_no_hz_number_is_an_argparse_usage_error(capsys, tmp_path):
    code, _, err = run(capsys, str(tmp_path), "--hz", "fast")
    assert code == 2 and "fast" in err


def test_a_folder_without_documents_is_a_usage_error(capsys, tmp_path):
    (tmp_path / "notes.txt").write_text("nothing")
    code, _, err = run(capsys, str(tmp_path))
    assert code == 2 and "no Posecode documents found" in err


def test_a_document_that_does_not_parse_is_reported_with_file_line_column(capsys, tmp_path):
    bad = tmp_path / "bad.posecode"
    bad.write_text(GOOD.replace("ankles: plantarflex 20", "ankels: plantarflex 20"))
    code, out, err = run(capsys, str(bad))
    assert code == 2
    assert f"{bad}:4:5: error[" in err and "Traceback" not in err + out


def test_a_missing_browser_gives_one_clear_message(capsys, tmp_path, monkeypatch):
    (tmp_path / "a.posecode").write_text(GOOD)

    def no_browser():
        raise BrowserUnavailable(f"no Chromium browser found; {INSTALL_HINT}")

    monkeypatch.setattr(sampler, "start_browser", no_browser)
    code, out, err = run(capsys, str(tmp_path / "a.posecode"))
    assert code == 2 and out == ""
    assert "pip install 'posecode-ssg[eval]'" in err and "apt-get install chromium" in err
    assert len(err.strip().splitlines()) == 1


class FakePage:
    """Stands in for RuntimePage: returns synthetic samples of the still standing pose, with the
    left foot sliding ``slide`` metres forward during the first phase."""

    slide = 0.0

    def __init__(self):
        from eval_synthetic import RIG
        self.rig = RIG
        self.problems = []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None

    def sample(self, motion, hz):
        import numpy as np
        from eval_synthetic import move_foot, samples
        s = samples(motion, hz)
        delta = np.zeros((len(s.t), 3))
        # the slide ramps over the first phase (the only one holding the feet)
        delta[:, 2] = np.clip((s.t % s.timing.duration) / s.timing.times[1], 0, 1) * self.slide
        move_foot(s, "left", delta, np.ones(len(s.t), bool))
        return s


LOCKED = """posecode exercise "Hold"
  rig humanoid
  step "Hold" 1s settle:
    shoulders: flex 10
    ground-lock: feet
"""


@pytest.mark.parametrize("slide, code", [(0.007, 1), (0.002, 0)])
def test_exit_status_and_json_follow_the_thresholds(capsys, tmp_path, monkeypatch, slide, code):
    import json

    from posecode_ssg.commands import eval as eval_cmd

    (tmp_path / "hold.posecode").write_text(LOCKED)
    monkeypatch.setattr(eval_cmd, "RuntimePage", type("P", (FakePage,), {"slide": slide}))
    got, out, _ = run(capsys, str(tmp_path / "hold.posecode"), "--json")
    assert got == code
    data = json.loads(out)
    doc = data["documents"][0]
    assert data["passed"] is (code == 0) and doc["passed"] is (code == 0)
    assert doc["path"] == str(tmp_path / "hold.posecode")
    # the last 60 Hz sample of the phase is at 59/60 s
    assert doc["metrics"]["drift"] == pytest.approx(slide * 1000 * 59 / 60, abs=0.01)
    drift = [v for v in doc["violations"] if v["metric"] == "drift"]
    if code:
        assert drift[0]["phase"] == "Hold" and drift[0]["limit"] == 5.0 and drift[0]["value"] > 5
    else:
        assert drift == []
    # the table says the same
    got2, table, _ = run(capsys, str(tmp_path / "hold.posecode"))
    assert got2 == code and ("FAIL" in table) is bool(code)


FREE = """posecode exercise "Stand"
  rig humanoid
  step "Stand" 1s settle:
    shoulders: flex 10
"""


class LiftedPage(FakePage):
    """The still standing pose with the whole figure 9 mm above where the synthetic root puts it."""

    def sample(self, motion, hz):
        s = super().sample(motion, hz)
        s.pos[:, :, 1] += 0.009
        s.lm[:, :, 1] += 0.009
        return s


def test_float_is_a_column_of_the_table_and_a_key_of_the_json(capsys, tmp_path, monkeypatch):
    import json

    from posecode_ssg.commands import eval as eval_cmd

    (tmp_path / "stand.posecode").write_text(FREE)
    monkeypatch.setattr(eval_cmd, "RuntimePage", FakePage)
    got, out, _ = run(capsys, str(tmp_path / "stand.posecode"), "--json")
    grounded = json.loads(out)["documents"][0]["metrics"]["float"]
    assert got == 0 and grounded is not None and grounded <= 5.0
    monkeypatch.setattr(eval_cmd, "RuntimePage", LiftedPage)
    got, out, _ = run(capsys, str(tmp_path / "stand.posecode"), "--json")
    data = json.loads(out)
    assert got == 1 and data["thresholds"]["float"] == {"limit": 5.0, "unit": "mm", "fails": True}
    doc = data["documents"][0]
    assert doc["metrics"]["float"] == pytest.approx(grounded + 9.0, abs=0.001)
    (v,) = [v for v in doc["violations"] if v["metric"] == "float"]
    assert v["phase"] == "Stand" and v["fails"] and v["value"] == pytest.approx(grounded + 9.0, abs=0.001)
    got, table, _ = run(capsys, str(tmp_path / "stand.posecode"))
    head, row = table.splitlines()[1:3]
    assert got == 1 and "float" in head.split() and row.split()[-1] == "FAIL"
    assert row.split()[head.split().index("float")] == f"{grounded + 9.0:.1f}"
    assert "float mm" in table and "float ≤ 5" in table and " float " in table
