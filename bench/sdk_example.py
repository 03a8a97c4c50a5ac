"""Runs a Claude Agent SDK example program unchanged with orbit as its CLI.

The Python SDK finds its CLI itself (its bundled Claude Code first), and an
example passes no `cli_path`; this runner only makes `cli_path` default to
orbit (ORBIT_BIN, else `orbit` on PATH), then runs the example as
`__main__`:

    ORBIT_PROVIDER=local python bench/sdk_example.py EXAMPLE.py [ARGS…]
"""

import os
import runpy
import shutil
import sys

import claude_agent_sdk.types as types

ORBIT = os.environ.get("ORBIT_BIN") or shutil.which("orbit")
if not ORBIT:
    sys.exit("sdk_example: set ORBIT_BIN or put orbit on PATH")

_init = types.ClaudeAgentOptions.__init__


def _with_orbit(self, *args, **kwargs):
    kwargs.setdefault("cli_path", ORBIT)
    _init(self, *args, **kwargs)


types.ClaudeAgentOptions.__init__ = _with_orbit
sys.argv = sys.argv[1:]
runpy.run_path(sys.argv[0], run_name="__main__")
