"""The Posecode language server (``posecode-ssg lsp``, issue 26 item 1): diagnostics as
``posecode-ssg check`` gives them, completion, hover, code actions, formatting, document symbols
and folding ranges for ``.posecode`` files and the ```` ```posecode ```` fences of Markdown pages,
over stdio with pygls (docs/lsp.md).

Modules: :mod:`.documents` (the server's copy of a document, its lines and the conversion of
positions between ``check``'s 1-based code-point columns and the negotiated LSP position
encoding), :mod:`.analysis` (a document split into Posecode units, parsed, with ``check``'s
diagnostics), :mod:`.words` (one line of documentation for every word of the closed
vocabularies), :mod:`.completion`, :mod:`.hover`, :mod:`.actions`, :mod:`.outline` (symbols,
folding, formatting) and :mod:`.server` (the pygls wiring, the debounced kinematic solve).

Only :mod:`.server` imports pygls; the feature modules are plain functions over text, so they can
be tested (and fuzzed) without a client.
"""
