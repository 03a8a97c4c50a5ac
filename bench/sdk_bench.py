"""One SDK program, timed: a one-shot query() and a 3-turn ClaudeSDKClient
session with the agent at AGENT_CLI (argv[1]) — orbit or Claude Code.

Run by crates/cli/examples/sdk_bench.rs (bench/sdk.sh), which starts the
fake Anthropic server and interleaves the agents. Prints one JSON line:
wall-clock start of each part (time.time(), to match the server's request
times) and its wall time. ORBIT_BENCH_RSS_ONE / _SESSION name the files
the agent's wrapper writes its peak RSS (KiB) to.
"""

import asyncio
import json
import os
import sys
import time

from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKClient, ResultMessage, query


def options(rss_file):
    return ClaudeAgentOptions(cli_path=sys.argv[1], cwd=os.getcwd(),
                              env={"ORBIT_BENCH_RSS": rss_file})


async def main():
    out = {}
    out["one_shot_t0"] = time.time()
    async for message in query(prompt="say hi", options=options(os.environ["ORBIT_BENCH_RSS_ONE"])):
        if isinstance(message, ResultMessage):
            assert not message.is_error, message
    out["one_shot_s"] = time.time() - out["one_shot_t0"]
    out["session_t0"] = time.time()
    async with ClaudeSDKClient(options=options(os.environ["ORBIT_BENCH_RSS_SESSION"])) as client:
        for prompt in ["first", "second", "third"]:
            await client.query(prompt)
            async for message in client.receive_response():
                if isinstance(message, ResultMessage):
                    assert not message.is_error, message
    out["session_s"] = time.time() - out["session_t0"]
    print(json.dumps(out), flush=True)


asyncio.run(main())
