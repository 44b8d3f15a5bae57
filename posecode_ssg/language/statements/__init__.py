"""The statement rules of Posecode v0.4, one module per kind of statement (spec §1 names):

- ``directives``: the ``posecode`` header and the top-level directives (``rig``, ``avatar``,
  ``prop``, ``clip``, ``repeat``, ``pose start`` and which ``step`` blocks count);
- ``start_pose``: the ``pose start = X:`` override block (``startOverride``);
- ``steps``: a ``step`` header (duration, ``timingMode``) and its children: the dispatch of each
  child, ``turn``, ``travel`` and ``cue``;
- ``joint_targets``: ``jointTarget`` lines (``<joint>: <action> <degrees>``, ``hold neutral``),
  range-of-motion clamps and the pelvis-hinge + hip coupling (spec §2–§4);
- ``contacts``: ``ground-lock``, ``reach``, ``pin`` and ``grip`` and the rule that the
  root-solving families exclude each other (spec §1 "Contact mechanisms", §5).

Each rule takes the parse's :class:`posecode_ssg.language.context.Context` and the lexed
statement(s). This ``__init__`` imports nothing: import the modules themselves.
"""
