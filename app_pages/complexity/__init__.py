"""The complexity lab (/complexity): what generating without a KV cache costs (C12-C15).

page.py the screen; run (section 1: with and without the cache, raced step by step), result (what
that run measured: the work counted, the time beside it), panels (sections 2 and 3: which term
dominates, the worked example), table (the worked example's shapes), figures, keys, strings. The
arithmetic behind it is lab/complexity.py and lab/complexity_math.py; the race, lab/complexity_race.py."""
