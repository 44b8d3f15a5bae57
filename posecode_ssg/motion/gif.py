"""Animated GIF of a movement (Pillow): the poster's 2-D figure drawn at each frame between the
solved phase ends, looping as the clip does.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

from posecode_ssg.language.vocabulary import (
    BONES,
)

from .fk import World, forward_kinematics
from .poster import figure_prims, prop_prims
from .posterpng import Canvas, poster_box
from .rotation import euler_to_quat, matrix_to_euler, quat_to_matrix, rot_y, slerp
from .solve import solve_keyframes
from .view import body_frame, choose_view, working_limbs


def _interp_world(av, a: tuple, b: tuple, s: float) -> World:
    """FK of the solved local rotations slerped from frame a to frame b (root lerped/slerped)."""
    (ea, pa, ra), (eb, pb, rb) = a, b
    local = {}
    for bone in BONES:
        qa = euler_to_quat(ea.get(bone, (0, 0, 0)))
        qb = euler_to_quat(eb.get(bone, (0, 0, 0)))
        local[bone] = quat_to_matrix(slerp(qa, qb, s))
    qa = euler_to_quat(matrix_to_euler(ra))
    qb = euler_to_quat(matrix_to_euler(rb))
    R = quat_to_matrix(slerp(qa, qb, s))
    w = forward_kinematics(av, {}, pa + (pb - pa) * s, R, local=local)
    low = w.lowest()
    if low < 0:   # in-betweens are not re-solved; at least never sink through the floor
        w = forward_kinematics(av, {}, w.root_pos - np.array([0.0, low, 0.0]), R, local=local)
    return w


def render_gif(program, path: str | Path, *, fps: int = 12, width: int = 320,
               flip: bool = False, view: str | None = None) -> Path:
    """Write an animated GIF preview of one loop to ``path`` and return it.

    Frames interpolate the solved keyframe poses (local rotations slerped, root interpolated,
    smoothstep timing) and draw them with Pillow in the poster's colours (fallback values).
    Raises ``RuntimeError`` when Pillow is not installed.
    """
    try:
        from PIL import Image
    except ImportError as exc:   # pragma: no cover - depends on the environment
        raise RuntimeError("GIF previews need Pillow: pip install 'posecode-ssg[gif]'") from exc
    view = view or choose_view(program)
    working = working_limbs(program)
    sol = solve_keyframes(program)
    av = sol.avatar
    keys = [({b: program.base_euler[b] for b in BONES}, sol.base.root_pos, sol.base.root_rot, 0.0, (0.0, 0.0))]
    for kf, ph in zip(program.keyframes, sol.phases):
        keys.append((ph.euler, ph.world.root_pos, ph.world.root_rot, kf.turn, kf.travel))
    durations = [kf.duration for kf in program.keyframes]
    if program.wrap > 0:
        keys.append(keys[0])
        durations.append(program.wrap)
    frames_prims = []
    for k, d in enumerate(durations):
        n = max(2, int(round(d * fps)))
        for i in range(n):
            u = i / n
            s = u * u * (3 - 2 * u)
            a, b = keys[k], keys[k + 1]
            w = _interp_world(av, a[:3], b[:3], s)
            turn = a[3] + (b[3] - a[3]) * s
            travel = (a[4][0] + (b[4][0] - a[4][0]) * s, a[4][1] + (b[4][1] - a[4][1]) * s)
            pts = body_frame(w, turn, travel)
            frames_prims.append(figure_prims(pts, view, flip, working, rot_y(-turn) @ w.rot["head"]))
    props = prop_prims(program.props, view, flip)
    box = poster_box([p for f in frames_prims for p in f] + props)
    images = []
    for prims in frames_prims:
        canvas = Canvas(box, width)
        canvas.scene(prims, props)
        images.append(canvas.image.convert("P", palette=Image.Palette.ADAPTIVE, colors=16))
    out = Path(path)
    images[0].save(out, save_all=True, append_images=images[1:], duration=int(1000 / fps), loop=0,
                   optimize=True)
    return out
