"""Equipment on the figure (issue 20): the fence attribute and front matter words, the hands that
close around what they hold, where each item attaches on a solved world, the mat's footprint, the
band's anchor and the attach warnings."""

from __future__ import annotations

import math

import numpy as np
import pytest

from posecode_ssg.language import parse
from posecode_ssg.motion import compile_ir
from posecode_ssg.motion.equipment import (
    GEOMETRY,
    WORDS,
    attach,
    holding_sides,
    page_equipment,
    place_equipment,
    read_equipment,
    sternum,
)
from posecode_ssg.motion.rig import HAND_STATES
from posecode_ssg.motion.solve import solve_keyframes
from posecode_ssg.site.figures import compile_figure, figure_key
from posecode_ssg.site.markdown import parse_info

from helpers_motion import demo_figure

#: content/strength/dumbbell-lateral-raise.md: shoulders abducted 85 with the elbows at 15, and back
RAISE, _ = demo_figure("strength/dumbbell-lateral-raise.md")
#: content/strength/dead-bug.md: lying supine, arms up and legs in tabletop, one arm and the
#: opposite leg reaching away in turn
DEAD_BUG, _ = demo_figure("strength/dead-bug.md")

#: a plank whose 'Tap' plants both hands and whose 'Hold' plants only the left (the demo's plank
#: plants both throughout)
PLANK_REACH = """posecode exercise "Plank shoulder tap"
  rig humanoid
  pose start = plank
  step "Tap" 1s flow:
    ground-lock: hands, feet
  step "Hold" 1s flow:
    ground-lock: feet
    ground-lock: hand_left
"""

#: straight arms abducted 90: the hands too far apart to hold one bar
WIDE = """posecode exercise "Wide arms"
  rig humanoid
  pose start = standing
  step "Open" 1s flow:
    shoulders: abduct 90
    elbows: flex 0
    ground-lock: feet
"""


def program_with(source: str, words):
    program = compile_ir(parse(source).ir, holding=holding_sides(words))
    problems = place_equipment(program, words)
    return program, problems


def worlds(program):
    sol = solve_keyframes(program)
    return [sol.base, *(p.world for p in sol.phases)]


def test_fence_attribute_reads_known_words_and_suggests_unknown_ones():
    words, problems = read_equipment("mat dumbbells mat")
    assert words == ("dumbbells", "mat")   # WORDS order, duplicates dropped
    words, problems = read_equipment("dumbell matt")
    assert words == ()
    assert problems == ["unknown equipment 'dumbell' (did you mean 'dumbbells'?)",
                        "unknown equipment 'matt' (did you mean 'mat'?)"]
    assert read_equipment("") == ((), [])
    # "none", the front matter's word for no equipment, is none (export's --equipment none)
    assert read_equipment("none") == ((), []) and read_equipment("None mat") == (("mat",), [])
    # the front matter's singular word, and "medicine ball" written with its space, are known
    assert read_equipment("dumbbell medicine ball") == (("dumbbells", "medicine-ball"), [])
    assert read_equipment("medicine") == ((), ["unknown equipment 'medicine' (did you mean 'medicine-ball'?)"])
    info = parse_info('posecode equipment="kettlebell treadmill"')
    assert info.attrs["equipment"] == ("kettlebell",)
    assert any("treadmill" in p for p in info.problems)
    assert parse_info('posecode equipment=""').attrs["equipment"] == ()


def test_front_matter_draws_only_the_unambiguous_items():
    # a band may be under the feet or anchored, a barbell held or on the back: not drawn
    assert page_equipment(["dumbbell", "band", "barbell", "mat", "none"]) == ("dumbbells", "mat")
    assert page_equipment(["Medicine ball", "kettlebell"]) == ("kettlebell", "medicine-ball")
    assert page_equipment(None) == ()


def test_equipment_is_part_of_the_figure_cache_key():
    assert figure_key(RAISE, {"equipment": ("dumbbells",)}) != figure_key(RAISE, {"equipment": None})


def test_holding_hands_close_unless_a_contact_plants_them():
    assert holding_sides(("dumbbell-left",)) == {"left"}
    assert holding_sides(("medicine-ball",)) == set()   # held between open palms
    assert holding_sides(("mat", "barbell")) == {"left", "right"}
    hs = HAND_STATES["grip"]
    program, _ = program_with(RAISE, ("dumbbell-right",))
    for euler in (program.base_euler, *(kf.euler for kf in program.keyframes)):
        assert euler["index_right"] == pytest.approx((hs["curl"], 0.0, 0.0))
        assert euler["thumb_right"] == pytest.approx((hs["thumbCurl"], 0.0, -hs["thumbZ"]))
        assert euler["index_left"] == (0.0, 0.0, 0.0)
    # a phase that plants the left hand on the floor does not close it
    program, _ = program_with(PLANK_REACH, ("dumbbells",))
    tap, hold = program.keyframes
    assert tap.euler["index_left"] == (0.0, 0.0, 0.0) and hold.euler["index_left"] == (0.0, 0.0, 0.0)
    assert tap.euler["index_right"] == (0.0, 0.0, 0.0)        # planted in "Tap"
    assert hold.euler["index_right"] == pytest.approx((hs["curl"], 0.0, 0.0))   # free in "Hold"


def test_held_items_follow_the_grip_points_along_the_wrist_axis():
    # (every item at once in the same hands: where each one goes, not whether they fit together)
    program, _problems = program_with(RAISE, ("dumbbells", "barbell-back", "medicine-ball", "kettlebell"))
    for w in worlds(program):
        recs = {(r["item"], tuple(r["attached"])): r for r in attach(w, program.equipment)}
        for s in ("left", "right"):
            r = recs[("dumbbell", (f"grip_{s}",))]
            assert np.allclose(r["position"], w.landmarks[f"grip_{s}"])
            assert np.linalg.norm(np.array(r["position"]) - w.landmarks[f"palm_{s}"]) < 0.03
            # the handle runs across the palm: wrist local X in the world
            assert np.allclose(r["axis"], np.asarray(w.rot[f"wrist_{s}"])[:, 0])
        bell = recs[("kettlebell", ("grip_left", "grip_right"))]
        assert np.allclose(bell["position"], 0.5 * (w.landmarks["grip_left"] + w.landmarks["grip_right"]))
        ball = recs[("medicine-ball", ("palm_left", "palm_right"))]
        assert np.allclose(ball["position"], 0.5 * (w.landmarks["palm_left"] + w.landmarks["palm_right"]))
        bar = next(r for r in recs.values() if r["item"] == "barbell")
        shoulders = w.pos["shoulder_left"] - w.pos["shoulder_right"]
        cos = float(np.dot(bar["axis"], shoulders)) / float(np.linalg.norm(shoulders))
        assert math.degrees(math.acos(min(1.0, abs(cos)))) < 1e-6   # parallel to the shoulders
        # on the upper back: behind the neck joint, along the chest's facing
        back = float(np.dot(np.array(bar["position"]) - w.pos["neck"], np.asarray(w.rot["chest"])[:, 2]))
        assert back < -0.03


def test_band_runs_from_the_soles_or_the_anchor_to_the_grips():
    program, _ = program_with(RAISE, ("band", "band-anchor"))
    start = worlds(program)[0]
    anchor = np.array(program.equipment["anchor"])
    # 1.0 m in front of the start pose's sternum, at its height
    ahead = anchor - sternum(start)
    assert ahead[1] == pytest.approx(0.0, abs=1e-4)
    assert float(np.hypot(ahead[0], ahead[2])) == pytest.approx(GEOMETRY["band"]["ahead"], abs=1e-4)
    assert ahead[2] > 0.99   # the figure faces +Z
    for w in worlds(program):
        feet, anchored = attach(w, program.equipment)
        assert np.allclose(feet["ends"], [w.landmarks["sole_left"], w.landmarks["grip_left"],
                                          w.landmarks["sole_right"], w.landmarks["grip_right"]])
        assert np.allclose(anchored["ends"], [anchor, w.landmarks["grip_left"], anchor, w.landmarks["grip_right"]],
                           atol=1e-4)


def test_mat_covers_the_floor_footprint_of_the_whole_loop():
    for source in (RAISE, DEAD_BUG):
        program, _ = program_with(source, ("mat",))
        mat = program.equipment["mat"]
        yaw = math.radians(mat["yaw"])
        ax, lat = np.array([math.sin(yaw), math.cos(yaw)]), np.array([math.cos(yaw), -math.sin(yaw)])
        assert mat["size"][0] >= GEOMETRY["mat"]["size"][0] and mat["size"][1] >= GEOMETRY["mat"]["size"][1]
        for w in worlds(program):
            for name in ("ankle_left", "ankle_right", "heel_left", "toe_right", "pelvis", "head"):
                p = w.pos[name] if name in w.avatar.offsets else w.landmarks[name]
                if p[1] > 0.2:
                    continue
                d = np.array([p[0], p[2]]) - np.array(mat["center"])
                assert abs(float(d @ ax)) <= 0.5 * mat["size"][1] - 0.05
                assert abs(float(d @ lat)) <= 0.5 * mat["size"][0] - 0.05
    # a body lying along Z gets a mat along Z: longer than a standing figure's minimum
    program, _ = program_with(DEAD_BUG, ("mat",))
    assert abs(math.cos(math.radians(program.equipment["mat"]["yaw"]))) > 0.99


def test_barbell_the_hands_never_hold_together_is_a_warning_naming_it():
    program, problems = program_with(WIDE, ("barbell",))
    (wide,) = [p for p in problems if "apart" in p.message]
    assert wide.code == "equipment-attach" and wide.severity == "warning"
    assert "phase 'Open'" in wide.message and wide.line == program.keyframes[0].line
    # straight arms abducted 90°: the grip points are about two arm spans apart, wider than the bar
    open_world = worlds(program)[1]
    apart = float(np.linalg.norm(open_world.landmarks["grip_left"] - open_world.landmarks["grip_right"]))
    bar = GEOMETRY["barbell"]
    assert apart > 2 * bar["plateAt"] - bar["plate"][1]
    assert program_with(IN_FRONT, ("barbell",))[1] == []
    _, problems = program_with(WIDE, ("barbell-back",))
    assert problems == []


#: arms a little forward, so the hands hold a bar (or a ball) in front of the thighs
IN_FRONT = """posecode exercise "Hold in front"
  rig humanoid
  pose start = standing:
    shoulders: flex 20
  step "Hold" 1s settle:
    shoulders: flex 20
    ground-lock: feet
"""

#: the arms hanging at the sides: the hands are beside the thighs, 40 cm apart
AT_THE_SIDES = IN_FRONT.replace("flex 20", "flex 0")


def test_an_item_through_the_body_is_a_warning_naming_the_part():
    for words, item in ((("barbell",), "barbell"), (("medicine-ball",), "medicine-ball"), (("kettlebell",), "kettlebell")):
        program, problems = program_with(AT_THE_SIDES, words)
        assert [p.message for p in problems] == [
            f"cannot attach the equipment in the start pose: the {item} passes through "
            + problems[0].message.split(" passes through ")[1]], problems
        part = problems[0].message.split(" passes through ")[1].split(":")[0]
        assert part in ("the trunk", "the left thigh", "the right thigh")
        # the solid is inside the part's capsule by more than it may be (collide.py obstacles)
        from posecode_ssg.motion.collide import _closest_on_segment, obstacles

        w = worlds(program)[0]
        (rec,) = attach(w, program.equipment)
        a, b, r = obstacles(w)[{"the trunk": "torso", "the left thigh": "thigh_left",
                                "the right thigh": "thigh_right"}[part]]
        centre = np.array(rec["position"]) - (np.array([0, GEOMETRY["kettlebell"]["drop"], 0]) if item == "kettlebell" else 0)
        if item != "barbell":   # the ball's or bell's centre deeper than the rule allows (equipment.py)
            rc = GEOMETRY[item]["radius"] if item == "medicine-ball" else GEOMETRY[item]["bell"]
            assert float(np.linalg.norm(centre - _closest_on_segment(centre, a, b))) < r + rc - max(0.5 * rc, 0.03)
    # held clear in front of the body, the bar does not warn; a bar on the back rests on the trunk
    assert program_with(IN_FRONT, ("barbell",))[1] == []
    assert program_with(AT_THE_SIDES, ("barbell-back",))[1] == []


def test_one_item_in_each_hand():
    _, problems = program_with(IN_FRONT, ("dumbbells", "kettlebell"))
    assert [p.message for p in problems] == [
        "cannot attach the equipment: the left hand would hold dumbbell and kettlebell at once: "
        "name one item for each hand in the fence's equipment attribute"]
    assert program_with(IN_FRONT, ("dumbbell-left", "kettlebell-right", "mat"))[1] == []
    assert "would hold" in program_with(IN_FRONT, ("barbell-back", "dumbbell-right"))[1][0].message


def test_a_band_across_the_trunk_is_found():
    from posecode_ssg.motion.equipment import _through_body

    program, problems = program_with(IN_FRONT, ("band-anchor",))
    assert problems == []   # from the hands to the anchor in front: clear of the body
    w = worlds(program)[0]
    # an anchor behind the figure across from each hand: both strands cross the trunk's axis
    for x in (-0.3, 0.3):
        eq = {"items": ["band-anchor"], "anchor": [x, float(w.pos["chest"][1]), -1.0]}
        assert _through_body(w, eq) == [("band", "the trunk")]
    # the anchor where it belongs, in front: the strands run clear of the body
    eq = {"items": ["band-anchor"], "anchor": [0.0, float(w.pos["chest"][1]), 1.0]}
    assert _through_body(w, eq) == []


def test_band_through_a_solid_box_is_found():
    from posecode_ssg.motion.equipment import _blocked

    wall = {"meshes": [{"shape": "box", "size": [2.0, 2.0, 0.1], "center": [0.0, 1.0, 0.5]}]}
    chest = np.array([0.0, 1.3, 0.0])
    assert _blocked(chest, np.array([0.0, 1.3, 1.0]), wall)        # through the slab at z 0.45-0.55
    assert not _blocked(chest, np.array([0.0, 1.3, 0.4]), wall)    # stops short of it
    assert not _blocked(chest + [1.2, 0, 0], np.array([1.2, 1.3, 1.0]), wall)   # beside it
    # the built-in wall stands behind the figure: an anchor in front is clear of it
    source = WIDE.replace("  pose start = standing", "  prop wall\n  pose start = standing")
    assert program_with(source, ("band-anchor",))[1] == []


def test_compile_figure_carries_equipment_into_the_motion_json():
    fig = compile_figure(RAISE, {"equipment": ("dumbbells", "mat")})
    assert fig.motion["equipment"]["items"] == ["dumbbells", "mat"]
    assert set(fig.motion["equipment"]["mat"]) == {"center", "size", "yaw"}
    assert "equipment" not in compile_figure(RAISE, {"equipment": None}).motion
    assert set(WORDS) >= set(fig.motion["equipment"]["items"])


def test_front_matter_band_or_barbell_without_the_fence_attribute_is_a_hint(tmp_path):
    """A page whose front matter lists a band or a barbell draws neither (how it is held is the
    fence's to say): ``check`` and the build give an ``equipment-not-drawn`` hint at the fence's
    header naming the attribute that draws it; a fence that names it gets none."""
    from posecode_ssg.checking import check_file
    from posecode_ssg.config import load_config
    from posecode_ssg.site.build import build_site

    fence = ("```posecode{attrs}\nposecode exercise \"Row\"\n  rig humanoid\n  pose start = standing\n\n"
             "  step \"Pull\" 1s settle:\n    elbows: flex 90\n    ground-lock: feet\n```\n")
    page = "---\ntitle: Row\nequipment: [Resistance band, barbell]\n---\n\n# Row\n\n" + fence.format(attrs="")
    (tmp_path / "content").mkdir()
    (tmp_path / "content" / "row.md").write_text(page)
    (tmp_path / "content" / "named.md").write_text(page.replace("```posecode\n", '```posecode equipment="band"\n'))
    checked = [d for d in check_file(tmp_path / "content" / "row.md") if not d.page]
    from posecode_ssg.checking import add_kinematics

    add_kinematics(checked[0])
    hints = [d for d in checked[0].diagnostics() if d.code == "equipment-not-drawn"]
    assert [h.message.split(":")[0] for h in hints] == ["the front matter's 'band' is not drawn on this figure",
                                                         "the front matter's 'barbell' is not drawn on this figure"]
    assert hints[0].line == 9 and 'equipment="band-anchor"' in hints[0].hint
    result = build_site(load_config(cwd=tmp_path), progress=False)
    by_page = {}
    for path, d in result.hints:
        by_page.setdefault(path.name, []).append(d.code)
    assert by_page.get("row.md", []).count("equipment-not-drawn") == 2
    assert "equipment-not-drawn" not in by_page.get("named.md", [])
