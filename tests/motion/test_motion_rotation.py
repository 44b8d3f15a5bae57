"""Rotation helpers: properties over random legal angles (Hypothesis), and the schema's closed
lists checked against the one vocabulary."""

from __future__ import annotations

import json
import math

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from posecode_ssg.language import vocabulary as V
from posecode_ssg.motion import SCHEMA_PATH
from posecode_ssg.motion.rotation import (
    align_hemisphere,
    euler_to_matrix,
    euler_to_quat,
    matrix_to_euler,
    quat_to_matrix,
    slerp,
)

angle = st.floats(-180, 180, allow_nan=False)
inner = st.floats(-89, 89, allow_nan=False)


@settings(max_examples=200, deadline=None)
@given(angle, inner, angle)
def test_euler_quat_matrix_agree_and_round_trip(x, y, z):
    q = euler_to_quat((x, y, z))
    assert abs(np.linalg.norm(q) - 1) < 1e-12
    m = euler_to_matrix((x, y, z))
    assert np.allclose(quat_to_matrix(q), m, atol=1e-12)
    back = matrix_to_euler(m)
    assert np.allclose(euler_to_matrix(back), m, atol=1e-9)
    assert abs(back[1] - y) < 1e-6     # y is unique in (−90, 90)


@settings(max_examples=100, deadline=None)
@given(angle, inner, angle, angle, inner, angle, st.floats(0, 1))
def test_hemisphere_and_slerp(x1, y1, z1, x2, y2, z2, t):
    a, b = euler_to_quat((x1, y1, z1)), euler_to_quat((x2, y2, z2))
    c = align_hemisphere(b, a)
    assert float(np.dot(a, c)) >= 0 and np.allclose(quat_to_matrix(c), quat_to_matrix(b), atol=1e-12)
    s = slerp(a, b, t)
    assert abs(np.linalg.norm(s) - 1) < 1e-9
    # slerp travels the short arc: its angle from a is t × the whole angle
    whole = 2 * np.arccos(min(1.0, abs(float(np.dot(a, b)))))
    part = 2 * np.arccos(min(1.0, abs(float(np.dot(a, s)))))
    assert abs(part - t * whole) < 1e-6


def test_schema_closed_lists_match_the_vocabulary():
    schema = json.loads(SCHEMA_PATH.read_text())
    props, defs = schema["properties"], schema["$defs"]
    assert tuple(defs["boneId"]["enum"]) == V.BONES
    assert tuple(props["avatar"]["enum"]) == V.AVATARS
    assert tuple(props["kind"]["enum"]) == V.KINDS
    assert tuple(props["startPose"]["enum"]) == V.START_POSES
    assert tuple(props["props"]["items"]["enum"]) == V.PROPS
    assert tuple(defs["phase"]["properties"]["m"]["enum"]) == V.TIMING_MODES
    assert set(defs["phase"]["properties"]["gl"]["items"]["enum"]) == set(V.GROUND_LOCK_CONTACTS)


def test_remembered_quaternions_are_fresh_arrays_with_the_computed_bits():
    """euler_to_quat remembers results by the exact angle bits: a second call gives the same
    bits as the first (and as the product of the three axis quaternions), in an array of its own
    (changing it does not change the next answer)."""
    from posecode_ssg.motion.rotation import _euler_to_quat, euler_to_quat, quat_mul

    for e in ((10.0, -20.0, 35.0), (0.0, 0.0, 0.0), (-0.0, 0.0, 0.0), (90.0, 45.0, -180.0)):
        first = euler_to_quat(e)
        axes = [np.array([math.sin(math.radians(a) / 2) if i == k else 0.0 for i in range(3)]
                         + [math.cos(math.radians(a) / 2)]) for k, a in enumerate(e)]
        assert np.allclose(first, quat_mul(quat_mul(axes[0], axes[1]), axes[2]), atol=1e-15)
        first[0] = 7.0
        again = euler_to_quat(e)
        assert again[0] != 7.0 and np.array_equal(again, _euler_to_quat(e))
        assert np.signbit(again).tolist() == np.signbit(_euler_to_quat(e)).tolist()
