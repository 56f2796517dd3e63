"""How the engine is reached from outside: the command line (cli.py), the OpenAI-compatible server
(server/), the disaggregated router (router.py) and starting servers as processes (launch.py)."""
