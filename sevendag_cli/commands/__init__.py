"""The commands, one module per command or family; :data:`sevendag_cli.cli.COMMANDS` names them.

``table`` (``init``, ``round``, ``wound``, ``undo``), ``fight`` (with ``--runs``
and ``--exact``), ``rulesets`` (with ``show`` and ``validate``), ``new``,
``roll`` and ``schema``.  Each module holds a Typer ``app`` with its command(s);
each command only parses its options, calls the engine and picks a renderer.
"""
