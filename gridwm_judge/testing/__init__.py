"""Test support that ships with the package, so users' own tests and demos can use it too:
a loopback server that speaks each judge API and its batch API (:mod:`.stub_server`, with
:mod:`.stub_dialects` and :mod:`.stub_batches` / :mod:`.stub_gemini_batches`), and tiny
randomly initialised VLMs built from a config on the spot (:mod:`.tiny_model`).

The library never imports this package (``tests/test_import_graph.py`` places it above every
layer); ``python -m gridwm_judge.testing.stub_server`` serves a stub from a shell.
"""
