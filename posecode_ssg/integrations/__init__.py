"""Posecode figures in pipelines that are not posecode-ssg's own build: the MkDocs plugin
(:mod:`posecode_ssg.integrations.mkdocs`, entry point ``mkdocs.plugins: posecode``) and the
Sphinx extension (:mod:`posecode_ssg.sphinx`). Both render a fence with the build's own
``compile_figure`` and ``figure_html`` (:mod:`.embed`), so a figure, its error box and its
diagnostics are the same wherever it is published."""
