"""Motion compiler: Posecode IR → compact motion JSON, build-time keyframe solve, SVG posters.

Public API (see docs/motion-json.md): :func:`compile_ir`, :class:`MotionProgram`; the rig in
:mod:`posecode_ssg.motion.rig`; the solve in :mod:`posecode_ssg.motion.solve`; posters in
:mod:`posecode_ssg.motion.poster`.
"""

from .compile import Keyframe, MotionProgram, compile_ir

SCHEMA_PATH = __import__("pathlib").Path(__file__).with_name("motion.schema.json")

__all__ = ["compile_ir", "MotionProgram", "Keyframe", "SCHEMA_PATH"]
