"""How the engine is reached from outside: the command line (cli.py; its serving commands in
serve_commands.py), the OpenAI-compatible server (server/), the disaggregated router (router.py,
reading its decode worker through relay.py) and starting servers as processes (launch.py)."""
